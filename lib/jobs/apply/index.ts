/**
 * The apply job (`warden apply plan.json`): removes only what a saved plan lists. Each subject is read
 * again first, and a share is removed only if it is still there as planned (level, expiry, custom role)
 * and still stray under the plan's policy; anything else is skipped with the reason. A dry run (the
 * default) makes the same reads and judgements and removes nothing.
 */
import pMap from "p-map";
import type { GitLabClient } from "../../gitlab/index.ts";
import { emptyRuleCounts, maxRemovals, unmatchedRules, unsupportedOnStray } from "../../policy/index.ts";
import { literalWarnings, namesNothing, touchedBy } from "../shares/literal-rules.ts";
import { DEFAULT_REMOVAL_CONCURRENCY, failedRemoval, judgeAgain, removeShares } from "../shares/remove.ts";
import { PlanFileError } from "../shares/plan-file.ts";
import { makeReport } from "../envelope.ts";
import { auditedUnder, countStatus, errorText, jobStats, stoppedMidRequest } from "../report/index.ts";
import { SHARE_OPS } from "../shares/kinds.ts";
import { subjectKey, subjectOf, type ShareRemoval } from "../shares/plan.ts";
import { count } from "../view.ts";
import type { ApplyOptions, ApplyReport } from "./summary.ts";

export async function applyPlan(opts: ApplyOptions): Promise<ApplyReport> {
  const { gitlab, policy, plan, signal } = opts;
  const unsupported = opts.apply ? unsupportedOnStray(policy) : undefined;
  if (unsupported) throw new PlanFileError(unsupported);
  const startedAt = Date.now();
  const warnings: string[] = [];
  // Who added each share, as an unsigned plan says it, is the editor's word: not repeated where a share is removed.
  const actions = plan.removals.map(({ addedBy, attribution, ...r }) => ({ ...r, ...(opts.signed && { addedBy, attribution }), status: "planned" }) as ShareRemoval);
  const limit = maxRemovals(policy);
  const refusing = policy.gitlab?.guard.unmatchedRules === "refuse";
  // More than the guard allows: nothing will be removed, so no share is read either (a plan file is an
  // artifact others can edit, and one listing a million removals must not cost a million reads).
  const oversized = actions.length > limit;
  if (oversized) warnings.push(`guard: the plan lists ${count(actions.length, "removal")}, more than its policy's gitlab.guard.maxRemovals (${limit}); nothing was read or removed`);
  // The token first: a refused one is one error, not a failure per share.
  await gitlab.currentUser(signal);
  // A rule naming a path the instance does not have (or has moved) is a typo wherever the plan was made: a
  // targeted run's plan records no rule as matching nothing, though its own guard refused for such a rule. A path
  // GitLab failed to answer for may be such a typo too: held as one, the plan applied again once GitLab answers.
  const typos = oversized ? [] : await namesNothing(gitlab, policy, unmatchedRules(policy, emptyRuleCounts(policy), opts.now ?? new Date()), signal, touchedBy(actions));
  warnings.push(...typos.flatMap((looked) => literalWarnings(policy, looked)));
  const refused = refusing ? [...new Set([...plan.unmatchedRules, ...typos.map(({ rule }) => `${rule.list}[${rule.index}]`)])] : [];
  const tripped = oversized || (refused.length > 0 && opts.apply === true);
  if (refused.length) {
    const which = `${count(refused.length, "rule")} matched nothing (${refused.join(", ")}) in the plan's examination or named a path the instance does not have (or one GitLab failed to answer for), and gitlab.guard.unmatchedRules is refuse`;
    warnings.push(opts.apply ? `guard: ${which}; nothing was removed` : `guard: ${which}: an applying run would remove nothing`);
  }
  const judging = { policy, now: opts.now ?? new Date(), asPlanned: true, concurrency: opts.concurrency ?? DEFAULT_REMOVAL_CONCURRENCY };
  const { stopped } = oversized
    ? { stopped: false }
    : opts.apply && !tripped
      ? await removeShares(actions, { ...judging, gitlab, maxPlanAgeMs: 0, judgedAt: new Map(), signal, audit: auditedUnder(opts.audit, policy), warnings })
      : await judgeOnly(actions, gitlab, judging, signal);
  const left = countStatus(actions, "planned");
  if (stopped && signal?.aborted) warnings.push(`stopped (${errorText(signal.reason)}) with ${left} of ${count(actions.length, "removal")} still planned: apply the plan again to finish`);
  return makeReport({ job: "apply", dryRun: !opts.apply, policy, gitlab, startedAt }, {
    summary: {
      strays: actions.length,
      removed: countStatus(actions, "done"),
      alreadyGone: countStatus(actions, "already-gone"),
      skipped: countStatus(actions, "skipped"),
      failed: countStatus(actions, "failed"),
      maxRemovals: limit,
      guard: tripped ? "tripped" : "ok",
      complete: !stopped,
    },
    actions,
    stats: jobStats([gitlab.http], startedAt),
    warnings,
  });
}

/** The reads and judgements of an apply, nothing removed: a share still to remove stays "planned". */
async function judgeOnly(actions: ShareRemoval[], gitlab: GitLabClient, judging: Parameters<typeof judgeAgain>[1] & { concurrency: number }, signal?: AbortSignal): Promise<{ stopped: boolean }> {
  let stopped = false;
  await pMap(Map.groupBy(actions, subjectKey).values(), async (group) => {
    if (signal?.aborted) return void (stopped = true);
    const first = group[0]!;
    const subject = SHARE_OPS[first.kind].read(gitlab, subjectOf(first).id, signal);
    for (const action of group) {
      try {
        Object.assign(action, judgeAgain(action, judging, await subject));
      } catch (err) {
        if (signal?.aborted) stopped = true;
        Object.assign(action, failedRemoval(err, signal, "reading the share"));
      }
    }
  }, { concurrency: judging.concurrency });
  return { stopped };
}
