/**
 * The latency rows: dry run + apply + dry run on an uneven tree at real-world latencies (--latency-rows),
 * time-scaled: the simulator answers in --scaled-latency ms and every wall time is multiplied by (row
 * latency ÷ scaled latency), fair while CPU time is small beside latency, conservative otherwise.
 */
import type { TreeShape } from "../../../sim/gitlab/generate-tree.ts";
import type { Bench } from "../context.ts";
import { count, outcomeCell, ratio, rssCell, s } from "../format.ts";
import { table, type RowKind } from "../row-kind.ts";
import type { RunResult } from "../run-result.ts";
import { floorMs, lowerBound, type Work } from "../schedule.ts";
import { concurrencyText, type Tool } from "../settings.ts";
import { startSimHost } from "../sim-host.ts";

/** Half the projects in one subgroup, the rest over hundreds of small groups. */
export const UNEVEN: TreeShape = { groups: 300, maxDepth: 5, heavy: 0.5 };

export interface LatencyRow extends Partial<RunResult> {
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

/** One row at `rowLatencyMs` a request; wall times and the ideal are in the row's time. */
async function measureOne(bench: Bench, rowLatencyMs: number, tool: Tool): Promise<LatencyRow> {
  const { settings } = bench;
  const realLatencyMs = Math.min(rowLatencyMs, settings.scaledLatencyMs);
  const scale = rowLatencyMs / realLatencyMs;
  const sim = await startSimHost({ projects: settings.latencyProjects, latencyMs: realLatencyMs, rateLimits: [], tree: UNEVEN });
  try {
    const result = await bench.run(tool, [sim.url, sim.token, bench.policy, "dry,apply,dry", ...(tool === "warden" && settings.concurrencyFlag ? [settings.concurrencyFlag] : [])]);
    const counters = await sim.counters();
    const rechecks = counters.byRoute["GET /projects/:id"] ?? 0;
    const work: Work = { projects: sim.inScope, listings: sim.listings, groups: sim.groups, strays: sim.strays, rechecks, auditPages: sim.auditPages, auditRounds: sim.auditRounds, authors: sim.authors };
    const { list, removal } = settings.concurrency;
    // The last dry run finds no stray, so attributes nothing.
    const [dry, apply, last] = ([[work, false], [work, true], [{ ...work, strays: 0 }, false]] as const).map(([w, a]) => ({ bound: lowerBound(w, a).requests, floor: floorMs(w, list, rowLatencyMs, [], a, removal) }));
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
      lowerBound: dry!.bound + apply!.bound + last!.bound,
      rechecks,
      idealMs: dry!.floor + apply!.floor + last!.floor,
      converged: (await sim.remainingStrays()) === 0,
    };
  } finally {
    sim.stop();
  }
}

/** The peer's wall time ÷ Warden's at the same latency. */
function peerRatio(all: LatencyRow[], warden: LatencyRow): number {
  const peer = all.find((r) => r.tool === "gitbeaker" && r.latencyMs === warden.latencyMs);
  return peer ? peer.wallMs! / warden.wallMs! : NaN;
}

export const latencyRows: RowKind<LatencyRow> = {
  title: "Latency: an uneven tree at real-world latencies",
  key: "latencyRows",

  async measure(bench) {
    const rows: LatencyRow[] = [];
    for (const rowLatency of bench.settings.latencyRows) {
      for (const tool of bench.settings.tools) {
        bench.progress(`uneven tree, ${rowLatency} ms a request: ${tool} (dry run + apply + dry run)…`);
        rows.push(await measureOne(bench, rowLatency, tool));
      }
    }
    return rows;
  },

  about: (settings) => `Dry run + apply + dry run at ${settings.latencyRows.join(" and ")} ms a request, on an uneven tree of \
${count(settings.latencyProjects)} projects: ${UNEVEN.heavy! * 100}% of them in one subgroup, the rest over ${UNEVEN.groups} groups down to \
${UNEVEN.maxDepth} levels. Warden with ${concurrencyText(settings)}. Time-scaled: the simulator answers in ${settings.scaledLatencyMs} ms \
and wall times are multiplied by the row's latency ÷ ${settings.scaledLatencyMs}, which multiplies CPU time too, so it is conservative.`,

  table(rows) {
    return table(
      ["latency", "projects", "groups", "strays", "tool", "wall", "ideal", "wall ÷ ideal", "requests", "lower bound", "× bound", "re-reads", "peak RSS", "peer ÷ Warden", "converged"],
      "|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
      rows.map((r) => {
        const warden = rows.find((w) => w.tool === "warden" && w.latencyMs === r.latencyMs);
        const isWarden = r.tool === "warden";
        return [`${r.latencyMs} ms (÷${r.scale})`, count(r.projects), String(r.groups), String(r.strays), r.tool, s(r.wallMs), isWarden ? s(r.idealMs) : "", isWarden ? ratio(r.wallMs!, r.idealMs) : "", String(r.requests), String(r.lowerBound), (r.requests / r.lowerBound).toFixed(3), String(r.rechecks), rssCell(r), !isWarden && warden ? ratio(r.wallMs!, warden.wallMs!, 1) : "", outcomeCell(r.converged, r.error)];
      }),
    );
  },

  legend: () => `- *ideal*: the floor of the three runs without budgets. *re-reads*: \`GET /projects/:id\` before a removal, for a plan \
older than 60 s (none while it is younger).
- The heavy subgroup holds its projects directly and its detail shows 100 of them, so the rest are listed, split by visibility into \
three listings, each read from both ends. GitLab's contract has clients follow each answer's \`Link\`, never build a page's address, so \
that group is at best six chains of pages, and they set the examination's end. A tree where one group holds most projects directly is \
slower than the ideal whatever the concurrency (the ideal spreads its pages over every slot); this benchmark does not run one.`,

  targets(all) {
    const warden = all.filter((r) => r.tool === "warden");
    if (!warden.length) return [];
    const each = (f: (r: LatencyRow) => string) => warden.map((r) => `${r.latencyMs} ms: ${f(r)}`).join(", ");
    return [
      { target: "uneven tree at latency, defaults: within 1.2× of the ideal schedule", met: warden.every((r) => r.wallMs! <= 1.2 * r.idealMs), measured: each((r) => ratio(r.wallMs!, r.idealMs)) },
      { target: "uneven tree at latency, defaults: requests ≤ 1.03 × lower bound", met: warden.every((r) => r.requests <= 1.03 * r.lowerBound), measured: each((r) => ratio(r.requests, r.lowerBound, 3)) },
      { target: "uneven tree at latency, defaults: ≥ 5× faster than gitbeaker", met: warden.every((r) => peerRatio(all, r) >= 5), measured: each((r) => `${peerRatio(all, r).toFixed(1)}×`) },
      { target: "uneven tree at latency: every stray removed, no error", met: all.every((r) => r.converged && !r.error), measured: all.map((r) => `${r.tool} ${r.latencyMs} ms: ${r.converged ? "converged" : (r.error ?? "strays left")}`).join(", ") },
    ];
  },
};
