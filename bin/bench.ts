#!/usr/bin/env node
/**
 * `npm run bench`: Warden's enforce job (plan + apply) and a @gitbeaker/rest script doing the same job,
 * side by side on the same simulated GitLab over loopback, at several sizes, without rate limits and
 * under GitLab.com's budgets; then, at real-world latencies (200 ms and 1 s a request), on an uneven
 * tree, Warden with its defaults doing dry run + apply + dry run beside the peer doing the same.
 * Those rows are time-scaled: the simulator answers in --scaled-latency ms, and every wall time is
 * multiplied by (row latency ÷ scaled latency) — fair while CPU time is small beside latency, and
 * conservative otherwise (CPU time is multiplied too). Last, the durable row: the Enforce function as a
 * Lambda durable execution (AWS's local durable runner), dry run + apply + dry run under GitLab.com's
 * budgets at a size one invocation cannot finish, each invocation working the slice a 15-minute one
 * works, on the budgets' clock. Then the token-bucket row: a dry run behind a front proxy's bucket that
 * answers bare 429s. Prints Markdown (or JSON) and checks the targets.
 */
import { spawn } from "node:child_process";
import { writeFileSync, mkdtempSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";
import { NODE_OPTIONS } from "../lib/config/node-options.ts";
import type { RateLimitRule } from "../sim/gitlab/index.ts";
import { startAwsStandIns } from "./bench/aws-stand-ins.ts";
import { BUCKET, bucketMarkdown, bucketRow, bucketTargets, type BucketRow } from "./bench/bucket-row.ts";
import { gitlabComBudgets } from "./bench/budgets.ts";
import type { DurableRunResult, Execution } from "./bench/durable-run.ts";
import { sliceSeconds } from "./bench/durable-slices.ts";
import type { RunResult } from "./bench/run-result.ts";
import { DEFAULT_LIST_CONCURRENCY, DEFAULT_REMOVAL_CONCURRENCY } from "../lib/jobs/enforce/summary.ts";
import type { TreeShape } from "../sim/gitlab/generate-tree.ts";
import { floorMs, lowerBound, type Work } from "./bench/schedule.ts";
import { startSimHost } from "./bench/sim-host.ts";

/** The durable row's executions, in order. */
const DURABLE_RUNS = ["dry", "apply", "dry"] as const;
/** The uneven tree of the latency rows: half the projects in one subgroup, the rest over hundreds of small groups. */
const UNEVEN: TreeShape = { groups: 300, maxDepth: 5, heavy: 0.5 };

const { values: flags } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,10000,100000" },
    latency: { type: "string", default: "20" },
    concurrency: { type: "string", default: "" },
    "time-scale": { type: "string", default: "10" },
    "timeout-s": { type: "string", default: "600" },
    "node-options": { type: "string", default: NODE_OPTIONS },
    tools: { type: "string", default: "warden,gitbeaker" },
    limits: { type: "string", default: "none,gitlab.com" },
    "latency-rows": { type: "string", default: "200,1000" },
    "latency-projects": { type: "string", default: "10000" },
    "scaled-latency": { type: "string", default: "50" },
    durable: { type: "string", default: "300000" },
    "durable-invocation-s": { type: "string", default: "900" },
    bucket: { type: "string", default: "10000" },
    json: { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});
if (flags.help) {
  process.stdout.write(`Usage: npm run bench -- [--sizes 1000,10000,100000] [--latency 20] [--concurrency N] [--time-scale 10] [--timeout-s 600] [--json]

  --sizes       projects in scope per row; leave 100000 out on a small machine (the output says so)
  --latency     simulated network latency per request, ms
  --concurrency Warden's --concurrency and --list-concurrency (default: the CLI's defaults, ${DEFAULT_LIST_CONCURRENCY} and ${DEFAULT_REMOVAL_CONCURRENCY})
  --time-scale  GitLab.com's budget windows are divided by this (a minute lasts 6 s at 10)
  --timeout-s   a run still going after this is stopped and reported as timed out (in the durable
                row, each execution: the row gets three times this)
  --node-options  V8/Node flags for both tools' processes (default: the Lambda functions' NODE_OPTIONS,
                ${NODE_OPTIONS}; --node-options= for Node's defaults)
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
  --durable-invocation-s  the Lambda invocation timeout the row stands for (default 900, Lambda's most:
                a 10-minute slice, 60 s at --time-scale 10)
  --bucket      projects in the token-bucket row (default 10000; --bucket= leaves it out): Warden's dry
                run at --latency behind a front proxy's token bucket (${BUCKET.ratePerSecond} requests a second, burst ${BUCKET.burst})
                that answers 429s without any header
`);
  process.exit(0);
}

const ALL_SIZES = [1_000, 10_000, 100_000];
const sizes = flags.sizes.split(",").filter(Boolean).map(Number);
const latencyMs = Number(flags.latency);
/** Warden's examination and removal concurrency: the flag for both, else the CLI's defaults. */
const concurrency = flags.concurrency ? { list: Number(flags.concurrency), removal: Number(flags.concurrency) } : { list: DEFAULT_LIST_CONCURRENCY, removal: DEFAULT_REMOVAL_CONCURRENCY };
const timeScale = Number(flags["time-scale"]);
const BUDGETS: Record<Row["limits"], RateLimitRule[]> = {
  none: [],
  "gitlab.com": gitlabComBudgets(timeScale, "on-429"),
  "gitlab.com-advertised": gitlabComBudgets(timeScale, "advertised"),
  "gitlab.com-bare": gitlabComBudgets(timeScale, "none"),
};

type Tool = "warden" | "gitbeaker";
interface Row extends Partial<RunResult> {
  projects: number;
  limits: "none" | "gitlab.com" | "gitlab.com-advertised" | "gitlab.com-bare";
  tool: Tool;
  requests: number;
  lowerBound: number;
  rateLimited: number;
  converged: boolean;
  /** Warden rows: the least wall time its schedule allows at this latency and concurrency (and budgets). */
  floorMs?: number;
}

interface LatencyRow extends Partial<RunResult> {
  latencyMs: number;
  /** Row time ÷ real time. */
  scale: number;
  projects: number;
  groups: number;
  strays: number;
  tool: Tool;
  requests: number;
  /** Dry run + apply + dry run, as schedule.ts counts them (the re-reads Warden made included). */
  lowerBound: number;
  /** GET /projects/:id: plan-age re-reads (none while a plan is younger than 60 s). */
  rechecks: number;
  /** Warden's defaults' ideal schedule for the three runs, in the row's time. */
  idealMs: number;
  converged: boolean;
}

/** The durable row: dry run + apply + dry run, each a durable execution of the Enforce function. */
interface DurableRow extends Partial<RunResult> {
  projects: number;
  groups: number;
  strays: number;
  limits: "gitlab.com";
  /** The Lambda invocation timeout the row stands for (s), and the slice each invocation worked (WARDEN_SLICE_SECONDS). */
  invocationS: number;
  sliceS: number;
  /** Invocations of the three executions together; `executions` has each one's. */
  invocations: number;
  executions: Execution[];
  /** Wall time spent between invocations (the runner's real one-second waits): counted in wallMs. */
  pausedMs: number;
  requests: number;
  /** The three runs' lower bounds together (the re-reads Warden made included). */
  lowerBound: number;
  rateLimited: number;
  /** GET /projects/:id sent: plan-age re-reads (a plan older than 60 s), 429'd ones sent again included. */
  rechecks: number;
  /** Projects with a stray share: the lower bound and the floor count a re-read for each (at most `rechecks`). */
  subjects: number;
  /** The three runs' floors together, under the budgets, with the function's default concurrency. */
  floorMs: number;
  converged: boolean;
}

const work = mkdtempSync(join(tmpdir(), "warden-bench-"));
const policy = join(work, "policy.yaml");
writeFileSync(policy, `version: 1
gitlab:
  scope: { groups: [acme] }
  shares:
    allow:
      - group: "acme/**"
      - { group: "partners/contractor-x", projects: ["acme/mobile/**"], maxAccess: developer }
    exempt:
      - project: "acme/legacy/**"
  guard: { maxRemovals: 1000000 }
`);
const runners = await bundleRunners();

const rows: Row[] = [];
for (const projects of sizes) {
  for (const limits of flags.limits.split(",") as Row["limits"][]) {
    for (const tool of flags.tools.split(",") as Tool[]) {
      progress(`${projects} projects, limits ${limits}: ${tool}…`);
      rows.push(await measure(projects, limits, tool));
    }
  }
}

const latencyRows: LatencyRow[] = [];
for (const rowLatency of flags["latency-rows"].split(",").filter(Boolean).map(Number)) {
  for (const tool of flags.tools.split(",") as Tool[]) {
    progress(`uneven tree, ${rowLatency} ms a request: ${tool} (dry run + apply + dry run)…`);
    latencyRows.push(await measureAtLatency(rowLatency, tool));
  }
}

const durableRows: DurableRow[] = [];
if (flags.durable) {
  progress(`${flags.durable} projects, limits gitlab.com: Warden as a durable execution (dry run + apply + dry run)…`);
  durableRows.push(await measureDurable(Number(flags.durable)));
}
const bucketRows: BucketRow[] = [];
if (flags.bucket) {
  progress(`${flags.bucket} projects behind a token bucket (${BUCKET.ratePerSecond}/s, burst ${BUCKET.burst}, bare 429s): Warden dry run…`);
  bucketRows.push(await measureBucket(Number(flags.bucket)));
}
const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? "unknown CPU"}, Node ${process.versions.node}, ${new Date().toISOString().slice(0, 10)}`;
const skipped = ALL_SIZES.filter((s) => !sizes.includes(s));
if (flags.json) {
  process.stdout.write(`${JSON.stringify({ machine, latencyMs, concurrency, timeScale, skipped, rows, latencyRows, durableRows, bucketRows, targets: targets(rows, latencyRows, durableRows, bucketRows) }, null, 2)}\n`);
} else {
  if (!rows.length) process.stdout.write(`${machine}.\n`);
  else process.stdout.write(`${markdown(rows)}\n\n${machine}; latency ${latencyMs} ms; Warden concurrency ${flags.concurrency || `defaults (${concurrency.list} examination requests, ${concurrency.removal} removals)`}; budget windows ÷ ${timeScale}${flags["node-options"] ? `; node ${flags["node-options"]}` : ""}.\n`);
  if (skipped.length) process.stdout.write(`Skipped by --sizes: ${skipped.join(", ")} projects.\n`);
  if (latencyRows.length) {
    process.stdout.write(`\n${latencyMarkdown(latencyRows)}\n\nUneven tree (${UNEVEN.heavy! * 100}% of the projects in one subgroup, the rest over ${UNEVEN.groups} groups down to ${UNEVEN.maxDepth} levels), dry run + apply + dry run; Warden with ${flags.concurrency ? `--concurrency ${flags.concurrency}` : `its defaults (${concurrency.list} examination requests, ${concurrency.removal} removals in flight)`}; the simulator answers in ${flags["scaled-latency"]} ms and wall times are scaled to the row's latency.\n`);
  }
  if (durableRows.length) {
    process.stdout.write(
      `\n${durableMarkdown(durableRows)}\n\nThe Enforce function as Lambda durable executions (AWS's local durable runner): dry run, apply, dry run, with its defaults (${DEFAULT_LIST_CONCURRENCY} examination requests, ${DEFAULT_REMOVAL_CONCURRENCY} removals in flight), ${latencyMs} ms a request, GitLab.com's budgets with windows ÷ ${timeScale}; each invocation worked ${durableRows[0]!.sliceS} s, the ${(durableRows[0]!.sliceS * timeScale) / 60} minutes a ${durableRows[0]!.invocationS / 60}-minute invocation works, on the budgets' clock. Wall counts the runner's real one-second waits between invocations (paused).\n`,
    );
  }
  if (bucketRows.length) {
    process.stdout.write(`\n${bucketMarkdown(bucketRows, s)}\n\nWarden's dry run with its defaults, ${latencyMs} ms a request, behind a token bucket over every request that answers 429 with no header; what the bucket allows is the requests it let through ÷ its rate.\n`);
  }
  process.stdout.write(`\nTargets:\n${targets(rows, latencyRows, durableRows, bucketRows).map((t) => `- ${t.met ? "met" : "NOT met"}: ${t.target} (${t.measured})`).join("\n")}\n`);
}

async function measure(projects: number, limits: Row["limits"], tool: Tool): Promise<Row> {
  const sim = await startSimHost({ projects, latencyMs, rateLimits: BUDGETS[limits] });
  try {
    const args = [sim.url, sim.token, policy, "apply", ...(tool === "warden" && flags.concurrency ? [flags.concurrency] : [])];
    const result = await runProcess(runners[tool], args);
    const counters = await sim.counters();
    const work: Work = { projects: sim.inScope, groups: sim.groups, strays: sim.strays };
    const bound = lowerBound(work);
    const row: Row = {
      projects,
      limits,
      tool,
      ...result,
      requests: counters.requests,
      lowerBound: bound.requests,
      rateLimited: counters.status["429"] ?? 0,
      converged: (await sim.remainingStrays()) === 0,
    };
    if (tool === "warden") row.floorMs = floorMs(work, concurrency.list, latencyMs, BUDGETS[limits], true, concurrency.removal);
    return row;
  } finally {
    sim.stop();
  }
}

/**
 * One uneven-tree row: dry run + apply + dry run at `rowLatencyMs` a request, time-scaled (the file's
 * header says how). Warden runs with its defaults. Wall times and the ideal are in the row's time.
 */
async function measureAtLatency(rowLatencyMs: number, tool: Tool): Promise<LatencyRow> {
  const realLatencyMs = Math.min(rowLatencyMs, Number(flags["scaled-latency"]));
  const scale = rowLatencyMs / realLatencyMs;
  const projects = Number(flags["latency-projects"]);
  const sim = await startSimHost({ projects, latencyMs: realLatencyMs, rateLimits: [], tree: UNEVEN });
  try {
    const result = await runProcess(runners[tool], [sim.url, sim.token, policy, "dry,apply,dry", ...(tool === "warden" && flags.concurrency ? [flags.concurrency] : [])]);
    const counters = await sim.counters();
    const rechecks = counters.byRoute["GET /projects/:id"] ?? 0;
    const work: Work = { projects: sim.inScope, groups: sim.groups, strays: sim.strays, rechecks };
    const [dry, apply] = [false, true].map((a) => ({ bound: lowerBound(work, a).requests, floor: floorMs(work, concurrency.list, rowLatencyMs, [], a, concurrency.removal) }));
    return {
      latencyMs: rowLatencyMs,
      scale,
      projects: sim.inScope,
      groups: sim.groups,
      strays: sim.strays,
      tool,
      ...result,
      wallMs: result.wallMs * scale,
      requests: counters.requests,
      lowerBound: 2 * dry!.bound + apply!.bound,
      rechecks,
      idealMs: 2 * dry!.floor + apply!.floor,
      converged: (await sim.remainingStrays()) === 0,
    };
  } finally {
    sim.stop();
  }
}

/**
 * The durable row: dry run + apply + dry run, each a durable execution of the Enforce function, under
 * GitLab.com's budgets. The function gets the deployed environment (sst.config.ts) with the bench's
 * policy, pointed at loopback stand-ins for AWS, and the slice a real invocation would work, scaled
 * like the budgets' windows. Requests, the lower bound and the floor are the three runs' together.
 */
async function measureDurable(projects: number): Promise<DurableRow> {
  const rules = BUDGETS["gitlab.com"];
  const invocationS = Number(flags["durable-invocation-s"]);
  const sliceS = sliceSeconds(invocationS, timeScale);
  const sim = await startSimHost({ projects, latencyMs, rateLimits: rules });
  const aws = await startAwsStandIns(sim.token);
  try {
    const env = {
      ...aws.env,
      GITLAB_URL: sim.url,
      WARDEN_POLICY: policy,
      WARDEN_REPORT_ONLY: "false",
      WARDEN_STAGE: "bench",
      WARDEN_SLICE_SECONDS: String(sliceS),
      AWS_LAMBDA_FUNCTION_NAME: "warden-bench-EnforceFunction",
    };
    // The floor gives each run fresh budgets: so does the wait between runs, a window of the per-minute
    // budgets (the 10-minute one counts GET /projects, which the job does not send).
    // --timeout-s is for each execution.
    const result = await runProcess<DurableRunResult>(runners.durable, [DURABLE_RUNS.join(","), String(60_000 / timeScale)], env, Number(flags["timeout-s"]) * DURABLE_RUNS.length);
    const counters = await sim.counters();
    const executions = result.executions ?? [];
    const [first, apply, last] = [executions[0], executions.find((e) => e.run === "apply"), executions.at(-1)];
    const rechecks = counters.byRoute["GET /projects/:id"] ?? 0;
    // One re-read per subject is the most the plan needs: a 429'd re-read sent again is Warden's excess, as every 429 is.
    const work: Work = { projects: sim.inScope, groups: sim.groups, strays: sim.strays, rechecks: Math.min(rechecks, apply?.subjects ?? rechecks) };
    const runs = DURABLE_RUNS.map((run) => ({
      bound: lowerBound(work, run === "apply").requests,
      floor: floorMs(work, DEFAULT_LIST_CONCURRENCY, latencyMs, rules, run === "apply", DEFAULT_REMOVAL_CONCURRENCY),
    }));
    return {
      projects: sim.inScope,
      groups: sim.groups,
      strays: sim.strays,
      limits: "gitlab.com",
      invocationS,
      sliceS,
      ...result,
      invocations: executions.reduce((n, e) => n + e.invocations, 0),
      executions,
      pausedMs: executions.reduce((n, e) => n + e.pausedMs, 0),
      requests: counters.requests,
      lowerBound: runs.reduce((n, r) => n + r.bound, 0),
      rateLimited: counters.status["429"] ?? 0,
      rechecks,
      subjects: apply?.subjects ?? 0,
      floorMs: runs.reduce((n, r) => n + r.floor, 0),
      // The first dry run planned exactly the strays, the apply removed that many, none is left, and the last dry run plans nothing.
      converged:
        !result.error &&
        executions.length === DURABLE_RUNS.length &&
        first?.strays === sim.strays &&
        apply?.removed === sim.strays &&
        (await sim.remainingStrays()) === 0 &&
        last?.strays === 0,
    };
  } finally {
    await aws.close();
    sim.stop();
  }
}

/** The token-bucket row: one dry run, Warden with its defaults, behind the bucket (bench/bucket-row.ts). */
async function measureBucket(projects: number): Promise<BucketRow> {
  const sim = await startSimHost({ projects, latencyMs, rateLimits: [], tokenBucket: BUCKET });
  try {
    const result = await runProcess(runners.warden, [sim.url, sim.token, policy, "dry"]);
    const counters = await sim.counters();
    return bucketRow(sim.inScope, result, counters.requests, counters.status["429"] ?? 0);
  } finally {
    sim.stop();
  }
}

/**
 * Runs a bundled runner and reads its result, its last line on stdout. Only the ends of its output are
 * kept: the durable row's function writes its log lines there, as a Lambda does.
 */
function runProcess<T extends RunResult = RunResult>(bundle: string, args: string[], env: NodeJS.ProcessEnv = process.env, timeoutS = Number(flags["timeout-s"])): Promise<T> {
  return new Promise((resolve) => {
    const nodeOptions = flags["node-options"].split(" ").filter(Boolean);
    const child = spawn(process.execPath, [...nodeOptions, bundle, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    const tail = { stdout: "", stderr: "" };
    for (const name of ["stdout", "stderr"] as const) child[name].on("data", (chunk: Buffer) => (tail[name] = (tail[name] + chunk.toString()).slice(-(1 << 20))));
    let timedOut = false;
    const timer = setTimeout(() => ((timedOut = true), child.kill()), timeoutS * 1000);
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

/**
 * The runners are bundled as SST bundles a Lambda, so none pays for Node's TypeScript loader. The
 * durable one takes AWS's local durable runner along, which starts its checkpoint server on a worker
 * thread from checkpoint-server/ beside its own module: that is bundled beside it.
 */
async function bundleRunners(): Promise<Record<Tool | "durable", string>> {
  const entries: Record<Tool | "durable", string> = { warden: "bench/warden-run.ts", gitbeaker: "bench/gitbeaker-run.ts", durable: "bench/durable-run.ts" };
  const bundle = (entry: string, outfile: string) =>
    build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node24",
      logLevel: "error",
      // Under a name of its own: a bundled module may import createRequire itself.
      banner: { js: "import { createRequire as bannerCreateRequire } from 'node:module'; const require = bannerCreateRequire(import.meta.url);" },
    });
  const out = {} as Record<Tool | "durable", string>;
  for (const [runner, entry] of Object.entries(entries) as [Tool | "durable", string][]) {
    out[runner] = join(work, `${runner}.mjs`);
    await bundle(fileURLToPath(new URL(entry, import.meta.url)), out[runner]);
  }
  await bundle(fileURLToPath(new URL("./checkpoint-server/index.mjs", import.meta.resolve("@aws/durable-execution-sdk-js-testing"))), join(work, "checkpoint-server", "index.mjs"));
  return out;
}

function targets(all: Row[], latency: LatencyRow[], durable: DurableRow[], bucket: BucketRow[]) {
  const warden = all.filter((r) => r.tool === "warden");
  const find = (projects: number, limits: Row["limits"], tool: Tool) => all.find((r) => r.projects === projects && r.limits === limits && r.tool === tool);
  const worst = Math.max(...warden.map((r) => r.requests / r.lowerBound));
  const w10 = find(10_000, "none", "warden");
  const p10 = find(10_000, "none", "gitbeaker");
  const budgeted = warden.filter((r) => r.limits !== "none");
  // The highest peak among Warden's rows of a size, whichever limits were run.
  const rss = (n: number) => Math.max(...warden.filter((r) => r.projects === n).map((r) => r.maxRssKB! / 1024));
  return [
    warden.length && { target: "requests ≤ 1.02 × lower bound at every size", met: worst <= 1.02, measured: `worst ${worst.toFixed(3)}×` },
    w10 && p10 && { target: "10,000 projects, no limits: ≥ 5× faster than gitbeaker", met: p10.wallMs! / w10.wallMs! >= 5, measured: `${(p10.wallMs! / w10.wallMs!).toFixed(1)}×` },
    w10 && { target: "10,000 projects, no limits: within 1.3× of the ideal schedule", met: w10.wallMs! <= 1.3 * w10.floorMs!, measured: `${(w10.wallMs! / w10.floorMs!).toFixed(2)}×` },
    budgeted.length && { target: "GitLab.com budgets: no 429 left unhandled (converged, no error)", met: budgeted.every((r) => r.converged && !r.error), measured: `${budgeted.reduce((n, r) => n + r.rateLimited, 0)} 429s answered, all retried` },
    budgeted.length && { target: "GitLab.com budgets: within 1.2× of the minimum they allow", met: budgeted.every((r) => r.wallMs! <= 1.2 * r.floorMs!), measured: budgeted.map((r) => `${r.projects} ${r.limits}: ${(r.wallMs! / r.floorMs!).toFixed(2)}×`).join(", ") },
    Number.isFinite(rss(100_000)) && { target: "peak RSS ≤ 150 MB at 100,000 projects", met: rss(100_000) <= 150, measured: `${rss(100_000).toFixed(0)} MB` },
    Number.isFinite(rss(100_000) / rss(10_000)) && { target: "peak RSS grows < 20% from 10,000 to 100,000", met: rss(100_000) / rss(10_000) < 1.2, measured: `+${((rss(100_000) / rss(10_000) - 1) * 100).toFixed(0)}%` },
    ...latencyTargets(latency),
    ...durableTargets(durable),
    ...bucketTargets(bucket),
  ].filter((t): t is { target: string; met: boolean; measured: string } => Boolean(t));
}

function latencyTargets(all: LatencyRow[]) {
  const warden = all.filter((r) => r.tool === "warden");
  const peerRatio = (w: LatencyRow) => {
    const peer = all.find((r) => r.tool === "gitbeaker" && r.latencyMs === w.latencyMs);
    return peer ? peer.wallMs! / w.wallMs! : NaN;
  };
  const each = (f: (r: LatencyRow) => string) => warden.map((r) => `${r.latencyMs} ms: ${f(r)}`).join(", ");
  if (!warden.length) return [];
  return [
    { target: "uneven tree at latency, defaults: within 1.2× of the ideal schedule", met: warden.every((r) => r.wallMs! <= 1.2 * r.idealMs), measured: each((r) => `${(r.wallMs! / r.idealMs).toFixed(2)}×`) },
    { target: "uneven tree at latency, defaults: requests ≤ 1.03 × lower bound", met: warden.every((r) => r.requests <= 1.03 * r.lowerBound), measured: each((r) => `${(r.requests / r.lowerBound).toFixed(3)}×`) },
    { target: "uneven tree at latency, defaults: ≥ 5× faster than gitbeaker", met: warden.every((r) => peerRatio(r) >= 5), measured: each((r) => `${peerRatio(r).toFixed(1)}×`) },
    { target: "uneven tree at latency: every stray removed, no error", met: all.every((r) => r.converged && !r.error), measured: all.map((r) => `${r.tool} ${r.latencyMs} ms: ${r.converged ? "converged" : (r.error ?? "strays left")}`).join(", ") },
  ];
}

function durableTargets(all: DurableRow[]) {
  if (!all.length) return [];
  const each = (f: (r: DurableRow) => string) => all.map((r) => `${r.projects.toLocaleString("en")}: ${f(r)}`).join(", ");
  const invocations = (r: DurableRow) => r.executions.map((e) => `${e.run} ${e.invocations}`).join(", ");
  return [
    { target: "durable execution: every execution needed more than one invocation", met: all.every((r) => r.executions.length > 0 && r.executions.every((e) => e.invocations > 1)), measured: each(invocations) },
    {
      target: "durable execution: every invocation within its time-scaled Lambda timeout",
      met: all.every((r) => r.executions.length > 0 && r.executions.every((e) => e.longestInvocationMs <= (r.invocationS * 1000) / timeScale)),
      measured: each((r) => `longest ${(Math.max(...r.executions.map((e) => e.longestInvocationMs)) / 1000).toFixed(1)} s of ${r.invocationS / timeScale} s`),
    },
    { target: "durable execution under GitLab.com budgets: requests ≤ 1.02 × lower bound", met: all.every((r) => !r.error && r.requests <= 1.02 * r.lowerBound), measured: each((r) => `${(r.requests / r.lowerBound).toFixed(3)}×`) },
    { target: "durable execution: converged (the strays planned, exactly they removed, the last dry run plans nothing, no error)", met: all.every((r) => r.converged), measured: each((r) => (r.converged ? "converged" : (r.error ?? "not converged"))) },
  ];
}

function durableMarkdown(all: DurableRow[]): string {
  const lines = [
    "| projects | groups | strays | limits | slice | invocations | steps | longest invocation | wall | paused | floor | wall ÷ floor | requests | lower bound | × bound | 429s | re-reads (subjects) | peak RSS | converged |",
    "|---:|---:|---:|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
  ];
  for (const r of all) {
    lines.push(
      `| ${r.projects.toLocaleString("en")} | ${r.groups} | ${r.strays} | ${r.limits} | ${r.sliceS} s | ${r.executions.map((e) => e.invocations).join(" + ") || "—"} | ${r.executions.map((e) => e.steps).join(" + ") || "—"} | ${r.executions.length ? s(Math.max(...r.executions.map((e) => e.longestInvocationMs))) : "—"} | ${s(r.wallMs)} | ${s(r.pausedMs)} | ${s(r.floorMs)} | ${(r.wallMs! / r.floorMs).toFixed(2)}× | ${r.requests} | ${r.lowerBound} | ${(r.requests / r.lowerBound).toFixed(3)} | ${r.rateLimited} | ${r.rechecks} (${r.subjects}) | ${rssCell(r)} | ${convergedCell(r)} |`,
    );
  }
  return lines.join("\n");
}

function latencyMarkdown(all: LatencyRow[]): string {
  const lines = [
    "| latency | projects | groups | strays | tool | wall | ideal | wall ÷ ideal | requests | lower bound | × bound | re-reads | peak RSS | peer ÷ Warden | converged |",
    "|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
  ];
  for (const r of all) {
    const warden = all.find((w) => w.tool === "warden" && w.latencyMs === r.latencyMs);
    lines.push(
      `| ${r.latencyMs} ms (÷${r.scale}) | ${r.projects.toLocaleString("en")} | ${r.groups} | ${r.strays} | ${r.tool} | ${s(r.wallMs)} | ${r.tool === "warden" ? s(r.idealMs) : ""} | ${r.tool === "warden" ? `${(r.wallMs! / r.idealMs).toFixed(2)}×` : ""} | ${r.requests} | ${r.lowerBound} | ${(r.requests / r.lowerBound).toFixed(3)} | ${r.rechecks} | ${rssCell(r)} | ${r.tool === "gitbeaker" && warden ? `${(r.wallMs! / warden.wallMs!).toFixed(1)}×` : ""} | ${convergedCell(r)} |`,
    );
  }
  return lines.join("\n");
}

/** Seconds to a tenth, or "—" for a run that has none. */
function s(ms: number | undefined): string {
  return ms === undefined || Number.isNaN(ms) ? "—" : `${(ms / 1000).toFixed(1)} s`;
}

function rssCell(r: Partial<RunResult>): string {
  return r.maxRssKB === undefined || Number.isNaN(r.maxRssKB) ? "—" : `${Math.round(r.maxRssKB / 1024)} MB`;
}

function convergedCell(r: { converged: boolean; error?: string }): string {
  return r.converged ? "yes" : `no${r.error ? `: ${r.error.slice(0, 80)}` : ""}`;
}

function markdown(all: Row[]): string {
  const ms = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? "—" : n >= 10_000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n)} ms`);
  const lines = [
    "| projects | limits | tool | wall | requests | lower bound | × bound | 429s | peak RSS | wall ÷ floor | peer ÷ Warden | converged |",
    "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
  ];
  for (const r of all) {
    const warden = all.find((w) => w.tool === "warden" && w.projects === r.projects && w.limits === r.limits);
    lines.push(
      `| ${r.projects.toLocaleString("en")} | ${r.limits} | ${r.tool} | ${ms(r.wallMs)} | ${r.requests} | ${r.lowerBound} | ${(r.requests / r.lowerBound).toFixed(3)} | ${r.rateLimited} | ${rssCell(r)} | ${r.floorMs ? `${(r.wallMs! / r.floorMs).toFixed(2)}×` : ""} | ${r.tool === "gitbeaker" && warden ? `${(r.wallMs! / warden.wallMs!).toFixed(1)}×` : ""} | ${convergedCell(r)} |`,
    );
  }
  return lines.join("\n");
}

function progress(text: string): void {
  process.stderr.write(`${text}\n`);
}
