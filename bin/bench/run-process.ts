/** Runs a bundled runner in a process of its own and reads its result, its last line on stdout. */
import { spawn } from "node:child_process";
import type { RunResult } from "./run-result.ts";

/**
 * Only the ends of the runner's output are kept: the durable row's function writes its log lines there,
 * as a Lambda does. A runner that prints no result resolves to one with the error and NaN times.
 */
export function runProcess<T extends RunResult = RunResult>(bundle: string, args: string[], options: { nodeOptions: string; timeoutS: number; env?: NodeJS.ProcessEnv }): Promise<T> {
  return new Promise((resolve) => {
    const nodeOptions = options.nodeOptions.split(" ").filter(Boolean);
    const child = spawn(process.execPath, [...nodeOptions, bundle, ...args], { env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
    const tail = { stdout: "", stderr: "" };
    for (const name of ["stdout", "stderr"] as const) child[name].on("data", (chunk: Buffer) => (tail[name] = (tail[name] + chunk.toString()).slice(-(1 << 20))));
    let timedOut = false;
    const timer = setTimeout(() => ((timedOut = true), child.kill()), options.timeoutS * 1000);
    child.on("close", (code) => {
      clearTimeout(timer);
      const last = tail.stdout.trim().split("\n").at(-1) ?? "";
      const result = last.startsWith("{") ? (JSON.parse(last) as T) : undefined;
      if (result && "wallMs" in result) return resolve(result);
      // A crash's own line (Node ends its report with its version), else the last one.
      const lines = tail.stderr.trim().split("\n");
      const crash = lines.find((line) => /^\w*Error\b/.test(line)) ?? lines.at(-1);
      resolve({ wallMs: NaN, maxRssKB: NaN, removed: 0, error: timedOut ? "timed out" : crash || `exit ${code}` } as T);
    });
  });
}
