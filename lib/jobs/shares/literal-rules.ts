/**
 * The literal paths a policy's rules name, looked up on GitLab: a rule naming a path the instance does
 * not have is a typo wherever a run looks, and protects nothing (enforce's guard, rules.ts, and `warden
 * apply`, which judges a plan that may be a targeted run's). A path is found only where GitLab answers
 * with the project or group at that very path: it redirects a moved project's (and a renamed group's)
 * old path, which a rule's glob no longer matches, so such a rule protects nothing either. A path found
 * is remembered for the process (a warm Lambda runs the watch every minute, the stream every event) for
 * FOUND_TTL_MS, with what it named, unless an applying run would change that project or group (a share
 * of it, or with it, planned): then it is asked again, since the event that started the run may be its
 * move. A path not found is asked again every run, so the fix (the group created, the rule corrected)
 * takes effect at once.
 *
 * A look-up GitLab fails (a 500 on one group's data however often asked, a timeout, after lib/http's
 * retries) is no answer: the path is unknown this run, named in a warning with GitLab's answer, and
 * asked again by the next run. Only the run's own failure (its signal; a 401, which every read would meet
 * alike) ends the run, as in the examination (enforce/examine/unexamined.ts): one group GitLab fails on
 * must not stop every run. Which runs that unknown stops is the caller's to say (enforce's guard).
 */
import { HttpError, type GitLabClient } from "../../gitlab/index.ts";
import { literalPaths, ruleText, type LiteralPath, type Policy, type RuleRef } from "../../policy/index.ts";
import { errorText } from "../report/index.ts";
import { subjectOf, type ShareRemoval } from "./plan.ts";

/** How long a path found stays found: a group renamed or deleted meanwhile is noticed within this. */
export const FOUND_TTL_MS = 5 * 60_000;
/** Entries kept at most (a policy names tens of paths; a process serves one or two instances). */
const MAX_FOUND = 1_000;
/** `origin kind path` → when the path was found, and the id of the project or group there. */
const found = new Map<string, { at: number; id: number }>();

/**
 * A rule and the literal paths it names that the instance does not have (or the token cannot see),
 * those GitLab answers with a project or group it moved elsewhere (`moved`, "project acme/api" →
 * "acme/platform/api"), and those it failed to answer for (`unknown`, with its answer); `moved` and
 * `unknown` are absent where there are none, and in a step recorded before they were kept.
 */
export interface RuleMissing {
  rule: RuleRef;
  missing: string[];
  moved?: { named: string; now: string }[];
  unknown?: { named: string; error: string }[];
}

/** The projects and groups a run would change (a share of them, or with them): their literal paths are looked up afresh. */
export interface Touched {
  project: ReadonlySet<number>;
  group: ReadonlySet<number>;
}

/** The projects and groups a plan would change: a share of them, or with them. */
export function touchedBy(plan: readonly ShareRemoval[]): Touched {
  const touched = { project: new Set<number>(), group: new Set<number>() };
  for (const action of plan) {
    touched[action.kind === "project" ? "project" : "group"].add(subjectOf(action).id);
    touched.group.add(action.groupId);
  }
  return touched;
}

/** Whether a rule names a path the instance does not have, or one it moved. */
export const namesAny = ({ missing, moved }: RuleMissing): boolean => missing.length > 0 || (moved?.length ?? 0) > 0;

/** Of `rules`, those naming a literal path the instance does not have, or one GitLab failed to answer for; rules naming none ask nothing. */
export async function namesNothing(gitlab: GitLabClient, policy: Policy, rules: RuleRef[], signal?: AbortSignal, touched?: Touched): Promise<RuleMissing[]> {
  const literal = rules.filter((rule) => literalPaths(policy, rule).length > 0);
  return (await lookUpLiterals(gitlab, policy, literal, signal, touched)).filter((looked) => namesAny(looked) || looked.unknown !== undefined);
}

/** The warnings a rule's look-ups call for: one for the paths it names that the instance does not have (or has moved), one for each GitLab failed to answer for. */
export function literalWarnings(policy: Policy, looked: RuleMissing): string[] {
  const unknown = (looked.unknown ?? []).map(({ named, error }) => `${ruleText(policy, looked.rule)} names ${named}, which could not be looked up: ${error}: ${NOT_KNOWN}`);
  return [...(namesAny(looked) ? [missingWarning(policy, looked)] : []), ...unknown];
}

export function missingWarning(policy: Policy, { rule, missing, moved = [] }: RuleMissing): string {
  const parts = [
    ...(missing.length ? [`names ${missing.join(" and ")}, which the instance does not have (or the token cannot see)`] : []),
    ...moved.map(({ named, now }) => `names ${named}, which GitLab has moved to ${now} (a rule matches what is at its path now)`),
  ];
  return `${ruleText(policy, rule)} ${parts.join("; ")}: it matched nothing`;
}

/** Each rule's literal paths looked up: one GET per path not found within FOUND_TTL_MS, shared between rules. */
export async function lookUpLiterals(gitlab: GitLabClient, policy: Policy, rules: RuleRef[], signal?: AbortSignal, touched?: Touched): Promise<RuleMissing[]> {
  const exists = lookerUp(gitlab, signal, touched);
  return Promise.all(
    rules.map(async (rule) => {
      const named = literalPaths(policy, rule);
      const answers = await Promise.all(named.map(exists));
      const label = ({ kind, path }: LiteralPath) => `${kind} ${path}`;
      const moved: NonNullable<RuleMissing["moved"]> = [];
      const unknown: NonNullable<RuleMissing["unknown"]> = [];
      named.forEach((literal, i) => {
        const answer = answers[i]!;
        if (typeof answer !== "object") return;
        if ("movedTo" in answer) moved.push({ named: label(literal), now: answer.movedTo });
        else unknown.push({ named: label(literal), error: answer.unknown });
      });
      return { rule, missing: named.filter((_, i) => answers[i] === "absent").map(label), ...(moved.length && { moved }), ...(unknown.length && { unknown }) };
    }),
  );
}

/** Looks literal paths up, each once however often asked (and spelled: GitLab paths are case-insensitive). */
function lookerUp(gitlab: GitLabClient, signal?: AbortSignal, touched?: Touched): (literal: LiteralPath) => Promise<Answer> {
  const looked = new Map<string, Promise<Answer>>();
  const now = Date.now();
  return ({ kind, path }) => {
    const key = `${gitlab.http.origin} ${kind} ${path.toLowerCase()}`;
    const cached = found.get(key);
    if (cached !== undefined && now - cached.at < FOUND_TTL_MS && !touched?.[kind].has(cached.id)) return Promise.resolve(THERE);
    let answer = looked.get(key);
    if (answer === undefined) {
      const at = kind === "project" ? gitlab.findProject(path, signal).then((p) => p && { id: p.id, path: p.path_with_namespace }) : gitlab.findNamespace(path, signal).then((ns) => (ns?.kind === "group" ? { id: ns.id, path: ns.full_path } : undefined));
      answer = at.then(
        (hit): Answer => {
          if (hit === undefined) return "absent";
          // A redirect's answer: what the rule names is elsewhere now, and its glob does not match it there.
          if (hit.path.toLowerCase() !== path.toLowerCase()) return { movedTo: hit.path };
          remember(key, now, hit.id);
          return THERE;
        },
        (err: unknown): Answer => {
          // The run's own failure ends it; any other leaves this path unknown this run, and not remembered (above).
          if (signal?.aborted === true || (err instanceof HttpError && err.status === 401)) throw err;
          return { unknown: errorText(err) };
        },
      );
      looked.set(key, answer);
    }
    return answer;
  };
}

/**
 * Warnings for the scope's overrides whose group the instance does not have, or has moved: such an override
 * (a typo, `acme/mobiel`; a group renamed since) sets onStray and grace for nothing, and the shares it was
 * for are removed as the policy's default says, though its author meant them only reported, say. Those
 * whose group GitLab failed to answer for are warned of apart (`unknown`, absent where there are none).
 */
export async function overridesNamingNothing(gitlab: GitLabClient, policy: Policy, signal?: AbortSignal, touched?: Touched): Promise<{ warnings: string[]; unknown?: string[] }> {
  const overrides = policy.gitlab?.scope?.overrides ?? [];
  const exists = lookerUp(gitlab, signal, touched);
  const answers = await Promise.all(overrides.map(({ group }) => exists({ kind: "group", path: group })));
  const warnings: string[] = [];
  const unknown: string[] = [];
  overrides.forEach(({ group }, i) => {
    const answer = answers[i]!;
    const named = `gitlab.scope.overrides[${i}] (group ${JSON.stringify(group)})`;
    if (answer === THERE) return;
    if (typeof answer === "object" && "unknown" in answer) unknown.push(`${named} names a group that could not be looked up: ${answer.unknown}: ${NOT_KNOWN}`);
    else warnings.push(`${named} names ${answer === "absent" ? "a group the instance does not have (or the token cannot see)" : `a group GitLab has moved to ${answer.movedTo}`}: its onStray and grace apply to nothing`);
  });
  return { warnings, ...(unknown.length && { unknown }) };
}

/** What a look-up of a literal path found: the project or group there, nothing, one GitLab moved elsewhere, or no answer (GitLab's error). */
type Answer = typeof THERE | "absent" | { movedTo: string } | { unknown: string };
const THERE = "there";
/** How a warning ends for a path GitLab failed to answer for. */
const NOT_KNOWN = "whether the instance has it is not known this run; the next run asks again";

function remember(key: string, at: number, id: number): void {
  if (found.size >= MAX_FOUND) found.clear();
  found.set(key, { at, id });
}
