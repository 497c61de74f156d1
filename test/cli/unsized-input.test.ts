/**
 * `warden restore FILE` and `warden apply PLAN` read their file whole
 * (bin/cli/io.ts readWholeFile), refusing one over 64 MB by the size stat() gives. A file with no size
 * (a pipe: `warden restore <(aws logs tail …)`, `/dev/stdin`, a character device) passes that check at
 * 0 bytes and is then read to its end, however long: past the CLI's 256 MB heap the process dies of
 * V8's "JavaScript heap out of memory" (exit 134, a native stack trace on stderr) instead of the clear
 * refusal a regular file of that size gets (the CLI inputs review's finding). Read a megabyte at a time
 * now, and refused past the limit. A named pipe fed by `yes` stands for any endless or oversized stream
 * (not /dev/zero: its NUL bytes are refused at once, as not UTF-8 text).
 *
 * It was opened with a blocking open too: a named pipe planted where a plan artifact lives (by anyone who
 * may write that directory) held the run before any check, for ever with no writer (the plan13 review).
 * Opened without blocking now: a pipe or a device another account owns is refused at once, before any
 * request; the user's own is read as above.
 */
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden, wardenWithin } from "../support/cli.ts";
import { standardPolicy } from "../support/policies.ts";

let sim: GitLabSim;
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 10, seed: 3 }).dataset });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(standardPolicy()) };
});
afterAll(() => sim.close());

describe("an input file with no size (a pipe, a device) larger than the CLI reads whole", () => {
  for (const command of ["restore", "apply"]) {
    it(`warden ${command} on an endless pipe is refused with a message naming the limit, not a heap crash`, async () => {
      const fifo = join(mkdtempSync(join(tmpdir(), "warden-unsized-")), "input");
      execFileSync("mkfifo", [fifo]);
      // Ends of SIGPIPE once the CLI closes the pipe; killed in case it never opened it.
      const writer = spawn("sh", ["-c", 'exec yes \'{"action":"remove-share"}\' > "$0"', fifo], { stdio: "ignore" });
      const run = await warden([command, fifo], env).finally(() => writer.kill());
      expect(run.stderr, "the process died of a full heap").not.toMatch(/FATAL ERROR|heap out of memory|Native stack trace/);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/64 MB/);
      expect(sim.counters.requests).toBe(0);
    }, 60_000);
  }
});

describe.skipIf(process.platform === "win32")("an input that is not a file of the user's own", () => {
  // Only root can give the pipe to another account (nobody), as another account making the name first would.
  for (const command of ["apply", "restore"]) {
    it.runIf(process.getuid?.() === 0)(`warden ${command} on another account's named pipe, nothing writing to it, is refused at once, not waited on for ever`, async () => {
      const shared = mkdtempSync(join(tmpdir(), "warden-input-fifo-"));
      chmodSync(shared, 0o1777);
      const fifo = join(shared, "plan.json");
      execFileSync("mkfifo", ["-m", "0666", fifo]);
      chownSync(fifo, 65534, 65534);
      const run = await wardenWithin([command, fifo], env, 8_000);
      if (!run) expect.fail(`warden ${command} was still blocked on its input after 8 s`);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`${fifo} is a pipe or a device of another account (uid 65534), which could hold the run for as long as it waits to write: save the input to a file of your own and give its path`);
      expect(sim.counters.requests).toBe(0);
    }, 20_000);
  }

  it("a directory is refused, not read as an error code", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-input-dir-"));
    const run = await wardenWithin(["apply", dir], env, 8_000);
    if (!run) expect.fail("warden apply was still blocked on a directory after 8 s");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${dir} is a directory: apply reads a saved file; give its path`);
    expect(sim.counters.requests).toBe(0);
  }, 20_000);
});
