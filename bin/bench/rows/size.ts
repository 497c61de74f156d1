/**
 * The size rows: plan + apply, Warden beside the @gitbeaker/rest peer, at each --sizes, without rate
 * limits and under GitLab.com's budgets (--limits).
 */
import { budgetsFor, type Limits } from "../budgets.ts";
import type { Bench } from "../context.ts";
import { count, ms, outcomeCell, ratio, rssCell } from "../format.ts";
import { table, type RowKind, type Target } from "../row-kind.ts";
import type { RunResult } from "../run-result.ts";
import { floorMs, lowerBound, type Work } from "../schedule.ts";
import { concurrencyText, type Tool } from "../settings.ts";
import { startSimHost } from "../sim-host.ts";

const ALL_SIZES = [1_000, 10_000, 100_000];

export interface SizeRow extends Partial<RunResult> {
  projects: number;
  limits: Limits;
  tool: Tool;
  requests: number;
  lowerBound: number;
  rateLimited: number;
  converged: boolean;
  /** Warden rows: the least wall time its schedule allows at this latency and concurrency (and budgets). */
  floorMs?: number;
}

async function measureOne(bench: Bench, projects: number, limits: Limits, tool: Tool): Promise<SizeRow> {
  const { settings } = bench;
  const rules = budgetsFor(limits, settings.timeScale);
  const sim = await startSimHost({ projects, latencyMs: settings.latencyMs, rateLimits: rules });
  try {
    const result = await bench.run(tool, [sim.url, sim.token, bench.policy, "apply", ...(tool === "warden" && settings.concurrencyFlag ? [settings.concurrencyFlag] : [])]);
    const counters = await sim.counters();
    const work: Work = { projects: sim.inScope, listings: sim.listings, groups: sim.groups, strays: sim.strays, auditPages: sim.auditPages, auditRounds: sim.auditRounds, authors: sim.authors };
    const row: SizeRow = {
      projects,
      limits,
      tool,
      ...result,
      requests: counters.requests,
      lowerBound: lowerBound(work).requests,
      rateLimited: counters.status["429"] ?? 0,
      // A run that failed (groups left unexamined, say) may still have removed every stray: it did not converge.
      converged: !result.error && (await sim.remainingStrays()) === 0,
    };
    if (tool === "warden") row.floorMs = floorMs(work, settings.concurrency.list, settings.latencyMs, rules, true, settings.concurrency.removal);
    return row;
  } finally {
    sim.stop();
  }
}

export const sizeRows: RowKind<SizeRow> = {
  title: "Size: plan + apply, beside the peer",
  key: "rows",

  async measure(bench) {
    const rows: SizeRow[] = [];
    for (const projects of bench.settings.sizes) {
      for (const limits of bench.settings.limits) {
        for (const tool of bench.settings.tools) {
          bench.progress(`${projects} projects, limits ${limits}: ${tool}…`);
          rows.push(await measureOne(bench, projects, limits, tool));
        }
      }
    }
    return rows;
  },

  about(settings) {
    const skipped = ALL_SIZES.filter((n) => !settings.sizes.includes(n));
    return `Plan + apply, ${settings.latencyMs} ms of latency a request, ${settings.sizes.map(count).join(", ")} projects in scope (3% with a stray share), \
under each of --limits ${settings.limits.join(", ")}: \`none\` is no rate limit, \`gitlab.com\` GitLab.com's published budgets (2,000 authenticated \
requests a minute, \`GET /groups/:id/projects\` 600 and \`GET /groups/:id\` 400 a minute, …) with every window ÷ ${settings.timeScale}, shown as \
GitLab shows them by default (\`RateLimit-*\` and \`Retry-After\` on a 429 only; \`gitlab.com-advertised\` shows them on every answer, \
\`gitlab.com-bare\` on none). Warden with ${concurrencyText(settings)}.${skipped.length ? ` Left out by --sizes: ${skipped.map(count).join(", ")} projects.` : ""}`;
  },

  table(rows) {
    return table(
      ["projects", "limits", "tool", "wall", "requests", "lower bound", "× bound", "429s", "peak RSS", "wall ÷ floor", "peer ÷ Warden", "converged"],
      "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
      rows.map((r) => {
        const warden = rows.find((w) => w.tool === "warden" && w.projects === r.projects && w.limits === r.limits);
        return [count(r.projects), r.limits, r.tool, ms(r.wallMs), String(r.requests), String(r.lowerBound), (r.requests / r.lowerBound).toFixed(3), String(r.rateLimited), rssCell(r), r.floorMs ? ratio(r.wallMs!, r.floorMs) : "", r.tool === "gitbeaker" && warden ? ratio(r.wallMs!, warden.wallMs!, 1) : "", outcomeCell(r.converged && !r.error, r.error)];
      }),
    );
  },

  legend: () => `- *× bound*: Warden sends less than the lower bound, as most projects come in the group details counted there (a group's \
detail carries up to 100 of its own projects); it adds one sample of 100 projects per scope group. The peer examines project shares \
only and skips the token check: it sends fewer still, doing less than Warden, not the same job faster.
- *wall ÷ floor*: Warden's rows. At a few dozen round trips, Warden's own work per answer (parsing up to 200 projects a detail, \
judging them) weighs against the floor; where no budget binds, the floor under budgets is the bare latency schedule.
- *429s*: each answered by pausing the origin for its \`Retry-After\` and retried; *converged*: the run ended without an error and \
left no stray in the simulator. A run that failed meets no target.
- *peak RSS*: the functions' \`NODE_OPTIONS\` ([lib/config/node-options.ts](../lib/config/node-options.ts)) keep garbage awaiting \
collection from being the larger part of the heap; the peer holds every project in one array.`,

  targets(all) {
    const warden = all.filter((r) => r.tool === "warden");
    const find = (projects: number, tool: Tool) => all.find((r) => r.projects === projects && r.limits === "none" && r.tool === tool);
    // A run that failed or crashed meets no target: its time, requests and memory are those of work left undone.
    const failed = (rows: SizeRow[]) => rows.filter((r) => r.error || !Number.isFinite(r.maxRssKB));
    const failures = (rows: SizeRow[]) => failed(rows).map((r) => `${count(r.projects)} ${r.limits} failed: ${r.error ?? "no peak RSS measured"}`).join("; ");
    const worst = Math.max(...warden.map((r) => r.requests / r.lowerBound));
    const [w10, p10] = [find(10_000, "warden"), find(10_000, "gitbeaker")];
    const budgeted = warden.filter((r) => r.limits !== "none");
    const stuck = budgeted.filter((r) => !r.converged);
    const sized = (n: number) => warden.filter((r) => r.projects === n);
    // The highest peak among Warden's rows of a size, whichever limits were run.
    const rss = (n: number) => Math.max(...sized(n).map((r) => r.maxRssKB! / 1024));
    const memory = (rows: SizeRow[], met: boolean, measured: string) => (failed(rows).length ? { met: false, measured: failures(rows) } : { met, measured });
    const targets: (Target | false | undefined | 0)[] = [
      warden.length && { target: "requests ≤ 1.02 × lower bound at every size", met: !failed(warden).length && worst <= 1.02, measured: failures(warden) || `worst ${worst.toFixed(3)}×` },
      w10 && p10 && { target: "10,000 projects, no limits: ≥ 5× faster than gitbeaker", met: !w10.error && !p10.error && p10.wallMs! / w10.wallMs! >= 5, measured: failures([w10, p10]) || ratio(p10.wallMs!, w10.wallMs!, 1) },
      w10 && { target: "10,000 projects, no limits: within 1.3× of the ideal schedule", met: !w10.error && w10.wallMs! <= 1.3 * w10.floorMs!, measured: failures([w10]) || ratio(w10.wallMs!, w10.floorMs!) },
      budgeted.length && { target: "GitLab.com budgets: no 429 left unhandled (converged, no error)", met: !stuck.length, measured: `${budgeted.reduce((n, r) => n + r.rateLimited, 0)} 429s answered, ${stuck.length ? stuck.map((r) => `${count(r.projects)} ${r.limits} not converged${r.error ? `: ${r.error}` : ""}`).join("; ") : "all retried"}` },
      budgeted.length && { target: "GitLab.com budgets: within 1.2× of the minimum they allow", met: budgeted.every((r) => !r.error && r.wallMs! <= 1.2 * r.floorMs!), measured: budgeted.map((r) => `${r.projects} ${r.limits}: ${r.error ? "failed" : ratio(r.wallMs!, r.floorMs!)}`).join(", ") },
      sized(100_000).length && { target: "peak RSS ≤ 150 MB at 100,000 projects", ...memory(sized(100_000), rss(100_000) <= 150, `${rss(100_000).toFixed(0)} MB`) },
      sized(100_000).length && sized(10_000).length && { target: "peak RSS grows < 20% from 10,000 to 100,000", ...memory([...sized(10_000), ...sized(100_000)], rss(100_000) / rss(10_000) < 1.2, `+${((rss(100_000) / rss(10_000) - 1) * 100).toFixed(0)}%`) },
    ];
    return targets.filter((t): t is Target => Boolean(t));
  },
};
