#!/usr/bin/env node
import "./cli/node-check.ts"; // first: before any library loads
import "./cli/heap-settings.ts"; // then: may replace the process with one under the heap settings
import type * as Cli from "./cli/main.ts";

/** Built, the CLI is a file of its own beside this one (bin/build-cli.ts writes its name in). */
declare const __WARDEN_CLI_FILE__: string | undefined;
const cliModule = typeof __WARDEN_CLI_FILE__ === "string" ? new URL(__WARDEN_CLI_FILE__, import.meta.url).href : "./cli/main.ts";
// Loaded only now, so a process that replaces itself has not parsed the CLI for nothing.
const { main } = (await import(cliModule)) as typeof Cli;

// SIGTERM (a CI job cancelled, `kill`, a container stopping) and SIGHUP (the terminal closed) are
// treated as Ctrl-C: the job stops starting work, cancels what is in flight, writes every audit line
// and prints its report. A second signal exits at once.
const interrupt = new AbortController();
for (const name of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(name, () => {
    if (!interrupt.signal.aborted) return interrupt.abort(new Error(`interrupted by ${name}`));
    // Die of the signal itself (status 128 + its number): process.exit would wait for a blocked read.
    process.removeAllListeners(name);
    process.kill(process.pid, name);
    // As a container's PID 1 (docker run without --init) the kernel ignores a signal a process sends
    // itself: still here a moment later, end at once all the same (SIGABRT's status, 134).
    setTimeout(() => process.abort(), 200).unref();
  });
}
// A reader gone away (`warden … | head`, a closed terminal) must not kill a run mid-apply: its
// output is lost, but the run finishes and its exit code still says how. Any other failure to write
// the output (a full disk under `> report.json`) loses what a CI job keeps: said, and the run exits 1.
let lost: NodeJS.ErrnoException | undefined;
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code !== "EPIPE" && err.code !== "EIO") lost ??= err;
});
// stderr gone is no reason to die either, but it may hold the only copy of an applying run's audit lines:
// auditTrail (bin/cli/io.ts) then starts no new change.
const stderrLost = new AbortController();
process.stderr.on("error", (err) => stderrLost.abort(err));

const code = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, signal: interrupt.signal, stderrLost: stderrLost.signal });
// Once what was written has gone out, or failed to.
const flushed = (stream: NodeJS.WriteStream) => new Promise<void>((resolve) => stream.write("", () => resolve()));
await flushed(process.stdout);
if (lost) process.stderr.write(`warden: the output could not be written (${lost.code ?? lost.message}): it is lost; write it elsewhere, or free the space, and run again\n`);
await flushed(process.stderr);
// The run is over, whatever still holds the event loop: a request undici could not abort (its CONNECT through
// a proxy that never answers takes no signal) would otherwise keep the process for minutes after the report.
process.exit(lost ? 1 : code);
