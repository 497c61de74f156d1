/**
 * Protected-tag rules that let Developers create the tags they match. GitLab calls such a tag
 * `protected`, yet any Developer can tag a commit of their own with a name the rule matches: a pipeline
 * Warden starts on it (lib/jobs/pipeline/ref.ts) or a policy read at it (lib/config/policy-trust.ts)
 * would run or read what that Developer wrote.
 */
import type { GitLabClient } from "./client.ts";
import { ANY_RUN, wildcardMatches } from "./wildcard.ts";

/** GitLab's access level of Developers, in a protected-tag rule's create_access_levels. */
const DEVELOPER = 30;

/**
 * The protected-tag rule that lets Developers create this tag, if any. Matched as GitLab's RefMatcher
 * does (`*` any run of characters, `/` too); a broader match here can only refuse more, never trust a
 * tag GitLab would not protect.
 */
export async function developerTagRule(gitlab: GitLabClient, projectId: number, tag: string, signal?: AbortSignal): Promise<string | undefined> {
  const may = await developerMayTag(gitlab, projectId, tag, signal);
  return may === NO_RULE ? undefined : may;
}

/** developerMayTag's answer where no rule matches the name. */
export const NO_RULE = Symbol("no protected-tag rule");

/**
 * Whether a Developer may create a tag of this name: NO_RULE where no protected-tag rule matches it (any
 * member who may push creates tags), the rule's name where a rule matching it lets Developers create it,
 * undefined where only Maintainers may (a rule matches, and none lets Developers).
 */
export async function developerMayTag(gitlab: GitLabClient, projectId: number, tag: string, signal?: AbortSignal): Promise<string | typeof NO_RULE | undefined> {
  let matched = false;
  for await (const rule of gitlab.listProtectedTags(projectId, { ...(signal && { signal }) })) {
    if (!refRuleMatches(rule.name, tag)) continue;
    if ((rule.create_access_levels ?? []).some((grant) => grant.access_level === DEVELOPER)) return rule.name;
    matched = true;
  }
  return matched ? undefined : NO_RULE;
}

/** GitLab's RefMatcher: a rule is the exact name, or its `*`s any run of characters (`/` too) between its other parts. */
function refRuleMatches(rule: string, name: string): boolean {
  if (rule === "") return false;
  if (rule === name) return true;
  return rule.includes("*") && wildcardMatches(rule.split("*").flatMap((part, i) => (i === 0 ? [part] : [ANY_RUN, part])), name);
}
