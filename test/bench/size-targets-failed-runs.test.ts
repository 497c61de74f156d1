/**
 * The size rows' targets when a Warden run crashed or failed (bin/bench/rows/size.ts): a run killed by
 * V8's heap limit prints no result, so runProcess gives it maxRssKB NaN; one that exits 1 may still
 * have removed every stray. Neither meets a target, and the memory targets fail rather than vanish.
 */
import { describe, expect, it } from "vitest";
import { benchMarkdown, type RunInfo } from "../../bin/bench/markdown.ts";
import type { Section } from "../../bin/bench/row-kind.ts";
import { sizeRows, type SizeRow } from "../../bin/bench/rows/size.ts";
import { parseSettings } from "../../bin/bench/settings.ts";

const settings = parseSettings(["--sizes", "10000,100000", "--limits", "none,gitlab.com", "--tools", "warden"]);
const info: RunInfo = { machine: "2 × Test CPU, Node 24.0.0", date: "2026-12-01 03:00 UTC", commit: "abc1234", clean: true, load: [1, 1] };

const row = (projects: number, limits: SizeRow["limits"], fields: Partial<SizeRow> = {}): SizeRow => ({
  projects,
  limits,
  tool: "warden",
  wallMs: projects / 10,
  maxRssKB: 130 * 1024,
  removed: projects * 0.03,
  requests: projects / 20,
  lowerBound: projects / 17,
  rateLimited: 0,
  converged: true,
  floorMs: projects / 11,
  ...fields,
});

/** What runProcess makes of a runner that died without printing its result (bin/bench/run-process.ts). */
const crashed = { wallMs: NaN, maxRssKB: NaN, removed: 0, error: "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory", converged: false, requests: 900 };

describe("the size rows' targets when a Warden run crashed or failed", () => {
  it("a Warden run that ran out of memory at 100,000 projects fails the peak RSS target instead of removing it", () => {
    const rows = [row(10_000, "none"), row(10_000, "gitlab.com"), row(100_000, "none", crashed), row(100_000, "gitlab.com")];
    const targets = sizeRows.targets(rows, settings);
    const rss = targets.find((t) => t.target.startsWith("peak RSS ≤ 150 MB at 100,000 projects"));
    expect(rss, `targets claimed: ${targets.map((t) => t.target).join(" / ")}`).toBeDefined();
    expect(rss!.met).toBe(false);
  });

  it("the Markdown of such a run does not say every target was met", () => {
    const rows = [row(10_000, "none"), row(100_000, "none", crashed)];
    const only = parseSettings(["--sizes", "10000,100000", "--limits", "none", "--tools", "warden"]);
    const markdown = benchMarkdown(only, info, [{ kind: sizeRows, rows }] as Section[]);
    const [, met, of] = /Targets met: (\d+) of (\d+)\./.exec(markdown)!;
    expect(Number(met)).toBeLessThan(Number(of));
  });

  it("a Warden run that failed (exit 1, groups left unexamined) is neither shown converged nor counted as meeting the time targets", () => {
    const peer = (projects: number): SizeRow => row(projects, "none", { tool: "gitbeaker", wallMs: projects, requests: projects / 25 });
    // Fewer requests and a faster wall than a complete run: what a run that skipped part of the tree looks like.
    const failed = row(10_000, "none", { wallMs: 700, requests: 400, error: "apply: exit 1: 40 groups were not examined: 500 Internal Server Error" });
    const rows = [failed, peer(10_000)];
    const withPeer = parseSettings(["--sizes", "10000", "--limits", "none"]);
    const targets = sizeRows.targets(rows, withPeer);
    const markdown = benchMarkdown(withPeer, info, [{ kind: sizeRows, rows }] as Section[]);
    expect({ row: markdown.split("\n").find((line) => line.startsWith("| 10,000 | none | warden"))!.endsWith("| yes |"), allMet: targets.every((t) => t.met) }).toEqual({ row: false, allMet: false });
  });
});
