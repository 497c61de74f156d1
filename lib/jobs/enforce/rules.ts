/**
 * The rules that matched nothing, each named in a warning: a rule naming a path the instance does not
 * have says so (one GET per literal path, shared between rules); any other is judged by what it
 * matched. lib/policy/rules.ts says which rules those are.
 *
 * A targeted run (--target, the watch, the Events stream) sees part of the scope, so it cannot tell a
 * glob that matches nothing; but a literal path the instance does not have is a typo wherever the run
 * looks, and its rule protects nothing: namesNothing (shares/literal-rules.ts, which `warden apply`
 * asks too) finds those, so the guard stops every applying run, targeted or not.
 *
 * A glob that matched nothing only a full run can tell: the functions remember the last full run's
 * (LastSweep, functions/shared/state/last-sweep.ts) and a targeted run refuses those rules as that run
 * did, for the same policy only (a policy changed since, the fix among the changes, clears them).
 */
import type { GitLabClient } from "../../gitlab/index.ts";
import { countStatus } from "../report/index.ts";
import { literalWarnings, lookUpLiterals, namesAny } from "../shares/literal-rules.ts";
import { shareKey, type ShareRemoval } from "../shares/plan.ts";
import { ruleSubject, ruleText, type Policy, type RuleCounts, type RuleRef } from "../../policy/index.ts";

export { FOUND_TTL_MS, literalWarnings, namesAny, namesNothing, touchedBy, type RuleMissing, type Touched } from "../shares/literal-rules.ts";

/** What the last full run found: the rules (`allow[1]`) that matched nothing under the policy of this SHA-256, and whether it planned more than the guard allows. */
export interface LastSweep {
  policySha256: string;
  unmatched: string[];
  /** When that run started (ISO 8601). */
  at: string;
  /** It planned more removals (or notices) than gitlab.guard.maxRemovals: a targeted run under the same policy removes nothing either (guard.ts). */
  tooMany?: true;
  /**
   * The shares (shareKey) whose removal GitLab refused in a way another try meets again (`lasting`: a
   * 403, a group share kept without Owner), at most MAX_REFUSED: tried again by each run under the same
   * policy, but not counted by its guard, or that many standing refusals would trip it for good.
   */
  refused?: string[];
}

/** The most refused shares a LastSweep names (a DynamoDB item holds 400 KB; a key is some 30 bytes). */
export const MAX_REFUSED = 5_000;

/** `allow[1]`: how the guard and LastSweep name a rule. */
export function ruleName({ list, index }: RuleRef): string {
  return `${list}[${index}]`;
}

/**
 * What a full (untargeted) run found, to remember — only its caller knows it was one: undefined
 * unless its examination went to the scope's end with its rules counted. Every rule with no match is named (a lapsed exemption too: the targeted run that reads it
 * keeps only the rules it would call unmatched itself, unmatchedRules with its own clock). A run
 * that left parts unexamined (GitLab failing on a group, for ever perhaps) is remembered too: not
 * remembered, no full run would ever judge the policy while the group stays broken, and the stream's
 * runs would stay on their shared budget (guard.ts) for good. What it found matching nothing
 * is kept only where the record before it, under the same policy, agrees (sweepAfter); with none, all of it
 * (the safe side).
 */
export function sweepOf(report: {
  startedAt: string;
  policy: { sha256: string } | null;
  summary: { matched: RuleCounts | null; maxRemovals: number; cutShort?: true };
  actions: readonly ShareRemoval[];
}): LastSweep | undefined {
  const { matched, cutShort, maxRemovals } = report.summary;
  if (cutShort || !matched || !report.policy) return undefined;
  const unmatched = (["allow", "exempt"] as const).flatMap((list) => matched[list].flatMap((n, index) => (n ? [] : [ruleName({ list, index })])));
  // The guard's own count (phases/guard.ts): removals or notices over the limit leave every one of them as planned;
  // those GitLab refused in the run before are not counted.
  const planned = report.actions.filter((a) => a.status === "planned" && a.refusedBefore !== true).length;
  const tooMany = planned > maxRemovals || countStatus(report.actions, "notify") > maxRemovals;
  // Refused now, or refused before and not attempted now (a dry run, a tripped guard): remembered for the next.
  const refused = report.actions.filter((a) => (a.status === "failed" && a.lasting === true) || (a.status === "planned" && a.refusedBefore === true)).slice(0, MAX_REFUSED).map(shareKey);
  return { policySha256: report.policy.sha256, unmatched, at: report.startedAt, ...(tooMany && { tooMany: true as const }), ...(refused.length && { refused }) };
}

/**
 * The record to keep after `next`: a rule it found matching nothing stays named only if the record before it
 * under the same policy named it too. Matched there once, it is no typo (the text that matched is unchanged):
 * it may match in a part not examined, or what it matched is gone (a Maintainer removed the one share it
 * matched), which must not make it a typo that stops every removal from then on. So `unmatched` names the
 * rules no full run under the policy has found matching, narrowing from the policy's first full run.
 */
export function sweepAfter(previous: LastSweep | undefined, next: LastSweep): LastSweep {
  if (previous?.policySha256 !== next.policySha256) return next;
  const before = new Set(previous.unmatched);
  return { ...next, unmatched: next.unmatched.filter((rule) => before.has(rule)) };
}

/** The shares GitLab refused to remove in the last full run under this same policy (LastSweep.refused): the guard does not count them. */
export function refusedBefore(policy: Policy, sweep: LastSweep | undefined): ReadonlySet<string> {
  return new Set(sweep?.policySha256 === policy.source.sha256 ? (sweep.refused ?? []) : []);
}

/**
 * A targeted run under the policy of a full run that planned more than the guard allows trips the guard
 * too: each targeted run plans a few subjects (the watch's, the stream's: anyone holding the streaming
 * token chooses them), so the guard judged alone never holds what the full run's held back. Until a
 * full run passes it (the policy mended, or the limit raised: a new policy), targeted runs remove nothing.
 */
export function sweptTooMany(policy: Policy, sweep: LastSweep | undefined): string | undefined {
  if (!sweep?.tooMany || sweep.policySha256 !== policy.source.sha256) return undefined;
  return `guard: the last full run (${sweep.at}), under this same policy, planned more removals than gitlab.guard.maxRemovals allows, so this run removes nothing either; review the policy, then run warden enforce (a full run that passes the guard lets the watch and the events remove again)`;
}

/**
 * Whether a targeted run's removals must come out of the budget targeted runs share (RemovalBudget): until
 * a full run under this policy passes the guard (a fresh deployment, or any change of the policy), the
 * guard has judged no plan of it, and the subjects are chosen by whoever sends the events.
 */
export function unjudged(policy: Policy, sweep: LastSweep | undefined): boolean {
  return sweep?.policySha256 !== policy.source.sha256;
}

export function overBudgetWarning(limit: number): string {
  return (
    `guard: no full run has judged this policy yet, and this run's removals would take those of the targeted runs under it past gitlab.guard.maxRemovals (${limit}) in all; ` +
    "nothing was removed: review the policy, then run warden enforce (a full run that passes the guard lets them remove again)"
  );
}

/** Of `untouched` (the rules a targeted run matched nothing with), those the last full run under the same policy found matching nothing. */
export function sweptRules(policy: Policy, sweep: LastSweep | undefined, untouched: RuleRef[]): RuleRef[] {
  if (!sweep || sweep.policySha256 !== policy.source.sha256) return [];
  const named = new Set(sweep.unmatched);
  return untouched.filter((rule) => named.has(ruleName(rule)));
}

export function sweptWarning(policy: Policy, sweep: LastSweep, rule: RuleRef): string {
  return `${ruleText(policy, rule)} matched nothing in the last full run (${sweep.at}), under this same policy`;
}

/**
 * Each rule that matched nothing named in a warning, with what its literal paths' look-ups found (a path GitLab failed
 * to answer for is named with its answer); and the rules (ruleName) a path of which moved (GitLab answers its old path
 * with the new) or could not be looked up.
 */
export async function unmatchedWarnings(gitlab: GitLabClient, policy: Policy, rules: RuleRef[], signal?: AbortSignal): Promise<{ warnings: string[]; movedOrUnknown: string[] }> {
  const looked = await lookUpLiterals(gitlab, policy, rules, signal);
  return {
    warnings: looked.flatMap((one) => [...(namesAny(one) ? [] : [unmatchedWarning(policy, one.rule)]), ...literalWarnings(policy, one)]),
    movedOrUnknown: looked.filter((one) => one.moved !== undefined || one.unknown !== undefined).map((one) => ruleName(one.rule)),
  };
}

/** The warning for a rule that matched nothing, without asking whether the paths it names exist. */
export function unmatchedWarning(policy: Policy, rule: RuleRef): string {
  return `${ruleText(policy, rule)} matched no ${ruleSubject(policy, rule)} in scope`;
}
