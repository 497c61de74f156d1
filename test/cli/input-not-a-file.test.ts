/**
 * `warden apply PLAN` and `warden restore FILE` read their file whole (bin/cli/io.ts readWholeFile). It
 * was opened with a blocking open: a named pipe planted where the plan artifact lives (by anyone who may
 * write that directory) held the run before any check, for ever with no writer, until CI's own timeout
 * (the plan13 review). It is opened without blocking now: a pipe or a device another account owns is
 * refused at once, naming the cause and the fix, before any request; the user's own (`<(…)`, /dev/stdin)
 * is read as before (test/cli/unsized-input.test.ts).
 */
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, startWarden } from "../support/cli.ts";
import { standardPolicy } from "../support/policies.ts";

let sim: GitLabSim;
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 10, seed: 3 }).dataset });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(standardPolicy()) };
});
afterAll(() => sim.close());

/** The run of `args`, or a failure if it is still running after 8 s (killed then). */
async function withinSeconds(args: string[]) {
  const run = startWarden(args, env);
  const timedOut = Symbol("timed out");
  const result = await Promise.race([run.done, new Promise<typeof timedOut>((resolve) => setTimeout(() => resolve(timedOut), 8_000))]);
  if (result === timedOut) {
    run.kill("SIGKILL");
    await run.done;
  }
  expect(result, `warden ${args[0]} was still blocked on its input after 8 s`).not.toBe(timedOut);
  return result as Exclude<typeof result, typeof timedOut>;
}

describe.skipIf(process.platform === "win32")("an input that is not a file", () => {
  // Only root can give the pipe to another account (nobody), as another account making the name first would.
  for (const command of ["apply", "restore"]) {
    it.runIf(process.getuid?.() === 0)(`warden ${command} on another account's named pipe, nothing writing to it, is refused at once, not waited on for ever`, async () => {
      const shared = mkdtempSync(join(tmpdir(), "warden-input-fifo-"));
      chmodSync(shared, 0o1777);
      const fifo = join(shared, "plan.json");
      execFileSync("mkfifo", ["-m", "0666", fifo]);
      chownSync(fifo, 65534, 65534);
      const run = await withinSeconds([command, fifo]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`${fifo} is a pipe or a device of another account (uid 65534), which could hold the run for as long as it waits to write: save the input to a file of your own and give its path`);
      expect(sim.counters.requests).toBe(0);
    }, 20_000);
  }

  it("a directory is refused, not read as an error code", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-input-dir-"));
    const run = await withinSeconds(["apply", dir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${dir} is a directory: apply reads a saved file; give its path`);
    expect(sim.counters.requests).toBe(0);
  }, 20_000);
});
