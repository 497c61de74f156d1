/**
 * The benchmark's Markdown (docs/benchmarks.md is written by it): fed a small fabricated result set, so
 * no benchmark runs. The header says how it was made, each kind of row present gets its section, table
 * and targets, and only a table-breaking "|" or line break in a cell is escaped.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { benchMarkdown, type RunInfo } from "../../bin/bench/markdown.ts";
import type { Section } from "../../bin/bench/row-kind.ts";
import { bucketRow, bucketRows } from "../../bin/bench/rows/bucket.ts";
import { durableRows, type DurableRow } from "../../bin/bench/rows/durable.ts";
import { latencyRows, type LatencyRow } from "../../bin/bench/rows/latency.ts";
import { sizeRows, type SizeRow } from "../../bin/bench/rows/size.ts";
import { watchRows, type WatchRow } from "../../bin/bench/rows/watch.ts";
import { parseSettings } from "../../bin/bench/settings.ts";

const settings = parseSettings(["--sizes", "1000", "--latency-rows", "200", "--durable", "20000", "--bucket=", "--markdown", "docs/benchmarks.md"]);
const info: RunInfo = { machine: "2 × Test CPU, Node 24.0.0", date: "2026-11-27 03:30 UTC", commit: "abc1234", clean: false, load: [1.5, 2.25] };

const size: SizeRow[] = [
  { projects: 1000, limits: "none", tool: "warden", wallMs: 250, maxRssKB: 115_000, removed: 30, requests: 51, lowerBound: 60, rateLimited: 0, converged: true, floorMs: 200 },
  // A peer that failed, its error holding a pipe and a line break, as a crash's text may.
  { projects: 1000, limits: "none", tool: "gitbeaker", wallMs: NaN, maxRssKB: NaN, removed: 0, requests: 12, lowerBound: 60, rateLimited: 0, converged: false, error: "TypeError: a | b\n    at <anonymous> & more" },
];
const latency: LatencyRow[] = [{ latencyMs: 200, scale: 4, projects: 980, groups: 31, strays: 26, tool: "warden", wallMs: 8_000, maxRssKB: 120_000, removed: 26, requests: 140, lowerBound: 150, rechecks: 0, idealMs: 7_500, converged: true }];
const execution = (run: "dry" | "apply") => ({ run, wallMs: 30_000, invocations: 2, steps: 5, pausedMs: 1_000, longestInvocationMs: 50_000, requests: 900, rateLimited: 3, strays: 600, subjects: 600, removed: run === "apply" ? 600 : 0, largestStepBytes: 40_000, largestStep: "examine", stepBytes: 200_000 });
const durable: DurableRow[] = [
  { projects: 19_600, groups: 400, strays: 600, limits: "gitlab.com", invocationS: 900, sliceS: 60, invocations: 6, executions: [execution("dry"), execution("apply"), execution("dry")], pausedMs: 3_000, wallMs: 90_000, maxRssKB: 200_000, removed: 600, requests: 2_700, lowerBound: 2_800, rateLimited: 9, rechecks: 600, subjects: 600, floorMs: 88_000, converged: true },
];
const sections: Section[] = [
  { kind: sizeRows, rows: size },
  { kind: latencyRows, rows: latency },
  { kind: durableRows, rows: durable },
  { kind: bucketRows, rows: [] },
] as Section[];
const markdown = benchMarkdown(settings, info, sections);
const lines = markdown.split("\n");

describe("the benchmark's Markdown", () => {
  it("opens with how it was written, where, when, at which commit and with which flags", () => {
    expect(lines[0]).toBe("# Benchmarks");
    expect(markdown).toContain("Written by `npm run bench -- --markdown docs/benchmarks.md`; never edited by hand");
    expect(markdown).toContain("Run on 2026-11-27 03:30 UTC at commit `abc1234` (with uncommitted changes)");
    expect(markdown).toContain("as `npm run bench -- --sizes 1000 --latency-rows 200 --durable 20000 --bucket= --markdown docs/benchmarks.md`, on 2 × Test CPU, Node 24.0.0");
    expect(markdown).toContain("load average 1.50 at the start, 2.25 at the end");
    expect(markdown).toContain("## What it does");
  });

  it("has a section per kind of row measured, each with its text, table and targets, and none for a kind left out", () => {
    const headings = lines.filter((line) => line.startsWith("## ")).map((line) => line.slice(3));
    expect(headings).toEqual(["What it does", sizeRows.title, latencyRows.title, durableRows.title]);
    expect(markdown).toContain("Plan + apply, 20 ms of latency a request, 1,000 projects in scope");
    expect(markdown).toContain("Left out by --sizes: 10,000, 100,000 projects.");
    expect(lines.filter((line) => line === "Targets:")).toHaveLength(3);
    expect(markdown).toContain("- **met**: uneven tree at latency, defaults: within 1.2× of the ideal schedule (200 ms: 1.07×)");
    expect(markdown).toContain("- **NOT met**: uneven tree at latency, defaults: ≥ 5× faster than gitbeaker (200 ms: NaN×)");
    expect(markdown).toContain("- **met**: durable execution: every invocation within its time-scaled Lambda timeout (19,600: longest 50.0 s of 90 s)");
    expect(markdown).toMatch(/Targets met: \d+ of \d+\./);
  });

  it("keeps every table row as wide as its header: a cell's pipe is escaped, its line break joined", () => {
    const tables = markdown.split("\n\n").filter((block) => block.startsWith("| "));
    expect(tables).toHaveLength(3);
    for (const block of tables) {
      const widths = block.split("\n").map((line) => line.split(/(?<!\\)\|/).length);
      expect(new Set(widths).size, block).toBe(1);
    }
    expect(markdown).toContain("| no: TypeError: a \\| b at <anonymous> & more |");
  });

  it("escapes nothing else: no entity, and a backslash only before that pipe", () => {
    expect(markdown).not.toMatch(/&(amp|lt|gt|quot|#\d+);/);
    expect(markdown.match(/\\/g)).toHaveLength(1);
    expect(markdown).toContain("`RateLimit-*`");
    expect(markdown).toContain("| 200 ms (÷4) | 980 |");
  });

  it("links only to files that exist, relative to docs/", () => {
    const targets = [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
    expect(targets.length).toBeGreaterThan(3);
    expect(targets.filter((target) => !existsSync(join("docs", target)))).toEqual([]);
  });
});

it("a token-bucket row gets its section when it was measured", () => {
  const row = bucketRow(9_800, { wallMs: 11_000, maxRssKB: 120_000, removed: 0, lowestConcurrency: 1 }, 330, 120);
  const withBucket = benchMarkdown(settings, info, [{ kind: bucketRows, rows: [row] }] as Section[]);
  expect(withBucket).toContain(`## ${bucketRows.title}`);
  expect(withBucket).toContain("| 9,800 | 20/s, burst 4, bare 429s | dry run | 11.0 s | 10.5 s | 1.05× | 330 | 120 | 1 | 117 MB | yes |");
});

it("a watch row gets its section: seconds from creation to removal, and what the watch costs an hour", () => {
  const row: WatchRow = { projects: 1000, intervalS: 5, shares: 10, removed: 10, medianS: 2.8, worstS: 4.7, polls: 5, requestsPerHour: 7157, idlePerHourAt60s: 60, requestsPerBatch: 12 };
  const withWatch = benchMarkdown(settings, info, [{ kind: watchRows, rows: [row] }] as Section[]);
  expect(withWatch).toContain(`## ${watchRows.title}`);
  expect(withWatch).toContain("| 1,000 | 5 s | 10 | 10 | 2.8 s | 4.7 s | 5 | 7,157 | 12 requests | 60 requests |");
  expect(withWatch).toContain("- **met**: watch: each share removed within two polls (worst 4.7 s at 5 s)");
});
