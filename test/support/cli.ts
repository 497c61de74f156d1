/**
 * Runs the real CLI as a child process (the same Node as the tests: Node 24): dist/warden.js as
 * `npm pack` ships it (and as npm's bin shim runs it: `node dist/warden.js`), built once per test run
 * (test/support/global-setup.ts).
 * The built CLI, not its sources: it is what users run (one bundle, its entry replacing itself under the
 * heap settings), and it starts in about half the time the sources take to load, in a suite that starts
 * it hundreds of times.
 */
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";
import { BUILT_CLI as WARDEN } from "../../bin/build-cli.ts";

export interface CliRun {
  code: number;
  /** The signal that killed the process, if one did (then `code` is 1). */
  signal?: NodeJS.Signals;
  stdout: string;
  stderr: string;
}

/** The CLI's environment: `env`, the PATH to find programs, and this run's compile cache (test/support/global-setup.ts), unless `env` names its own. */
const childEnv = (env: Record<string, string>) => ({ PATH: process.env["PATH"] ?? "", NODE_COMPILE_CACHE: inject("compileCache"), ...env });

export function warden(args: string[], env: Record<string, string>, cwd?: string): Promise<CliRun> {
  return runToEnd(process.execPath, [WARDEN, ...args], { env: childEnv(env), ...(cwd === undefined ? {} : { cwd }) });
}

/** Runs any program to its end (npm, an installed `warden`), with exactly the environment given. */
export function runToEnd(file: string, args: string[], options: { env: Record<string, string>; cwd?: string }): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(file, args, { ...options, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number(err.code ?? 1) : 0, ...(err?.signal ? { signal: err.signal } : {}), stdout, stderr });
    });
  });
}

/**
 * Runs the CLI to its end, or to `ms` (then killed, SIGKILL): undefined means it was still running then,
 * blocked where it must not be (a named pipe opened for ever).
 */
export async function wardenWithin(args: string[], env: Record<string, string>, ms: number): Promise<CliRun | undefined> {
  const run = startWarden(args, env);
  let timer: NodeJS.Timeout | undefined;
  const result = await Promise.race([run.done, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]);
  clearTimeout(timer);
  if (result === undefined) {
    run.kill("SIGKILL");
    await run.done;
  }
  return result;
}

/** A run to interact with while it goes: watch its stderr, send it signals. */
export interface LiveRun {
  /** Resolves once stderr so far matches `pattern`. */
  stderrMatches(pattern: RegExp): Promise<void>;
  kill(signal: NodeJS.Signals): void;
  done: Promise<CliRun>;
}

export function startWarden(args: string[], env: Record<string, string>): LiveRun {
  const child = spawn(process.execPath, [WARDEN, ...args], { env: childEnv(env) });
  let stdout = "";
  let stderr = "";
  const waiting: { pattern: RegExp; resolve: () => void }[] = [];
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk;
    for (const w of [...waiting]) {
      if (!w.pattern.test(stderr)) continue;
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve();
    }
  });
  const done = new Promise<CliRun>((resolve) =>
    child.on("close", (code, signal) => resolve({ code: code ?? 1, ...(signal ? { signal } : {}), stdout, stderr })),
  );
  return {
    stderrMatches: (pattern) => (pattern.test(stderr) ? Promise.resolve() : new Promise((resolve) => waiting.push({ pattern, resolve }))),
    kill: (signal) => void child.kill(signal),
    done,
  };
}

export function policyFile(text: string, name = "warden.yaml"): string {
  const path = join(mkdtempSync(join(tmpdir(), "warden-")), name);
  writeFileSync(path, text);
  return path;
}
