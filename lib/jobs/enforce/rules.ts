/**
 * The rules a complete examination found matching nothing, each named in a warning: a rule naming a
 * path the instance does not have says so (one GET per literal path, shared between rules); any other
 * is judged by what it matched. lib/policy/rules.ts says which rules those are.
 */
import type { GitLabClient } from "../../gitlab/index.ts";
import { literalPaths, ruleSubject, ruleText, type LiteralPath, type Policy, type RuleRef } from "../../policy/index.ts";

export async function unmatchedWarnings(gitlab: GitLabClient, policy: Policy, rules: RuleRef[], signal?: AbortSignal): Promise<string[]> {
  const looked = new Map<string, Promise<boolean>>();
  // GitLab paths are case-insensitive: one look-up per path, however a policy spells it.
  const exists = ({ kind, path }: LiteralPath): Promise<boolean> => {
    const key = `${kind} ${path.toLowerCase()}`;
    let found = looked.get(key);
    if (found === undefined) {
      found = kind === "project" ? gitlab.findProject(path, signal).then(Boolean) : gitlab.findNamespace(path, signal).then((ns) => ns?.kind === "group");
      looked.set(key, found);
    }
    return found;
  };
  return Promise.all(
    rules.map(async (rule) => {
      const named = literalPaths(policy, rule);
      const found = await Promise.all(named.map(exists));
      const missing = named.filter((_, i) => !found[i]).map(({ kind, path }) => `${kind} ${path}`);
      const text = ruleText(policy, rule);
      if (missing.length === 0) return `${text} matched no ${ruleSubject(policy, rule)} in scope`;
      return `${text} names ${missing.join(" and ")}, which the instance does not have (or the token cannot see): it matched nothing`;
    }),
  );
}
