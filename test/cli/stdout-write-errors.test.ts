/**
 * A hostile review's finding (bin/warden.ts): the built CLI (dist/warden.js, as npm's bin shim runs it) when its stdout cannot be written,
 * other than a reader gone away: a full disk (`warden report shares --format csv > review.csv`,
 * `warden enforce --json > report.json` in a CI job). bin/warden.ts swallowed every error of stdout
 * ("a reader gone away must not kill a run"), so the report was lost without a word and the exit code
 * said the run succeeded: a CI job kept an empty artifact and passed. Now it is said, and the exit is 1.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILT_CLI } from "../../bin/build-cli.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, type CliRun } from "../support/cli.ts";
import { groupSharesPolicy } from "../support/policies.ts";

/** Runs the built CLI with its stdout on `stdoutPath` (opened for writing), stderr captured. */
function wardenTo(stdoutPath: string, args: string[], env: Record<string, string>): Promise<CliRun> {
  const fd = openSync(stdoutPath, "w");
  const child = spawn(process.execPath, [BUILT_CLI, ...args], { env: { PATH: process.env["PATH"] ?? "", ...env }, stdio: ["ignore", fd, "pipe"] });
  closeSync(fd);
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk));
  return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code: code ?? 1, ...(signal ? { signal } : {}), stdout: "", stderr })));
}

let sim: GitLabSim;
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 100, seed: 11, groupShares: true }).dataset });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(groupSharesPolicy()) };
});
afterAll(() => sim.close());

describe.runIf(existsSync("/dev/full"))("stdout on a full disk (/dev/full: every write fails with ENOSPC)", () => {
  it("warden report shares --format csv > review.csv: the access review is lost: said, and exit 1", async () => {
    const run = await wardenTo("/dev/full", ["report", "shares", "--format", "csv"], env);
    expect(run.stderr).toMatch(/ENOSPC|no space/i);
    expect(run.code).toBe(1);
  });

  it("warden enforce --json > report.json: the report is lost: said, and exit 1 (not a dry run's 2)", async () => {
    const run = await wardenTo("/dev/full", ["enforce", "--json"], env);
    expect(run.stderr).toMatch(/ENOSPC|no space/i);
    expect(run.code).toBe(1);
  });

  it("warden --version > file: nothing written: exit 1", async () => {
    const run = await wardenTo("/dev/full", ["--version"], {});
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/ENOSPC|no space/i);
  });
});
