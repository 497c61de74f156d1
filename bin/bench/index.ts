#!/usr/bin/env node
/**
 * `npm run bench`: Warden's enforce job on a simulated GitLab over loopback, one kind of row after
 * another (rows/: size, latency, durable, token bucket, stream), then the Markdown (markdown.ts) or JSON of what
 * they measured and whether each target was met.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { NODE_OPTIONS } from "../../lib/config/node-options.ts";
import { DEFAULT_LIST_CONCURRENCY, DEFAULT_REMOVAL_CONCURRENCY } from "../../lib/jobs/index.ts";
import { startBench } from "./context.ts";
import { benchMarkdown, type RunInfo } from "./markdown.ts";
import type { RowKind, Section } from "./row-kind.ts";
import { BUCKET, bucketRows } from "./rows/bucket.ts";
import { cliRows } from "./rows/cli.ts";
import { durableRows } from "./rows/durable.ts";
import { latencyRows, UNEVEN } from "./rows/latency.ts";
import { noticesRows } from "./rows/notices.ts";
import { sizeRows } from "./rows/size.ts";
import { streamRows } from "./rows/stream.ts";
import { watchRows } from "./rows/watch.ts";
import { stopOnSignals } from "./leftovers.ts";
import { BenchUsageError, checkMarkdownFile, parseSettings } from "./settings.ts";

/** The kinds of row, in the order they run and are written (each with its own row type). */
const ROW_KINDS: RowKind<any>[] = [sizeRows, cliRows, latencyRows, durableRows, bucketRows, watchRows, streamRows, noticesRows];

const HELP = `Usage: npm run bench -- [--sizes 1000,10000,100000] [--latency 20] [--concurrency N] [--time-scale 10] [--timeout-s 600] [--stream 20] [--json | --markdown FILE]

  --sizes       projects in scope per size row; leave 100000 out on a small machine (--sizes= leaves the rows out)
  --cli         projects in each row of the CLI as a user runs it (default 10000,100000; --cli= leaves them
                out): the packed dist/warden.js, \`node warden.js enforce --apply\`, no NODE_OPTIONS, its peak RSS
  --latency     simulated network latency per request, ms
  --concurrency Warden's --concurrency and --list-concurrency (default: the CLI's defaults, ${DEFAULT_LIST_CONCURRENCY} and ${DEFAULT_REMOVAL_CONCURRENCY})
  --time-scale  GitLab.com's budget windows are divided by this (a minute lasts 6 s at 10)
  --timeout-s   a run still going after this is stopped and reported as timed out (in the durable
                row, each execution of up to 300,000 projects: the row gets three times this)
  --node-options  V8/Node flags for both tools' processes (default: the Lambda functions' NODE_OPTIONS,
                ${NODE_OPTIONS}; --node-options= for Node's defaults); the --cli and --notices rows run the
                packed CLI with Node's defaults whatever this says
  --tools       warden,gitbeaker (leave the peer out for a quick run)
  --limits      none,gitlab.com: budgets shown on 429s only, as GitLab does by default (also
                gitlab.com-advertised: shown on every answer; gitlab.com-bare: 429s without any header)
  --latency-rows  200,1000: latencies (ms a request) of the uneven-tree rows, Warden with its defaults
                doing dry run + apply + dry run; --latency-rows= leaves them out
  --latency-projects  projects in those rows (default 10000: half in one subgroup, the rest over
                ${UNEVEN.groups} small groups down to ${UNEVEN.maxDepth} levels)
  --scaled-latency  what the simulator really waits in those rows (ms); wall times are scaled back up
  --durable     projects in the durable row (default 300000; --durable= leaves it out): the Enforce
                function as a Lambda durable execution through AWS's local durable runner, dry run +
                apply + dry run, each an execution, under GitLab.com's budgets (windows ÷ --time-scale),
                at --latency, with the function's defaults; each invocation works the slice the handler
                gives itself, on the budgets' clock: WARDEN_SLICE_SECONDS = (invocation − 5 min) ÷ --time-scale
  --durable-projects  opt-in (default 0: left out): a second durable row of this many projects beside the
                --durable one, as issue 32 asks at 1000000 (about half an hour at --time-scale 10, its timeout
                --timeout-s scaled by projects ÷ 300000; the simulator's world alone takes about 1 GB of heap
                and a minute to generate at that size)
  --durable-invocation-s  the Lambda invocation timeout the row stands for (default 900, Lambda's most:
                a 10-minute slice, 60 s at --time-scale 10)
  --bucket      projects in the token-bucket row (default 10000; --bucket= leaves it out): Warden's dry
                run at --latency behind a front proxy's token bucket (${BUCKET.ratePerSecond} requests a second, burst ${BUCKET.burst})
                that answers 429s without any header
  --watch       shares made in the watch row (default 10; --watch= leaves it out): a watch polling the
                audit events with --apply, each share timed from creation to removal, and its requests an hour
  --watch-interval-s  that watch's poll interval (default 5; the Watch function's is 60)
  --stream      stray shares in the stream row (default 20; --stream= leaves it out): each streamed to the
                Events function as GitLab sends its audit event, timed from the share's creation to its removal
  --notices     projects in the notices row (default 10000; --notices= leaves it out): the packed CLI, a plain
                dry run, then under onStray notify (grace 7d) a dry run, an applying run that opens the
                notices and a second one: the requests notices add, and that the second opens none
  --json        print the rows and targets as JSON instead of Markdown
  --markdown FILE  write the Markdown to FILE (docs/benchmarks.md) instead of printing it
`;

const settings = (() => {
  try {
    const parsed = parseSettings(process.argv.slice(2));
    if (!parsed.help) checkMarkdownFile(parsed.markdown);
    return parsed;
  } catch (err) {
    if (!(err instanceof BenchUsageError)) throw err;
    process.stderr.write(`npm run bench: ${err.message}. npm run bench -- --help lists the flags.\n`);
    process.exit(2);
  }
})();
if (settings.help) {
  process.stdout.write(HELP);
  process.exit(0);
}

stopOnSignals();
const git = (...args: string[]) => execFileSync("git", args, { encoding: "utf8" }).trim();
const started = { date: `${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`, commit: git("rev-parse", "--short", "HEAD"), clean: git("status", "--porcelain") === "", load: loadavg()[0]! };
const bench = await startBench(settings);
const sections: Section[] = [];
try {
  for (const kind of ROW_KINDS) sections.push({ kind, rows: await kind.measure(bench) });
} finally {
  bench.close();
}
const info: RunInfo = { ...started, machine: `${cpus().length} × ${cpus()[0]?.model.trim() ?? "unknown CPU"}, Node ${process.versions.node}`, load: [started.load, loadavg()[0]!] };

if (settings.json) {
  const rows = Object.fromEntries(sections.map(({ kind, rows }) => [kind.key, rows]));
  const targets = sections.flatMap(({ kind, rows }) => kind.targets(rows, settings));
  process.stdout.write(`${JSON.stringify({ ...info, args: settings.args, latencyMs: settings.latencyMs, concurrency: settings.concurrency, timeScale: settings.timeScale, ...rows, targets }, null, 2)}\n`);
} else if (settings.markdown) {
  const markdown = benchMarkdown(settings, info, sections);
  try {
    writeFileSync(settings.markdown, markdown);
    bench.progress(`Wrote ${settings.markdown}.`);
  } catch (err) {
    // Checked before the run, it can still fail now (a full disk, the directory removed): the results are printed, not lost.
    bench.progress(`Could not write ${settings.markdown} (${(err as Error).message}): the Markdown follows on stdout.`);
    process.stdout.write(markdown);
    process.exitCode = 1;
  }
} else {
  process.stdout.write(benchMarkdown(settings, info, sections));
}
