/**
 * Imported by bin/warden.ts before the CLI loads: the CLI runs with the V8 heap settings the Lambda
 * functions get from NODE_OPTIONS (lib/config/node-options.ts), which npm's bin shim cannot pass (a
 * `#!/usr/bin/env -S node …` shebang fails where env lacks -S, as busybox's does). With Node's
 * defaults the young generation grows to 64 MB a semi-space and old space is collected lazily: peak
 * RSS was 308 MB at 100,000 projects against 137 MB with these settings (`npm run bench -- --cli`).
 * V8 sizes its heap only as the process starts (v8.setFlagsFromString afterwards left peak RSS near
 * 200 MB), so the process replaces itself with `node <settings> <its own arguments>`: execve keeps
 * its pid, its stdio and its environment, so signals, pipes and exit codes are the user's as before,
 * and no second process runs. Where execve does not exist (Windows) the CLI runs with Node's defaults,
 * as it does where execve would fail for a reason seen beforehand (EXEC_BYTES; a node binary removed
 * since the start): Node 22 and 24 do not throw when execve(2) fails but abort, with a native stack
 * trace (nodejs/node#62878 makes it throw). A refusal no one can see coming (a seccomp or Landlock
 * sandbox's EPERM) aborts the run on those versions: a heap flag in NODE_OPTIONS avoids the replacement.
 * A user's own heap flags (on the command line or in NODE_OPTIONS) are left as they are. execve's
 * ExperimentalWarning is printed on the next tick, which a replaced image never reaches. Not replaced
 * either under a debugger or a profiler (RUNS_AT_START), with a preload in NODE_OPTIONS (PRELOAD), nor
 * under Node's permission model, which refuses execve (and would print that warning).
 */
import { accessSync, constants } from "node:fs";
import { NODE_OPTIONS } from "../../lib/config/node-options.ts";

/** Any of V8's heap-size flags, which a user may have chosen (V8 takes `_` for `-`). */
const HEAP_FLAG = /--max[-_](?:semi[-_]space|old[-_]space|heap)[-_]size/;
/**
 * Node's options that start a debugger or a profiler with the process: a second image would start
 * another (a second pause for --inspect-brk, a profile of the first image's start alone).
 */
const RUNS_AT_START = /(?:^|\s)(?:--inspect(?:-brk|-wait)?|--cpu-prof|--heap-prof|--prof)(?=[\s=]|$)/;
/**
 * A module preloaded through NODE_OPTIONS, the way a tracer (OpenTelemetry, dd-trace) is given to a
 * command: a second image would load it again, its side effects twice. (One on node's own command line
 * runs in both images: whoever runs `node --import … warden.js` chose that.)
 */
const PRELOAD = /(?:^|\s)(?:-r|--require|--import|--loader|--experimental-loader)(?=[\s=]|$)/;

/**
 * What execve(2) takes on every Linux, whatever the stack limit (fs/exec.c): a string of 32 pages at most,
 * its NUL counted (MAX_ARG_STRLEN: 128 KiB with pages of 4 KiB, the smallest), and all of them (the file's
 * name, the arguments, the environment's KEY=VALUE), with a pointer each for the arguments and the
 * environment, within ARG_MAX (128 KiB), which a stack limit over 512 KiB raises to a quarter of it (at
 * most 6 MB). The user's own exec may have used more: the replacement adds its settings. macOS and the BSDs take more.
 */
const EXEC_BYTES = 128 * 1024;
/** A 64-bit pointer; a 32-bit system's take less. */
const POINTER_BYTES = 8;

/** Whether execve(file, argv, env) is sure to get past the checks that can be made beforehand. */
function canExec(file: string, argv: string[], env: NodeJS.ProcessEnv): boolean {
  const environment = Object.entries(env).map(([key, value]) => `${key}=${value ?? ""}`);
  const sizes = [file, ...argv, ...environment].map((text) => Buffer.byteLength(text) + 1);
  const total = sizes.reduce((sum, size) => sum + size, (argv.length + environment.length) * POINTER_BYTES);
  if (sizes.some((size) => size > EXEC_BYTES) || total > EXEC_BYTES) return false;
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const options = [...process.execArgv, process.env["NODE_OPTIONS"] ?? ""].join(" ");
const permissions = (process as { permission?: unknown }).permission !== undefined;
const replaceable = !permissions && !HEAP_FLAG.test(options) && !RUNS_AT_START.test(options) && !PRELOAD.test(process.env["NODE_OPTIONS"] ?? "");
const argv = [process.execPath, ...NODE_OPTIONS.split(" "), ...process.execArgv, ...process.argv.slice(1)];
if (process.platform !== "win32" && typeof process.execve === "function" && replaceable && canExec(process.execPath, argv, process.env)) {
  try {
    // The environment given explicitly: Node 22.15 to 22.21.0 (22.19, the oldest Warden runs on, among them)
    // replace the image with an empty one when execve is given none (nodejs/node#60029), and the CLI
    // would lose GITLAB_URL, its token, WARDEN_POLICY, PATH and the CA settings.
    process.execve(process.execPath, argv, process.env);
  } catch {
    // Not replaced, where Node throws (#62878): the run goes on with Node's defaults.
  }
}
