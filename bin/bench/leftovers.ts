/**
 * What the bench would leave behind: the child processes it starts (simulators, runners, the CLI) and
 * its directory. A signal that stops it (a CI job's timeout, `kill`, a closed terminal) reaches neither
 * a `finally` nor the children, so `stopOnSignals` kills them and removes the directory: a simulator
 * would otherwise keep its port and its world, a runner go on sending requests with no timeout left.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { constants, tmpdir } from "node:os";
import { join } from "node:path";

const running = new Set<ChildProcess>();
const dirs = new Set<string>();

/** Keeps `child` until it exits; returns it. */
export function tracked<T extends ChildProcess>(child: T): T {
  running.add(child);
  child.once("exit", () => running.delete(child));
  return child;
}

/** A new directory of the bench's own under the system's temporary one. */
export function benchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.add(dir);
  return dir;
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  dirs.delete(dir);
}

/** On SIGINT, SIGTERM or SIGHUP: every child killed, every directory removed, exit 128 + the signal's number. */
export function stopOnSignals(): void {
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      // Nothing of theirs is wanted any more: SIGKILL, which no handler of theirs can delay.
      for (const child of running) child.kill("SIGKILL");
      for (const dir of dirs) removeDir(dir);
      process.exit(128 + constants.signals[signal]);
    });
  }
}
