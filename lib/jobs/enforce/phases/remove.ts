/**
 * Enforce's removals, in an applying run whose guard held over a plan not cut short (a part GitLab
 * failed to answer for leaves the plan partial, not cut short: each stray is judged on its own): the removal steps
 * (removal-steps.ts, over shares/remove.ts), then the step "write notices" that opens and closes the
 * notices the sorting decided (lib/jobs/notices/), unless the removals stopped short.
 */
import { settleNotices, type Sorted } from "../../notices/index.ts";
import { auditedUnder, countStatus, errorText, type AuditSink } from "../../report/index.ts";
import type { ShareRemoval } from "../../shares/plan.ts";
import { count } from "../../view.ts";
import { removeInSteps } from "../removal-steps.ts";
import { DEFAULT_REMOVAL_CONCURRENCY } from "../summary.ts";
import type { Begun } from "./begin.ts";
import type { Examined } from "./examine.ts";
import type { Guarded } from "./guard.ts";
import { noticing } from "./notices.ts";
import type { Run, Said } from "./run.ts";

export interface Removed extends Said {
  /** The plan as the run leaves it: each action's outcome, or the examined plan when nothing was applied. */
  plan: ShareRemoval[];
  /** The removals stopped before the end (the run's signal or time limit): the run is incomplete. */
  stopped: boolean;
}

export async function remove(run: Run, begun: Begun, examined: Examined, guarded: Guarded, sorted: Sorted | undefined): Promise<Removed> {
  const { opts, policy } = run;
  if (guarded.tripped || !opts.apply || examined.stopped) return { plan: examined.plan, stopped: false, warnings: [], stats: [] };
  const { removals } = guarded;
  const { signal, onProgress } = opts;
  // Each settled removal writes its audit line (a group share's confirmation, a second): the progress counts the first.
  let settled = 0;
  const audited = auditedUnder(opts.audit, policy);
  const audit: AuditSink | undefined = onProgress
    ? { info: (message, fields) => (audited?.info(message, fields), fields?.["confirmation"] || onProgress({ phase: "removing", done: Math.min(++settled, removals), total: removals })) }
    : audited;
  const removed = await removeInSteps({
    gitlab: opts.gitlab, policy, now: begun.now, found: examined.found, concurrency: opts.concurrency ?? DEFAULT_REMOVAL_CONCURRENCY, maxPlanAgeMs: opts.maxPlanAgeMs ?? 60_000, signal, audit, runEnd: begun.runEnd, measured: run.measured,
  }, run.steps);
  const warnings = [...removed.warnings];
  const stats = [...removed.stats];
  // What the shared budget gave this run and it surely did not remove goes back (a refusal, a share another
  // run removed first, one not reached): else a share GitLab refuses, named by event after event, uses it up.
  const unspent = guarded.reserved ? removed.plan.filter((a) => ["planned", "already-gone", "skipped"].includes(a.status) || (a.status === "failed" && a.lasting === true)).length : 0;
  // Not giving it back keeps the budget on the safe side: worth a warning, not the run's failure.
  if (unspent) await opts.removalBudget!.release(policy.source.sha256, unspent, signal).catch((err: unknown) => warnings.push(`${count(unspent, "removal")} not made could not be given back to the removal budget targeted runs share (${errorText(err)})`));
  const left = countStatus(removed.plan, "planned");
  if (left) {
    const why = signal?.aborted ? errorText(signal.reason) : `the run's time limit came at ${new Date(begun.runEnd).toISOString()}`;
    warnings.push(`stopped before ${left} of ${count(removals, "removal")} (${why}); the next run picks them up`);
  }
  // The notices are written over the plan as the removals left it.
  const written = sorted && !removed.stopped ? await settleNotices({ ...noticing(run, begun, removed.plan), audit: audited }, sorted, run.steps) : undefined;
  warnings.push(...(written?.warnings ?? []));
  if (written) stats.push(...written.stats);
  return { plan: removed.plan, stopped: removed.stopped, warnings, stats };
}
