#!/usr/bin/env node
/**
 * `npm run bench`: Warden's enforce job (plan + apply) and a @gitbeaker/rest script doing the same job,
 * side by side on the same simulated GitLab over loopback, at several sizes, without rate limits and
 * under GitLab.com's budgets; then, at real-world latencies (200 ms and 1 s a request), on an uneven
 * tree, Warden with its defaults doing dry run + apply + dry run beside the peer doing the same.
 * Those rows are time-scaled: the simulator answers in --scaled-latency ms, and every wall time is
 * multiplied by (row latency ÷ scaled latency) — fair while CPU time is small beside latency, and
 * conservative otherwise (CPU time is multiplied too). Prints Markdown (or JSON) and checks the targets.
 */
import { execFile } from "node:child_process";
import { writeFileSync, mkdtempSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { build } from "esbuild";
import { NODE_OPTIONS } from "../lib/config/node-options.ts";
import type { RateLimitRule } from "../test/sim/gitlab/index.ts";
import { gitlabComBudgets } from "./bench/budgets.ts";
import type { RunResult } from "./bench/run-result.ts";
import { DEFAULT_LIST_CONCURRENCY, DEFAULT_REMOVAL_CONCURRENCY } from "../lib/jobs/enforce.ts";
import type { TreeShape } from "../test/sim/gitlab/generate-tree.ts";
import { floorMs, lowerBound, type Work } from "./bench/schedule.ts";
import { startSimHost } from "./bench/sim-host.ts";

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
  --timeout-s   a run still going after this is stopped and reported as timed out
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
`);
  process.exit(0);
}

const ALL_SIZES = [1_000, 10_000, 100_000];
const sizes = flags.sizes.split(",").map(Number);
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
const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? "unknown CPU"}, Node ${process.versions.node}, ${new Date().toISOString().slice(0, 10)}`;
const skipped = ALL_SIZES.filter((s) => !sizes.includes(s));
if (flags.json) {
  process.stdout.write(`${JSON.stringify({ machine, latencyMs, concurrency, timeScale, skipped, rows, latencyRows, targets: targets(rows, latencyRows) }, null, 2)}\n`);
} else {
  process.stdout.write(`${markdown(rows)}\n\n${machine}; latency ${latencyMs} ms; Warden concurrency ${flags.concurrency || `defaults (${concurrency.list} examination requests, ${concurrency.removal} removals)`}; budget windows ÷ ${timeScale}${flags["node-options"] ? `; node ${flags["node-options"]}` : ""}.\n`);
  if (skipped.length) process.stdout.write(`Skipped by --sizes: ${skipped.join(", ")} projects.\n`);
  if (latencyRows.length) {
    process.stdout.write(`\n${latencyMarkdown(latencyRows)}\n\nUneven tree (${UNEVEN.heavy! * 100}% of the projects in one subgroup, the rest over ${UNEVEN.groups} groups down to ${UNEVEN.maxDepth} levels), dry run + apply + dry run; Warden with ${flags.concurrency ? `--concurrency ${flags.concurrency}` : `its defaults (${concurrency.list} examination requests, ${concurrency.removal} removals in flight)`}; the simulator answers in ${flags["scaled-latency"]} ms and wall times are scaled to the row's latency.\n`);
  }
  process.stdout.write(`\nTargets:\n${targets(rows, latencyRows).map((t) => `- ${t.met ? "met" : "NOT met"}: ${t.target} (${t.measured})`).join("\n")}\n`);
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

function runProcess(bundle: string, args: string[]): Promise<RunResult> {
  return new Promise((resolve) => {
    const nodeOptions = flags["node-options"].split(" ").filter(Boolean);
    execFile(process.execPath, [...nodeOptions, bundle, ...args], { timeout: Number(flags["timeout-s"]) * 1000, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const last = stdout.trim().split("\n").at(-1);
      if (last?.startsWith("{")) return resolve(JSON.parse(last) as RunResult);
      resolve({ wallMs: NaN, maxRssKB: NaN, removed: 0, error: err?.killed ? "timed out" : (stderr.trim().split("\n").at(-1) ?? String(err)) });
    });
  });
}

/** Both runners are bundled as SST bundles a Lambda, so neither pays for Node's TypeScript loader. */
async function bundleRunners(): Promise<Record<Tool, string>> {
  const entries: Record<Tool, string> = { warden: "bench/warden-run.ts", gitbeaker: "bench/gitbeaker-run.ts" };
  const out = {} as Record<Tool, string>;
  for (const [tool, entry] of Object.entries(entries) as [Tool, string][]) {
    out[tool] = join(work, `${tool}.mjs`);
    await build({
      entryPoints: [new URL(entry, import.meta.url).pathname],
      outfile: out[tool],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node24",
      logLevel: "error",
      banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    });
  }
  return out;
}

function targets(all: Row[], latency: LatencyRow[]) {
  const warden = all.filter((r) => r.tool === "warden");
  const find = (projects: number, limits: Row["limits"], tool: Tool) => all.find((r) => r.projects === projects && r.limits === limits && r.tool === tool);
  const worst = Math.max(...warden.map((r) => r.requests / r.lowerBound));
  const w10 = find(10_000, "none", "warden");
  const p10 = find(10_000, "none", "gitbeaker");
  const budgeted = warden.filter((r) => r.limits !== "none");
  // The highest peak among Warden's rows of a size, whichever limits were run.
  const rss = (n: number) => Math.max(...warden.filter((r) => r.projects === n).map((r) => r.maxRssKB! / 1024));
  return [
    { target: "requests ≤ 1.02 × lower bound at every size", met: worst <= 1.02, measured: `worst ${worst.toFixed(3)}×` },
    w10 && p10 && { target: "10,000 projects, no limits: ≥ 5× faster than gitbeaker", met: p10.wallMs! / w10.wallMs! >= 5, measured: `${(p10.wallMs! / w10.wallMs!).toFixed(1)}×` },
    w10 && { target: "10,000 projects, no limits: within 1.3× of the ideal schedule", met: w10.wallMs! <= 1.3 * w10.floorMs!, measured: `${(w10.wallMs! / w10.floorMs!).toFixed(2)}×` },
    budgeted.length && { target: "GitLab.com budgets: no 429 left unhandled (converged, no error)", met: budgeted.every((r) => r.converged && !r.error), measured: `${budgeted.reduce((n, r) => n + r.rateLimited, 0)} 429s answered, all retried` },
    budgeted.length && { target: "GitLab.com budgets: within 1.2× of the minimum they allow", met: budgeted.every((r) => r.wallMs! <= 1.2 * r.floorMs!), measured: budgeted.map((r) => `${r.projects} ${r.limits}: ${(r.wallMs! / r.floorMs!).toFixed(2)}×`).join(", ") },
    Number.isFinite(rss(100_000)) && { target: "peak RSS ≤ 150 MB at 100,000 projects", met: rss(100_000) <= 150, measured: `${rss(100_000).toFixed(0)} MB` },
    Number.isFinite(rss(100_000) / rss(10_000)) && { target: "peak RSS grows < 20% from 10,000 to 100,000", met: rss(100_000) / rss(10_000) < 1.2, measured: `+${((rss(100_000) / rss(10_000) - 1) * 100).toFixed(0)}%` },
    ...latencyTargets(latency),
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

function latencyMarkdown(all: LatencyRow[]): string {
  const s = (ms: number | undefined) => (ms === undefined || Number.isNaN(ms) ? "—" : `${(ms / 1000).toFixed(1)} s`);
  const lines = [
    "| latency | projects | groups | strays | tool | wall | ideal | wall ÷ ideal | requests | lower bound | × bound | re-reads | peak RSS | peer ÷ Warden | converged |",
    "|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
  ];
  for (const r of all) {
    const warden = all.find((w) => w.tool === "warden" && w.latencyMs === r.latencyMs);
    lines.push(
      `| ${r.latencyMs} ms (÷${r.scale}) | ${r.projects.toLocaleString("en")} | ${r.groups} | ${r.strays} | ${r.tool} | ${s(r.wallMs)} | ${r.tool === "warden" ? s(r.idealMs) : ""} | ${r.tool === "warden" ? `${(r.wallMs! / r.idealMs).toFixed(2)}×` : ""} | ${r.requests} | ${r.lowerBound} | ${(r.requests / r.lowerBound).toFixed(3)} | ${r.rechecks} | ${Number.isNaN(r.maxRssKB) ? "—" : `${Math.round(r.maxRssKB! / 1024)} MB`} | ${r.tool === "gitbeaker" && warden ? `${(r.wallMs! / warden.wallMs!).toFixed(1)}×` : ""} | ${r.converged ? "yes" : `no${r.error ? `: ${r.error.slice(0, 80)}` : ""}`} |`,
    );
  }
  return lines.join("\n");
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
      `| ${r.projects.toLocaleString("en")} | ${r.limits} | ${r.tool} | ${ms(r.wallMs)} | ${r.requests} | ${r.lowerBound} | ${(r.requests / r.lowerBound).toFixed(3)} | ${r.rateLimited} | ${Number.isNaN(r.maxRssKB) ? "—" : `${Math.round(r.maxRssKB! / 1024)} MB`} | ${r.floorMs ? `${(r.wallMs! / r.floorMs).toFixed(2)}×` : ""} | ${r.tool === "gitbeaker" && warden ? `${(r.wallMs! / warden.wallMs!).toFixed(1)}×` : ""} | ${r.converged ? "yes" : `no${r.error ? `: ${r.error.slice(0, 80)}` : ""}`} |`,
    );
  }
  return lines.join("\n");
}

function progress(text: string): void {
  process.stderr.write(`${text}\n`);
}
