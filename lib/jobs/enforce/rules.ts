/**
 * The rules that matched nothing, each named in a warning: a rule naming a path the instance does not
 * have says so (one GET per literal path, shared between rules); any other is judged by what it
 * matched. lib/policy/rules.ts says which rules those are.
 *
 * A targeted run (--target, the watch, the Events stream) sees part of the scope, so it cannot tell a
 * glob that matches nothing; but a literal path the instance does not have is a typo wherever the run
 * looks, and its rule protects nothing: namesNothing finds those, so the guard stops every applying
 * run, targeted or not. A path is found only where GitLab answers with the project or group at that very
 * path: it redirects a moved project's (and a renamed group's) old path, which a rule's glob no longer
 * matches, so such a rule protects nothing either. A path found is remembered for the process (a warm
 * Lambda runs the watch every minute, the stream every event) for FOUND_TTL_MS, with what it named,
 * unless an applying run would change that project or group (a share of it, or with it, planned): then
 * it is asked again, since the event that started the run may be its move. A path not found is asked again
 * every run, so the fix (the group created, the rule corrected) takes effect at once.
 *
 * A glob that matched nothing only a full run can tell: the functions remember the last full run's
 * (LastSweep, functions/shared/state/last-sweep.ts) and a targeted run refuses those rules as that run
 * did, for the same policy only (a policy changed since, the fix among the changes, clears them).
 */
import type { GitLabClient } from "../../gitlab/index.ts";
import { countStatus } from "../report/index.ts";
import { literalPaths, ruleSubject, ruleText, type LiteralPath, type Policy, type RuleCounts, type RuleRef } from "../../policy/index.ts";

/** How long a path found stays found: a group renamed or deleted meanwhile is noticed within this. */
export const FOUND_TTL_MS = 5 * 60_000;
/** Entries kept at most (a policy names tens of paths; a process serves one or two instances). */
const MAX_FOUND = 1_000;
/** `origin kind path` → when the path was found, and the id of the project or group there. */
const found = new Map<string, { at: number; id: number }>();

/**
 * A rule and the literal paths it names that the instance does not have (or the token cannot see),
 * and those GitLab answers with a project or group it moved elsewhere (`moved`, "project acme/api" →
 * "acme/platform/api"; absent in a step recorded before it was kept).
 */
export interface RuleMissing {
  rule: RuleRef;
  missing: string[];
  moved?: { named: string; now: string }[];
}

/** The projects and groups a run would change (a share of them, or with them): their literal paths are looked up afresh. */
export interface Touched {
  project: ReadonlySet<number>;
  group: ReadonlySet<number>;
}

/** What the last full run found: the rules (`allow[1]`) that matched nothing under the policy of this SHA-256, and whether it planned more than the guard allows. */
export interface LastSweep {
  policySha256: string;
  unmatched: string[];
  /** When that run started (ISO 8601). */
  at: string;
  /** It planned more removals (or notices) than gitlab.guard.maxRemovals: a targeted run under the same policy removes nothing either (guard.ts). */
  tooMany?: true;
}

/** `allow[1]`: how the guard and LastSweep name a rule. */
export function ruleName({ list, index }: RuleRef): string {
  return `${list}[${index}]`;
}

/**
 * What a full (untargeted) run found, to remember — only its caller knows it was one: undefined
 * unless it examined everything it set out to with its rules counted. Every rule with no match is named (a lapsed exemption too: the targeted run that reads it
 * keeps only the rules it would call unmatched itself, unmatchedRules with its own clock).
 */
export function sweepOf(report: {
  startedAt: string;
  policy: { sha256: string } | null;
  summary: { complete: boolean; matched: RuleCounts | null; maxRemovals: number };
  actions: readonly { status: string }[];
}): LastSweep | undefined {
  const { matched, complete, maxRemovals } = report.summary;
  if (!complete || !matched || !report.policy) return undefined;
  const unmatched = (["allow", "exempt"] as const).flatMap((list) => matched[list].flatMap((n, index) => (n ? [] : [ruleName({ list, index })])));
  // The guard's own count (phases/guard.ts): removals or notices over the limit leave every one of them as planned.
  const tooMany = countStatus(report.actions, "planned") > maxRemovals || countStatus(report.actions, "notify") > maxRemovals;
  return { policySha256: report.policy.sha256, unmatched, at: report.startedAt, ...(tooMany && { tooMany: true as const }) };
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

export async function unmatchedWarnings(gitlab: GitLabClient, policy: Policy, rules: RuleRef[], signal?: AbortSignal): Promise<string[]> {
  return (await lookUp(gitlab, policy, rules, signal)).map((looked) => (namesAny(looked) ? missingWarning(policy, looked) : unmatchedWarning(policy, looked.rule)));
}

/** Whether a rule names a path the instance does not have, or one it moved. */
const namesAny = ({ missing, moved }: RuleMissing): boolean => missing.length > 0 || (moved?.length ?? 0) > 0;

/** The warning for a rule that matched nothing, without asking whether the paths it names exist. */
export function unmatchedWarning(policy: Policy, rule: RuleRef): string {
  return `${ruleText(policy, rule)} matched no ${ruleSubject(policy, rule)} in scope`;
}

/** Of `rules`, those naming a literal path the instance does not have; rules naming none ask nothing. */
export async function namesNothing(gitlab: GitLabClient, policy: Policy, rules: RuleRef[], signal?: AbortSignal, touched?: Touched): Promise<RuleMissing[]> {
  const literal = rules.filter((rule) => literalPaths(policy, rule).length > 0);
  return (await lookUp(gitlab, policy, literal, signal, touched)).filter(namesAny);
}

export function missingWarning(policy: Policy, { rule, missing, moved = [] }: RuleMissing): string {
  const parts = [
    ...(missing.length ? [`names ${missing.join(" and ")}, which the instance does not have (or the token cannot see)`] : []),
    ...moved.map(({ named, now }) => `names ${named}, which GitLab has moved to ${now} (a rule matches what is at its path now)`),
  ];
  return `${ruleText(policy, rule)} ${parts.join("; ")}: it matched nothing`;
}

/** Each rule's literal paths looked up: one GET per path not found within FOUND_TTL_MS, shared between rules. */
async function lookUp(gitlab: GitLabClient, policy: Policy, rules: RuleRef[], signal?: AbortSignal, touched?: Touched): Promise<RuleMissing[]> {
  const looked = new Map<string, Promise<Answer>>();
  const now = Date.now();
  // GitLab paths are case-insensitive: one look-up per path, however a policy spells it.
  const exists = ({ kind, path }: LiteralPath): Promise<Answer> => {
    const key = `${gitlab.http.origin} ${kind} ${path.toLowerCase()}`;
    const cached = found.get(key);
    if (cached !== undefined && now - cached.at < FOUND_TTL_MS && !touched?.[kind].has(cached.id)) return Promise.resolve(THERE);
    let answer = looked.get(key);
    if (answer === undefined) {
      const at = kind === "project" ? gitlab.findProject(path, signal).then((p) => p && { id: p.id, path: p.path_with_namespace }) : gitlab.findNamespace(path, signal).then((ns) => (ns?.kind === "group" ? { id: ns.id, path: ns.full_path } : undefined));
      answer = at.then((hit): Answer => {
        if (hit === undefined) return "absent";
        // A redirect's answer: what the rule names is elsewhere now, and its glob does not match it there.
        if (hit.path.toLowerCase() !== path.toLowerCase()) return { movedTo: hit.path };
        remember(key, now, hit.id);
        return THERE;
      });
      looked.set(key, answer);
    }
    return answer;
  };
  return Promise.all(
    rules.map(async (rule) => {
      const named = literalPaths(policy, rule);
      const answers = await Promise.all(named.map(exists));
      const label = ({ kind, path }: LiteralPath) => `${kind} ${path}`;
      const moved = named.flatMap((literal, i) => {
        const answer = answers[i]!;
        return typeof answer === "object" ? [{ named: label(literal), now: answer.movedTo }] : [];
      });
      return { rule, missing: named.filter((_, i) => answers[i] === "absent").map(label), ...(moved.length && { moved }) };
    }),
  );
}

/** What a look-up of a literal path found: the project or group there, nothing, or one GitLab moved elsewhere. */
type Answer = typeof THERE | "absent" | { movedTo: string };
const THERE = "there";

function remember(key: string, at: number, id: number): void {
  if (found.size >= MAX_FOUND) found.clear();
  found.set(key, { at, id });
}
