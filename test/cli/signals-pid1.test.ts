/**
 * `docker run image warden …` without --init, or a Kubernetes
 * container whose command is warden, makes warden PID 1 of its PID namespace. The kernel delivers a
 * signal to a namespace's PID 1 only if it handles it, and ignores the ones it sends itself: the
 * second signal's "die of the signal itself" (bin/warden.ts: process.kill(process.pid, name)) was then
 * a no-op, and the run the user signalled twice ("signal again to exit at once") went on; it aborts now.
 * `unshare --user --map-root-user --pid --fork` makes such a namespace without privileges.
 */
import { execFileSync, spawn } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILT_CLI } from "../../bin/build-cli.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { opened } from "../support/fifo.ts";

const UNSHARE = ["--user", "--map-root-user", "--pid", "--fork"];
const canUnshare = (() => {
  try {
    return execFileSync("unshare", [...UNSHARE, "sh", "-c", "echo $$"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim() === "1";
  } catch {
    return false;
  }
})();

let sim: GitLabSim;
beforeAll(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 20, seed: 11 }).dataset });
});
afterAll(() => sim.close());

/** The pid, seen from here, of unshare's child: warden, PID 1 inside. */
async function childOf(pid: number): Promise<number> {
  const file = `/proc/${pid}/task/${pid}/children`;
  for (;;) {
    const children = existsSync(file) ? readFileSync(file, "utf8").trim() : "";
    if (children) return Number(children.split(" ")[0]);
    await sleep(10);
  }
}


describe.runIf(process.platform === "linux" && canUnshare)("warden as PID 1 of a container", () => {
  it("a second SIGTERM ends the run at once, as docs/cli.md promises ('signal again to exit at once'), while the first waits on what cannot be cancelled", async () => {
    // As test/cli/signals.test.ts: a policy from a pipe nobody writes to, whose read cannot be cancelled.
    const fifo = join(mkdtempSync(join(tmpdir(), "warden-pid1-")), "policy.fifo");
    execFileSync("mkfifo", [fifo]);
    const env = { PATH: process.env["PATH"] ?? "", GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token };
    const outer = spawn("unshare", [...UNSHARE, process.execPath, BUILT_CLI, "enforce", "--apply", "--policy", fifo], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    outer.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    outer.stdout.resume();
    const done = new Promise<void>((resolve) => outer.on("close", () => resolve()));
    const pid = await childOf(outer.pid!);
    const writer = await opened(fifo);
    try {
      process.kill(pid, "SIGTERM");
      while (!/interrupted by SIGTERM: starting no new work/.test(stderr)) await sleep(10);
      process.kill(pid, "SIGTERM");
      // Exiting at once is milliseconds; the run, left to itself, waits on the pipe for good.
      const ended = await Promise.race([done.then(() => true), sleep(5_000).then(() => false)]);
      expect(ended, "still running 5 s after the second SIGTERM").toBe(true);
      expect(sim.counters.requests).toBe(0);
    } finally {
      closeSync(writer);
      await Promise.race([done, sleep(5_000)]);
      if (outer.exitCode === null && outer.signalCode === null) process.kill(pid, "SIGKILL");
      await done;
    }
  }, 30_000);
});
