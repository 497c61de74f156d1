/**
 * The CLI as npm installs it runs dist/warden.js with a bare `node`: no NODE_OPTIONS, so with Node's
 * default heap its peak RSS was 308 MB at 100,000 projects (the Lambda functions', under
 * lib/config/node-options.ts, about 140). bin/cli/heap-settings.ts has the process replace itself
 * with one under those settings. What a user must be able to rely on: it is the same process (pid,
 * stdio, environment, exit code: a CI job's kill or a pipe still reaches it), its own Node flags and
 * arguments are kept, and a heap flag the user chose is never overridden.
 */
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildCli, BUILT_CLI } from "../../bin/build-cli.ts";
import { NODE_OPTIONS } from "../../lib/config/node-options.ts";

const VERSION = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
const temp = mkdtempSync(join(tmpdir(), "warden-heap-"));
const cli = buildCli(join(temp, "dist", "warden.js"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

interface Image {
  pid: number;
  execArgv: string[];
  heapLimitMB: number;
}

/**
 * Runs `node [nodeFlags] --import <probe> warden.js args`: the probe, loaded by every image the
 * process becomes, appends what that image runs with to a file.
 */
function run(args: string[], options: { nodeFlags?: string[]; nodeOptions?: string } = {}) {
  const log = join(mkdtempSync(join(temp, "run-")), "images");
  writeFileSync(log, "");
  const probe = `data:text/javascript,${encodeURIComponent(
    `import { appendFileSync } from "node:fs"; import { getHeapStatistics } from "node:v8"; appendFileSync(${JSON.stringify(log)}, JSON.stringify({ pid: process.pid, execArgv: process.execArgv, heapLimitMB: getHeapStatistics().heap_size_limit / 1048576 }) + "\\n");`,
  )}`;
  const env = { PATH: process.env["PATH"] ?? "", ...(options.nodeOptions ? { NODE_OPTIONS: options.nodeOptions } : {}) };
  return new Promise<{ code: number; stdout: string; stderr: string; pid: number; images: Image[] }>((resolve) => {
    const child = execFile(process.execPath, [...(options.nodeFlags ?? []), "--import", probe, cli, ...args], { env }, (err, stdout, stderr) => {
      const images = readFileSync(log, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as Image);
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr, pid: child.pid!, images });
    });
  });
}

/**
 * The bytes execve(2) counts against its limit for `file` run with `argv` (argv[0] included) and `env` (Linux's
 * fs/exec.c): the file's name and each argument and variable with its NUL, and a pointer (8 bytes) for each argument and variable.
 */
function execBytes(file: string, argv: string[], env: Record<string, string>): number {
  const strings = [file, ...argv].concat(Object.entries(env).map(([key, value]) => `${key}=${value}`));
  return strings.reduce((sum, text) => sum + Buffer.byteLength(text) + 1, (strings.length - 1) * 8);
}

/** execve(2)'s limit for this process and its children: a quarter of the stack's soft limit, at most 6 MB, at least ARG_MAX (128 KiB). */
function execLimit(): number {
  const soft = /^Max stack size\s+(\S+)/m.exec(readFileSync("/proc/self/limits", "utf8"))?.[1];
  const quarter = soft === undefined || soft === "unlimited" ? Infinity : Math.floor(Number(soft) / 4);
  return Math.max(Math.min(6 * 1024 * 1024, quarter), 128 * 1024);
}

/** PATH and padding (variables of at most 100 KB: Linux caps one string at 128 KiB) making `node args`' exec (spawn's) weigh `bytes`. */
function paddedEnv(bytes: number, args: string[]): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env["PATH"] ?? "" };
  for (let i = 0; ; i++) {
    const left = bytes - execBytes(process.execPath, [process.execPath, ...args], env) - Buffer.byteLength(`CI_PAD_${i}=`) - 1 - 8;
    env[`CI_PAD_${i}`] = "x".repeat(Math.min(left, 100_000));
    if (left <= 100_000) return env;
  }
}

/** Runs `node args` with exactly `env`; `spawnError` is the error spawn itself gave (E2BIG), if any. */
function runWith(args: string[], env: Record<string, string>): Promise<{ code: number; signal?: string; stdout: string; stderr: string; spawnError?: string }> {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(process.execPath, args, { env });
    } catch (err) {
      // Node throws E2BIG from spawn itself, before any child exists.
      return resolve({ code: 1, stdout: "", stderr: "", spawnError: (err as NodeJS.ErrnoException).code ?? (err as Error).message });
    }
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c));
    child.stderr.on("data", (c: Buffer) => (stderr += c));
    child.on("error", (err: NodeJS.ErrnoException) => resolve({ code: 1, stdout, stderr, spawnError: err.code ?? err.message }));
    child.on("close", (code, signal) => resolve({ code: code ?? 1, ...(signal ? { signal } : {}), stdout, stderr }));
  });
}

describe.skipIf(process.platform === "win32")("the CLI's heap settings (bin/cli/heap-settings.ts)", () => {
  // Node 22.15 to 22.21.0 give the new image an empty environment when execve is not given one
  // (nodejs/node#60029): on Node 22.19, the oldest Warden runs on, every setting was lost. The tests
  // run on Node 24, which passes process.env either way, so the call itself is what can be checked.
  it("passes the environment to process.execve itself", async () => {
    const record = join(mkdtempSync(join(temp, "execve-")), "record.mjs");
    writeFileSync(record, `import { writeSync } from "node:fs";
process.execve = (...args) => { writeSync(2, "EXECVE " + JSON.stringify({ given: args.length, kept: args[2]?.WARDEN_MARK }) + "\\n"); process.exit(0); };
`);
    const child = await new Promise<string>((resolve) => execFile(process.execPath, ["--import", record, cli, "--version"], { env: { PATH: process.env["PATH"] ?? "", WARDEN_MARK: "kept" } }, (_err, _out, stderr) => resolve(stderr)));
    expect(JSON.parse(/EXECVE (.*)/.exec(child)?.[1] ?? "null")).toEqual({ given: 3, kept: "kept" });
  });

  it("run as npm's shim runs it (no NODE_OPTIONS), it becomes node under the functions' heap settings, in the same process, keeping its flags and arguments", async () => {
    const result = await run(["--help"], { nodeFlags: ["--no-warnings"] });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Usage: warden <command>/);
    expect(result.stderr).toBe("");
    // Two images of one process: no second process to outlive a kill or hold the terminal.
    expect(result.images.map((i) => i.pid)).toEqual([result.pid, result.pid]);
    expect(result.images[0]!.execArgv).not.toEqual(expect.arrayContaining(NODE_OPTIONS.split(" ")));
    expect(result.images[1]!.execArgv).toEqual([...NODE_OPTIONS.split(" "), "--no-warnings", "--import", expect.any(String)]);
    expect(result.images[1]!.heapLimitMB).toBeLessThan(300);
  });

  it("prints the same as a run under the settings from the start, and exits with the same code", async () => {
    const replaced = await run(["enforce", "--no-such-flag"]);
    const direct = await run(["enforce", "--no-such-flag"], { nodeFlags: NODE_OPTIONS.split(" ") });
    expect(direct.images).toHaveLength(1);
    expect(replaced.code).not.toBe(0);
    expect({ code: replaced.code, stdout: replaced.stdout, stderr: replaced.stderr }).toEqual({ code: direct.code, stdout: direct.stdout, stderr: direct.stderr });
  });

  it("never overrides a heap size the user chose, in NODE_OPTIONS or on node's command line (either spelling)", async () => {
    const fromEnv = await run(["--help"], { nodeOptions: "--max-old-space-size=512" });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    expect(fromEnv.images).toHaveLength(1);
    expect(fromEnv.images[0]!.heapLimitMB).toBeGreaterThan(500);
    const fromFlag = await run(["--help"], { nodeFlags: ["--max_semi_space_size=8"] });
    expect(fromFlag.code, fromFlag.stderr).toBe(0);
    expect(fromFlag.images).toHaveLength(1);
    expect(fromFlag.images[0]!.execArgv).toEqual(["--max_semi_space_size=8", "--import", expect.any(String)]);
  });

  // Under Node's permission model execve is refused: the attempt printed execve's ExperimentalWarning on every run.
  it("under Node's permission model (node --permission) runs with Node's defaults and says nothing of process.execve", async () => {
    const result = await run(["--help"], { nodeFlags: ["--permission", "--allow-fs-read=*", "--allow-fs-write=*"] });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.images).toHaveLength(1);
  });

  // A second image would start a second debugger (a second pause for --inspect-brk) or profile only the first's start.
  it("under a profiler (--cpu-prof) is not replaced", async () => {
    const dir = mkdtempSync(join(temp, "prof-"));
    const result = await run(["--help"], { nodeFlags: ["--cpu-prof", `--cpu-prof-dir=${dir}`] });
    expect(result.code, result.stderr).toBe(0);
    expect(result.images).toHaveLength(1);
  });

  // A tracer given through NODE_OPTIONS (OpenTelemetry, dd-trace) was loaded by both images: its side effects twice.
  it("with a module preloaded through NODE_OPTIONS is not replaced: the preload runs once", async () => {
    const dir = mkdtempSync(join(temp, "preload-"));
    const log = join(dir, "loads");
    const preload = join(dir, "preload.cjs");
    writeFileSync(log, "");
    writeFileSync(preload, `require("node:fs").appendFileSync(${JSON.stringify(log)}, "loaded\\n");\n`);
    const result = await run(["--help"], { nodeOptions: `--require ${preload}` });
    expect(result.code, result.stderr).toBe(0);
    expect(result.images).toHaveLength(1);
    expect(readFileSync(log, "utf8")).toBe("loaded\n");
  });

  /**
   * Node 22 and 24 do not throw when execve(2) fails: they print "process.execve failed" with a native stack
   * trace and abort (SIGABRT, exit 134), so the try/catch's fallback never ran (the package13 review; only
   * nodejs/node#62878 makes it throw). The replacement adds two arguments: an environment that fits the
   * user's own exec can overflow the kernel's limit for the second (E2BIG), a CI job with a large one.
   */
  it.runIf(process.platform === "linux")("an environment that fits the user's exec but not the re-exec's two more arguments: the CLI still runs (Node's defaults), no abort, no native stack trace", async () => {
    // The CLI as the suite runs it (test/support/cli.ts), beside the package.json --version reads.
    const args = [BUILT_CLI, "--version"];
    // At the kernel's edge: one byte more and the user's own exec is refused, let alone the replacement.
    expect((await runWith(args, paddedEnv(execLimit() + 1, args))).spawnError).toBe("E2BIG");
    const result = await runWith(args, paddedEnv(execLimit(), args));
    expect(result.spawnError).toBeUndefined();
    expect(result.stderr).not.toMatch(/Native stack trace|process\.execve failed/);
    expect(result.signal).toBeUndefined();
    expect({ code: result.code, stdout: result.stdout }, result.stderr).toEqual({ code: 0, stdout: `warden ${VERSION}\n` });
  });

  // A node binary removed or replaced since the start (an upgrade mid-run) failed execve with ENOENT: the same abort.
  it("with no node left at process.execPath runs with Node's defaults, no abort", async () => {
    const gone = `data:text/javascript,${encodeURIComponent(`process.execPath = ${JSON.stringify(join(temp, "gone", "node"))};`)}`;
    const result = await run(["--help"], { nodeFlags: ["--import", gone] });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.images).toHaveLength(1);
  });
});
