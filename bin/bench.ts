#!/usr/bin/env node
/**
 * `npm run bench`: Warden's enforce job (plan + apply) and a @gitbeaker/rest script doing the same job,
 * side by side on the same simulated GitLab over loopback, at several sizes, without rate limits and
 * under GitLab.com's budgets. Prints a Markdown table (or JSON with --json) and checks the targets.
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
import { floorMs, lowerBound } from "./bench/schedule.ts";
import { startSimHost } from "./bench/sim-host.ts";

const { values: flags } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,10000,100000" },
    latency: { type: "string", default: "20" },
    concurrency: { type: "string", default: "8" },
    "time-scale": { type: "string", default: "10" },
    "timeout-s": { type: "string", default: "600" },
    "node-options": { type: "string", default: NODE_OPTIONS },
    tools: { type: "string", default: "warden,gitbeaker" },
    limits: { type: "string", default: "none,gitlab.com" },
    json: { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});
if (flags.help) {
  process.stdout.write(`Usage: npm run bench -- [--sizes 1000,10000,100000] [--latency 20] [--concurrency 8] [--time-scale 10] [--timeout-s 600] [--json]

  --sizes       projects in scope per row; leave 100000 out on a small machine (the output says so)
  --latency     simulated network latency per request, ms
  --concurrency Warden's --concurrency and --list-concurrency
  --time-scale  GitLab.com's budget windows are divided by this (a minute lasts 6 s at 10)
  --timeout-s   a run still going after this is stopped and reported as timed out
  --node-options  V8/Node flags for both tools' processes (default: the Lambda functions' NODE_OPTIONS,
                ${NODE_OPTIONS}; --node-options= for Node's defaults)
  --tools       warden,gitbeaker (leave the peer out for a quick run)
  --limits      none,gitlab.com: budgets shown on 429s only, as GitLab does by default (also
                gitlab.com-advertised: shown on every answer; gitlab.com-bare: 429s without any header)
`);
  process.exit(0);
}

const ALL_SIZES = [1_000, 10_000, 100_000];
const sizes = flags.sizes.split(",").map(Number);
const latencyMs = Number(flags.latency);
const concurrency = Number(flags.concurrency);
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

const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? "unknown CPU"}, Node ${process.versions.node}, ${new Date().toISOString().slice(0, 10)}`;
const skipped = ALL_SIZES.filter((s) => !sizes.includes(s));
if (flags.json) {
  process.stdout.write(`${JSON.stringify({ machine, latencyMs, concurrency, timeScale, skipped, rows, targets: targets(rows) }, null, 2)}\n`);
} else {
  process.stdout.write(`${markdown(rows)}\n\n${machine}; latency ${latencyMs} ms; Warden concurrency ${concurrency}; budget windows ÷ ${timeScale}${flags["node-options"] ? `; node ${flags["node-options"]}` : ""}.\n`);
  if (skipped.length) process.stdout.write(`Skipped by --sizes: ${skipped.join(", ")} projects.\n`);
  process.stdout.write(`\nTargets:\n${targets(rows).map((t) => `- ${t.met ? "met" : "NOT met"}: ${t.target} (${t.measured})`).join("\n")}\n`);
}

async function measure(projects: number, limits: Row["limits"], tool: Tool): Promise<Row> {
  const sim = await startSimHost({ projects, latencyMs, rateLimits: BUDGETS[limits] });
  try {
    const args = tool === "warden" ? [sim.url, sim.token, policy, String(concurrency)] : [sim.url, sim.token, policy];
    const result = await runProcess(runners[tool], args);
    const counters = await sim.counters();
    const bound = lowerBound(sim.inScope, sim.strays);
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
    if (tool === "warden") row.floorMs = floorMs(sim.partitionPages, sim.strays, concurrency, latencyMs, BUDGETS[limits]);
    return row;
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

function targets(all: Row[]) {
  const warden = all.filter((r) => r.tool === "warden");
  const find = (projects: number, limits: Row["limits"], tool: Tool) => all.find((r) => r.projects === projects && r.limits === limits && r.tool === tool);
  const worst = Math.max(...warden.map((r) => r.requests / r.lowerBound));
  const w10 = find(10_000, "none", "warden");
  const p10 = find(10_000, "none", "gitbeaker");
  const budgeted = warden.filter((r) => r.limits !== "none");
  // The highest peak among Warden's rows of a size, whichever limits were run.
  const rss = (n: number) => Math.max(...warden.filter((r) => r.projects === n).map((r) => r.maxRssKB! / 1024));
  return [
    { target: "requests ≤ 1.01 × lower bound at every size", met: worst <= 1.01, measured: `worst ${worst.toFixed(3)}×` },
    w10 && p10 && { target: "10,000 projects, no limits: ≥ 5× faster than gitbeaker", met: p10.wallMs! / w10.wallMs! >= 5, measured: `${(p10.wallMs! / w10.wallMs!).toFixed(1)}×` },
    w10 && { target: "10,000 projects, no limits: within 1.3× of the ideal schedule", met: w10.wallMs! <= 1.3 * w10.floorMs!, measured: `${(w10.wallMs! / w10.floorMs!).toFixed(2)}×` },
    budgeted.length && { target: "GitLab.com budgets: no 429 left unhandled (converged, no error)", met: budgeted.every((r) => r.converged && !r.error), measured: `${budgeted.reduce((n, r) => n + r.rateLimited, 0)} 429s answered, all retried` },
    budgeted.length && { target: "GitLab.com budgets: within 1.2× of the minimum they allow", met: budgeted.every((r) => r.wallMs! <= 1.2 * r.floorMs!), measured: budgeted.map((r) => `${r.projects} ${r.limits}: ${(r.wallMs! / r.floorMs!).toFixed(2)}×`).join(", ") },
    Number.isFinite(rss(100_000)) && { target: "peak RSS ≤ 150 MB at 100,000 projects", met: rss(100_000) <= 150, measured: `${rss(100_000).toFixed(0)} MB` },
    Number.isFinite(rss(100_000) / rss(10_000)) && { target: "peak RSS grows < 20% from 10,000 to 100,000", met: rss(100_000) / rss(10_000) < 1.2, measured: `+${((rss(100_000) / rss(10_000) - 1) * 100).toFixed(0)}%` },
  ].filter((t): t is { target: string; met: boolean; measured: string } => Boolean(t));
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
