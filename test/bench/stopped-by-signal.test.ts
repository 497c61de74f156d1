/**
 * A bench stopped part-way — a CI job's timeout, `kill PID`, a terminal closed (SIGTERM, SIGHUP to the
 * bench's process alone) — leaves no process, port or directory behind (bin/bench/leftovers.ts): the
 * simulator would keep its port and its world, the runner go on sending requests.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url).pathname;

/** The processes whose parent is `pid`, with their command lines. */
function children(pid: number): { pid: number; cmd: string }[] {
  return readdirSync("/proc").flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid !== pid) return [];
      return [{ pid: Number(entry), cmd: readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ") }];
    } catch {
      return [];
    }
  });
}
/** Alive and not a zombie awaiting its parent. */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
};

describe.skipIf(process.platform !== "linux")("a bench stopped by a signal", () => {
  it("leaves no simulator, no runner and no directory of its own behind", async () => {
    const flags = ["--sizes", "10000", "--latency", "200", "--limits", "none", "--tools", "warden", "--cli=", "--latency-rows=", "--durable=", "--bucket=", "--watch=", "--stream=", "--notices=", "--json"];
    const bench = spawn(process.execPath, [join(ROOT, "bin/bench/index.ts"), ...flags], { cwd: ROOT, env: process.env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    bench.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const started: { pid: number; cmd: string }[] = [];
    let work: string | undefined;
    try {
      // Until the row is under way: the simulator and the runner both started.
      for (let i = 0; i < 300 && started.length < 2; i++) {
        await sleep(100);
        started.splice(0, started.length, ...children(bench.pid!).filter((c) => /sim-process\.ts|warden\.mjs/.test(c.cmd)));
      }
      expect(started.map((c) => c.cmd).join("\n"), stderr).toMatch(/warden\.mjs/);
      work = /(\S*warden-bench-[^/\s]+)\//.exec(started.find((c) => c.cmd.includes("warden.mjs"))!.cmd)![1]!;
      expect(work.startsWith(tmpdir())).toBe(true);

      bench.kill("SIGTERM");
      // "exit", not "close": the simulator inherited the bench's stderr and keeps it open.
      await new Promise((resolve) => bench.once("exit", resolve));
      await sleep(500);

      const left = started.filter((c) => alive(c.pid)).map((c) => `${c.pid} ${c.cmd.slice(0, 100)}`);
      expect({ processesLeft: left, directoryLeft: existsSync(work), exitCode: bench.exitCode }).toEqual({ processesLeft: [], directoryLeft: false, exitCode: 128 + 15 });
    } finally {
      // What the bench started and left: stopped by id.
      for (const c of started) if (alive(c.pid)) process.kill(c.pid, "SIGKILL");
      if (bench.exitCode === null && bench.signalCode === null) bench.kill("SIGKILL");
      // Its own directory only: other benches may be running on this machine.
      if (work) rmSync(work, { recursive: true, force: true });
    }
  }, 60_000);
});
