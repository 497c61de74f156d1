/**
 * Files a command writes only after its requests (bin/cli/file-to-write.ts): `enforce --out`'s plan and
 * `watch --state`'s cursor. Each refused before any request, naming the flag and the fix; before, the
 * whole examination ran and then failed on the write ("cannot write the plan to : ENOENT"), and a watch
 * polled until its 10th failed cursor write (10 minutes at the default interval). `dirname` is "." for
 * an empty path and for "plans/" alike, which is how both passed a check of the directory alone.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden, type CliRun } from "../support/cli.ts";
import { EVERYTHING_STRAY } from "../support/policies.ts";
import { WATCH_TOKENS, watchPolicyText, watchWorld } from "../support/watch-world.ts";

let sim: GitLabSim;
let watchSim: GitLabSim;
let env: Record<string, string>;
let watchEnv: Record<string, string>;
let dir: string;

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 60, seed: 11 }).dataset });
  watchSim = await startGitLabSim({ dataset: watchWorld(), tokens: WATCH_TOKENS });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(EVERYTHING_STRAY) };
  watchEnv = { GITLAB_URL: watchSim.url, GITLAB_TOKEN: "root", WARDEN_POLICY: policyFile(watchPolicyText()) };
});
afterAll(() => Promise.all([sim.close(), watchSim.close()]));
beforeEach(() => {
  sim.resetCounters();
  watchSim.resetCounters();
  dir = mkdtempSync(join(tmpdir(), "warden-write-"));
});

/** Exit 1, the flag named, and not a request sent. */
function refusedUpFront(run: CliRun, server: GitLabSim, flag: string, because: RegExp): void {
  expect(server.counters.requests, `requests sent before the refusal (exit ${run.code}); stderr: ${run.stderr.trim().slice(0, 300)}`).toBe(0);
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(flag);
  expect(run.stderr).toMatch(because);
}

const cases: [string, () => string, RegExp][] = [
  ["empty", () => "", /is empty: name the file to write/],
  ["- (read as standard output by most tools)", () => "-", /writes a file, not standard output .*: name the file to write/],
  ["a directory", () => dir, /is a directory: name the file to write in it/],
  ["a missing directory written with a trailing slash", () => join(dir, "plans") + "/", /is a directory: name the file to write in it/],
  ["a file in a directory that does not exist", () => join(dir, "no-such-dir", "file.json"), /cannot take the file \(ENOENT\): create it, or name a file in one that can/],
];

describe("enforce --out that no plan can be written to", () => {
  it.each(cases)("%s is refused before any request", async (_, out, because) => {
    const run = await warden(["enforce", `--out=${out()}`], env);
    refusedUpFront(run, sim, "--out", because);
  }, 30_000);
});

describe("warden watch --state that no state file can be written to", () => {
  it.each(cases)("%s is refused before any request", async (_, state, because) => {
    // Not refused, the watch polls until its 10th failed cursor write: 10 s at --interval 1s.
    const run = await warden(["watch", "--interval", "1s", `--state=${state()}`], watchEnv);
    refusedUpFront(run, watchSim, "--state", because);
  }, 30_000);
});
