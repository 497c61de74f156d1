/**
 * Enforce's guard, judged on the whole plan: too many removals (or notices to open) trip it, and so,
 * under gitlab.guard.unmatchedRules: refuse, does a rule that matched nothing, or an override naming no
 * group. Looking at them takes the reads of the steps "rules", "literal rules" (rules.ts) and "overrides".
 * A look-up GitLab fails on (shares/literal-rules.ts) is warned of, and the run goes on to its report; under
 * refuse, what it leaves unconfirmed is held as a typo would be (the safe side): an override (no run records
 * what one matched), and in a targeted run a rule the last full run under the same policy did not find
 * matching. The rules a full run looks up matched nothing, refused whatever the look-up says.
 */
import { emptyRuleCounts, unmatchedRules, type RuleRef } from "../../../policy/index.ts";
import { countStatus } from "../../report/index.ts";
import { count } from "../../view.ts";
import { shareKey } from "../../shares/plan.ts";
import { literalWarnings, namesAny, namesNothing, touchedBy, overBudgetWarning, refusedBefore, ruleName, sweptRules, sweptTooMany, sweptWarning, unjudged, unmatchedWarning, unmatchedWarnings } from "../rules.ts";
import { overridesNamingNothing } from "../../shares/literal-rules.ts";
import type { Begun } from "./begin.ts";
import type { Examined } from "./examine.ts";
import type { Run, Said } from "./run.ts";

export interface Guarded extends Said {
  /** The run removes nothing, and opens no notice. */
  tripped: boolean;
  /** Removals planned, counted after the notices sorted the strays. */
  removals: number;
  /** Taken from the removal budget targeted runs share (opts.removalBudget): the removals not made are given back. */
  reserved?: true;
}

export async function guard(run: Run, begun: Begun, examined: Examined): Promise<Guarded> {
  const { opts, steps, policy, targets, limit, inStep } = run;
  const { gitlab } = opts;
  const { plan, stopped, matched, unexamined } = examined;
  const { now } = begun;
  const warnings: string[] = [];
  const stats: Said["stats"] = [];
  // A removal GitLab refused for good in the last full run under this policy is tried again, but not counted: as many
  // standing refusals (a token without Owner of the sharing groups) would otherwise trip the guard on every run.
  // Marked so (refusedBefore), the report says which, and the next sweep record keeps them should this run attempt none.
  const refusedLast = refusedBefore(policy, opts.lastSweep);
  let refusedAgain = 0;
  for (const action of plan) if (action.status === "planned" && refusedLast.has(shareKey(action))) (action.refusedBefore = true), refusedAgain++;
  const [removals, notify] = [countStatus(plan, "planned") - refusedAgain, countStatus(plan, "notify")];
  if (refusedAgain) warnings.push(`guard: ${count(refusedAgain, "planned removal")} GitLab refused in the last full run (${opts.lastSweep!.at}) under this same policy, tried again but not counted against gitlab.guard.maxRemovals: give the token the rights they need (Owner of a sharing group, Maintainer of a project), or remove them by hand`);

  // Only an examination of the whole scope to its end shows that a rule matched nothing (targets.ts); a
  // targeted one shows only that a rule naming a literal path the instance does not have is a typo (rules.ts).
  // One that left parts unexamined (GitLab failed on them) is judged on what it examined: a rule may match
  // only there, but a run that removes must not pass a typo by, so under refuse it refuses (the safe side).
  const found = !stopped && matched && !targets ? unmatchedRules(policy, matched, now) : [];
  // Of those, a rule a full run under this same policy found matching is no typo, its text being the one that matched (rules.ts
  // sweepAfter): it matches nothing now as what it matched is gone (a Maintainer removing the one share it matched, deleting a
  // project it names, must not stop every removal), or it matches in a part of the scope not examined. Refused only where a
  // path it names moved (a group renamed: the shares it allowed are stray now, under the new path) or could not be looked up.
  const before = opts.lastSweep?.policySha256 === policy.source.sha256 ? opts.lastSweep : undefined;
  const namedBefore = new Set(before?.unmatched);
  const matchedLastSweep = (rule: RuleRef) => before !== undefined && !namedBefore.has(ruleName(rule));
  const matchedOnce = found.filter(matchedLastSweep);
  if (matchedOnce.length) {
    const why = unexamined.count ? `${count(unexamined.count, "part")} of the scope could not be examined, where they may match` : "what they matched is gone";
    warnings.push(`${count(matchedOnce.length, "rule")} (${matchedOnce.map(ruleName).join(", ")}) matched nothing${unexamined.count ? " in what this run examined" : ""}, but matched in the last full run (${before!.at}) under this same policy: not refused, as ${why} (unless a path they name moved or could not be looked up)`);
  }
  let unmatched = found.filter((rule) => !matchedOnce.includes(rule));
  // A comparison's proposed policy is a merge request author's, and its warnings go on the merge request:
  // its paths are not looked up with the run's token, or the wording would tell the author whether a
  // path exists (private ones included).
  if (found.length && run.base) warnings.push(...unmatched.map((rule) => unmatchedWarning(policy, rule)));
  else if (found.length) {
    const named = await steps.step("rules", () => run.measured(async () => await unmatchedWarnings(gitlab, policy, found, inStep)));
    warnings.push(...named.warnings);
    stats.push(named.stats);
    // A step recorded by an older Warden (without movedOrUnknown) refuses them all, the safe side.
    const unsure = named.movedOrUnknown && new Set(named.movedOrUnknown);
    unmatched = found.filter((rule) => !matchedOnce.includes(rule) || !unsure || unsure.has(ruleName(rule)));
  }
  if (unmatched.length && unexamined.count) warnings.push(`the rules above were judged on what this run examined: ${count(unexamined.count, "part")} of the scope could not be examined, where they may match`);
  // Counts unknown (a step replayed from older code): every rule is looked at, which costs only reads.
  const untouched = targets && !stopped ? unmatchedRules(policy, matched ?? emptyRuleCounts(policy), now) : [];
  const typos = untouched.length ? await steps.step("literal rules", () => run.measured(async () => ({ missing: await namesNothing(gitlab, policy, untouched, inStep, opts.apply ? touchedBy(plan) : undefined) }))) : undefined;
  if (typos) {
    warnings.push(...typos.missing.flatMap((looked) => literalWarnings(policy, looked)));
    stats.push(typos.stats);
  }
  // And the globs the last full run under this same policy found matching nothing (rules.ts), if this run matched none either.
  const swept = sweptRules(policy, opts.lastSweep, untouched);
  warnings.push(...swept.map((rule) => sweptWarning(policy, opts.lastSweep!, rule)));
  const named = new Set([...(typos?.missing ?? []).filter(namesAny).map(({ rule }) => rule), ...swept].map(ruleName));
  const refused = unmatched.length ? unmatched : untouched.filter((rule) => named.has(ruleName(rule)));
  // A path GitLab failed to answer for may be a typo as well as not: held as one (a watch's or stream's subject is retried),
  // unless the last full run under this same policy found its rule matching, which a typo's never does.
  const unconfirmedRules = (typos?.missing ?? []).filter((looked) => looked.unknown && !namesAny(looked) && !matchedLastSweep(looked.rule)).map(({ rule }) => rule);
  // An override naming a group the instance does not have sets onStray and grace for nothing (a typo), and its shares are
  // removed as the default says: named and refused as such a rule is. Not in a comparison, for the reason above.
  const nowhere = policy.gitlab.scope?.overrides.length && !run.base && !stopped
    ? await steps.step("overrides", () => run.measured(() => overridesNamingNothing(gitlab, policy, inStep, opts.apply ? touchedBy(plan) : undefined)))
    : undefined;
  if (nowhere) {
    warnings.push(...nowhere.warnings, ...(nowhere.unknown ?? []));
    stats.push(nowhere.stats);
  }
  const misnamed = nowhere?.warnings.length ?? 0;
  // An override whose group could not be looked up may name none: refused as one that does (no run records what an override matched).
  const unconfirmed = nowhere?.unknown?.length ?? 0;
  const refuse = refused.length + misnamed + unconfirmedRules.length + unconfirmed > 0 && policy.gitlab.guard.unmatchedRules === "refuse";
  // A targeted run's plan is a few subjects: the last full run's plan, under the same policy, is what the guard judges (rules.ts).
  const held = targets && removals + notify > 0 ? sweptTooMany(policy, opts.lastSweep) : undefined;
  if (held) warnings.push(held);
  // The guard counts removals; the same limit bounds the notices a run opens (a policy's typo must not open thousands of issues).
  let tripped = removals > limit || notify > limit || (refuse && opts.apply === true) || held !== undefined;
  // A run that would remove, targeted, under a policy no full run has judged: its removals come out of a budget shared with the others.
  const budget = opts.removalBudget;
  const reserving = !tripped && targets && opts.apply === true && removals > 0 && budget && unjudged(policy, opts.lastSweep);
  if (reserving) {
    tripped = !(await budget.reserve(policy.source.sha256, removals, limit, inStep));
    if (tripped) warnings.push(overBudgetWarning(limit));
  }
  if (removals > limit) {
    warnings.push(`guard: ${count(removals, "removal")} planned (project and group shares together), more than gitlab.guard.maxRemovals (${limit}); nothing was removed`);
  }
  if (notify > limit) warnings.push(`guard: ${count(notify, "notice")} to open, more than gitlab.guard.maxRemovals (${limit}), which bounds the notices a run opens too; nothing was changed`);
  if (refuse) {
    const rules = [
      ...(refused.length ? [`${count(refused.length, "rule")} matched nothing (${refused.map(ruleName).join(", ")})`] : []),
      ...(unconfirmedRules.length ? [`${count(unconfirmedRules.length, "rule")} named a path that could not be looked up (${unconfirmedRules.map(ruleName).join(", ")})`] : []),
    ];
    const overrides = [...(misnamed ? [`${count(misnamed, "override")} of gitlab.scope named no group`] : []), ...(unconfirmed ? [`${count(unconfirmed, "override")} of gitlab.scope could not be looked up`] : [])];
    const which = `${[...rules, ...overrides].join(" and ")}, and gitlab.guard.unmatchedRules is refuse`;
    const fix = `${refused.length + misnamed ? "correct or remove each" : "the next run asks again"}, or set gitlab.guard.unmatchedRules: warn to accept them`;
    warnings.push(opts.apply ? `guard: ${which}; nothing was removed (${fix})` : `guard: ${which}: an applying run would remove nothing (${fix})`);
  }
  return { tripped, removals, warnings, stats, ...(reserving && !tripped && { reserved: true as const }) };
}
