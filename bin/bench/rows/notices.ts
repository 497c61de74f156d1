/**
 * The notices row (issue 30, point 7): on one simulated organisation with a notices project, the CLI as a
 * user runs it (cli-process.ts), four runs one after another: a plain dry run (onStray remove), then
 * under onStray notify a dry run, an applying run (it opens the notices: the grace keeps every one
 * pending, so nothing is removed) and a second applying run (it must open nothing). Each run's requests
 * are the simulator's, counted between runs; what a notice run adds is measured against the plain dry run.
 */
import { runCli } from "../cli-process.ts";
import { BENCH_POLICY } from "../context.ts";
import { count, ms, outcomeCell } from "../format.ts";
import { table, type RowKind, type Target } from "../row-kind.ts";
import { NOTICES_PROJECT } from "../notices-world.ts";
import { startSimHost } from "../sim-host.ts";
import { NOTICE_RUNS, noticeTargets, type NoticeRun, type NoticesRow } from "./notice-targets.ts";

const ISSUES = "/projects/:id/issues";

/** The bench's policy under onStray notify, with a grace no run here outlasts. */
export const NOTIFY_POLICY = BENCH_POLICY.replace("  shares:\n", `  shares:\n    onStray: notify\n    grace: 7d\n    notices: { project: ${NOTICES_PROJECT} }\n`);

export const noticesRows: RowKind<NoticesRow> = {
  title: "Notices: what onStray notify adds",
  key: "noticesRows",

  async measure(bench) {
    const projects = bench.settings.notices;
    if (!projects) return [];
    const notify = bench.writePolicy("notify.yaml", NOTIFY_POLICY);
    bench.progress(`${projects} projects: a plain dry run, then onStray notify: dry run, apply, apply again…`);
    const sim = await startSimHost({ projects, latencyMs: bench.settings.latencyMs, rateLimits: [], noticesProject: true });
    try {
      const runs: NoticeRun[] = [];
      let before = await sim.counters();
      let closedBefore = 0;
      for (const run of NOTICE_RUNS) {
        const result = await runCli(bench.cli, sim.url, sim.token, run === "plain dry run" ? bench.policy : notify, run.includes("apply"), bench.settings.timeoutS);
        const after = await sim.counters();
        const sent = (key: string) => (after.byRoute[key] ?? 0) - (before.byRoute[key] ?? 0);
        const writes = Object.keys(after.byRoute).filter((key) => !key.startsWith("GET ")).reduce((n, key) => n + sent(key), 0);
        const { open, shares, closedPages } = await sim.notices();
        runs.push({
          run,
          wallMs: result.wallMs,
          requests: after.requests - before.requests,
          listingPages: sent(`GET ${ISSUES}`) - (closedPages - closedBefore),
          closedPages: closedPages - closedBefore,
          issuesOpened: sent(`POST ${ISSUES}`),
          otherWrites: writes - sent(`POST ${ISSUES}`),
          openNotices: open,
          noticedShares: shares,
          ...(result.notices ? { notices: result.notices } : {}),
          byRoute: Object.fromEntries(Object.keys(after.byRoute).flatMap((key) => (sent(key) ? [[key, sent(key)]] : []))),
          ...(result.error ? { error: result.error } : {}),
        });
        before = after;
        closedBefore = closedPages;
      }
      return [{ projects: sim.inScope, strays: sim.strays, authors: sim.authors, runs }];
    } finally {
      sim.stop();
    }
  },

  about: (settings) =>
    `One simulated organisation of ${count(settings.notices)} projects (a notices project \`${NOTICES_PROJECT}\` beside it, \
outside the scope), ${settings.latencyMs} ms of latency a request, no rate limit, and the packed CLI as a user runs it, four \
runs one after another: a plain dry run of the bench's policy, then the same policy with \`onStray: notify\`, \`grace: 7d\` and \
\`notices: { project: ${NOTICES_PROJECT} }\`: a dry run, an applying run (it opens one notice per stray share; the grace keeps \
every one pending, so nothing is removed) and a second applying run. Each run's requests are the simulator's, counted between runs.`,

  table: (rows) =>
    table(
      ["projects", "strays", "run", "wall", "requests", "added over the plain dry run", "listing pages", "closed listing pages", "notices opened", "other writes", "open notices (shares)", "report: to open / opened / pending", "error"],
      "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|",
      rows.flatMap((row) => {
        const plain = row.runs.find((r) => r.run === "plain dry run");
        return row.runs.map((r) => [
          count(row.projects),
          String(row.strays),
          r.run,
          ms(r.wallMs),
          String(r.requests),
          plain && r !== plain ? String(r.requests - plain.requests) : "",
          String(r.listingPages),
          String(r.closedPages),
          String(r.issuesOpened),
          String(r.otherWrites),
          `${r.openNotices} (${r.noticedShares})`,
          r.notices ? `${r.notices.toOpen} / ${r.notices.opened} / ${r.notices.pending}` : "",
          r.error ? outcomeCell(false, r.error) : "",
        ]);
      }),
    ),

  legend: () => `- *listing pages*: \`GET /projects/:id/issues\`, the open notices listed by label, 100 a page (one keyset listing; \
a run that opened notices lists them again, to close any duplicate two runs at once made).
- *closed listing pages*: the same route with \`state=closed\`, the notices closed within the longest grace and a month, listed \
where a stray has no open notice: one a person closed anchors its removal date, so closing each notice never restarts the grace \
([lib/jobs/notices/closed.ts](../lib/jobs/notices/closed.ts)). Nobody closes one here: a page at most.
- *other writes*: any request but a GET and the notices' \`POST /projects/:id/issues\`: none is expected, as no notice falls due.
- *open notices (shares)*: the notices project's open issues after the run, and the distinct shares their markers name: equal when \
none is duplicated.`,

  targets: (rows): Target[] => rows.flatMap(noticeTargets),
};
