/**
 * Enforce's last phase: the step "ended" (the time a replay must report again), and the JSON report
 * (docs/report.schema.json) from what the phases before handed on.
 */
import { makeReport } from "../../envelope.ts";
import { noticeReport, type Sorted } from "../../notices/index.ts";
import { concurrencyStat, countStatus } from "../../report/index.ts";
import { comparisonOf, scopeWarning } from "../compare.ts";
import { attributionStat, sumStats, type EnforceReport } from "../summary.ts";
import type { Attributed } from "./attribute.ts";
import type { Begun } from "./begin.ts";
import type { Examined } from "./examine.ts";
import type { Guarded } from "./guard.ts";
import type { Removed } from "./remove.ts";
import type { Run } from "./run.ts";

export interface Phases {
  begun: Begun;
  examined: Examined;
  sorted: Sorted | undefined;
  guarded: Guarded;
  attributed: Attributed | undefined;
  removed: Removed;
}

export async function summarise(run: Run, phases: Phases): Promise<EnforceReport> {
  const { opts, policy, base } = run;
  const { gitlab } = opts;
  const { begun, examined, sorted, guarded, attributed, removed } = phases;
  const { plan } = removed;
  // Each phase's warnings and requests, in the order the phases ran.
  const said = [begun, examined, sorted, guarded, attributed, removed];
  const warnings = said.flatMap((phase) => phase?.warnings ?? []);
  const scopeChanged = base && scopeWarning(base, opts.policy);
  if (scopeChanged) warnings.push(scopeChanged);
  const { outOfScope: _, ...counted } = examined.tally;
  const { groupReads, ...requestStats } = sumStats(said.flatMap((phase) => phase?.stats ?? []));
  const noticed = noticeReport(policy, plan, sorted);
  const finishedAt = (await run.steps.step("ended", async () => ({ at: Date.now() }))).at;
  const report: EnforceReport = makeReport({ job: "enforce", dryRun: !opts.apply, policy, gitlab, startedAt: begun.startedAt, finishedAt }, {
    summary: {
      ...counted,
      groupReads,
      strays: plan.length,
      removed: countStatus(plan, "done"),
      alreadyGone: countStatus(plan, "already-gone"),
      skipped: countStatus(plan, "skipped"),
      failed: countStatus(plan, "failed"),
      maxRemovals: run.limit,
      guard: guarded.tripped ? "tripped" : "ok",
      complete: examined.complete && !removed.stopped,
      matched: examined.matched ?? null,
      ...(noticed.summary && { notices: noticed.summary }),
      ...(examined.unexamined.count ? { unexamined: examined.unexamined.count } : {}),
      ...(examined.stopped && { cutShort: true as const }),
    },
    actions: plan,
    stats: { ...requestStats, auditRequests: attributed?.auditRequests ?? examined.attribution.requests, ...attributionStat(attributed), ...concurrencyStat([gitlab.http]), durationMs: finishedAt - begun.startedAt },
    warnings,
  });
  if (noticed.notices) report.notices = noticed.notices;
  if (begun.unreadTargets.length) report.unreadTargets = begun.unreadTargets;
  if (examined.unexamined.parts.length) report.unexamined = examined.unexamined.parts;
  // Its removals carry the authors the plan's attribution found (the same shares).
  return base ? { ...report, comparison: comparisonOf(base, opts.policy, examined.differences) } : report;
}
