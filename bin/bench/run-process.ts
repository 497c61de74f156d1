/** Runs a bundled runner in a process of its own and reads its result, its last line on stdout. */
import { spawn } from "node:child_process";
import { tracked } from "./leftovers.ts";
import type { RunResult } from "./run-result.ts";

/**
 * Only the ends of the runner's output are kept: the durable row's function writes its log lines there,
 * as a Lambda does. A runner that prints no result resolves to one with the error and NaN times; so
 * does one whose last line is cut (a log line the kill of its timeout stopped half-written).
 */
export function runProcess<T extends RunResult = RunResult>(bundle: string, args: string[], options: { nodeOptions: string; timeoutS: number; env?: NodeJS.ProcessEnv }): Promise<T> {
  return new Promise((resolve) => {
    const nodeOptions = options.nodeOptions.split(" ").filter(Boolean);
    const child = tracked(spawn(process.execPath, [...nodeOptions, bundle, ...args], { env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] }));
    const tail = { stdout: "", stderr: "" };
    for (const name of ["stdout", "stderr"] as const) child[name].on("data", (chunk: Buffer) => (tail[name] = (tail[name] + chunk.toString()).slice(-(1 << 20))));
    let timedOut = false;
    const timer = setTimeout(() => ((timedOut = true), child.kill()), options.timeoutS * 1000);
    child.on("close", (code) => {
      clearTimeout(timer);
      const last = tail.stdout.trim().split("\n").at(-1) ?? "";
      const result = parsed<T>(last);
      if (result && "wallMs" in result) return resolve(result);
      // A crash's own line (Node ends its report with its version), else the last one.
      const lines = tail.stderr.trim().split("\n");
      const crash = lines.find((line) => /^\w*Error\b/.test(line)) ?? lines.at(-1);
      const cut = last.startsWith("{") ? ` (its last line on stdout is no result: ${last.slice(0, 80)}…)` : "";
      resolve({ wallMs: NaN, maxRssKB: NaN, removed: 0, error: `${timedOut ? "timed out" : crash || `exit ${code}`}${cut}` } as T);
    });
  });
}

/** The runner's last line as JSON; undefined for any other line. */
function parsed<T>(line: string): T | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    return JSON.parse(line) as T;
  } catch {
    return undefined;
  }
}
