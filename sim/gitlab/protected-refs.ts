/**
 * Protected branches and tags as GitLab computes them: a project's rules are names or wildcards, and
 * a rule's `*` matches any run of characters, `/` included (GitLab's RefMatcher: `release/*` protects
 * `release/x` and `release/x/y`). A branch's and a tag's `protected` come from these rules.
 */
import type { Handler } from "./context.ts";
import type { SimProject } from "./dataset.ts";
import { apiError } from "./http.ts";
import { listReply, offsetPage } from "./pagination.ts";
import { findProject } from "./projects.ts";

/**
 * GitLab's RefMatcher: the exact name, or the wildcard's segments in order with anything between. Each
 * segment is taken where it first comes (the first at the start, the last at the end), which is exact
 * for `*` alone; a RegExp of `.*?` pieces would backtrack for minutes on a many-star rule a test writes.
 */
export function refRuleMatches(rule: string, name: string): boolean {
  if (rule === "") return false;
  if (rule === name) return true;
  if (!rule.includes("*")) return false;
  const parts = rule.split("*");
  const [first, last] = [parts[0]!, parts[parts.length - 1]!];
  const end = name.length - last.length;
  if (end < first.length || !name.startsWith(first) || !name.endsWith(last)) return false;
  let from = first.length;
  for (const part of parts.slice(1, -1)) {
    const found = name.indexOf(part, from);
    if (found < 0 || found + part.length > end) return false;
    from = found + part.length;
  }
  return true;
}

/** Absent rules: the default branch alone, as GitLab protects it in a new project. */
export const branchRules = (project: SimProject): readonly string[] => project.protected_branches ?? [project.default_branch];
export const tagRules = (project: SimProject): readonly string[] => project.protected_tags ?? [];

export const isProtectedBranch = (project: SimProject, name: string): boolean => branchRules(project).some((rule) => refRuleMatches(rule, name));
/** GitLab's `developers_can_push` (and `developers_can_merge`): a protected rule matching the branch grants Developers push. */
export const developersCanPush = (project: SimProject, name: string): boolean =>
  isProtectedBranch(project, name) && (project.developer_push_branches ?? []).some((rule) => refRuleMatches(rule, name));
/** GitLab's `developers_can_merge`: a protected rule matching the branch lets Developers merge (and push, where it lets them push). */
export const developersCanMerge = (project: SimProject, name: string): boolean =>
  developersCanPush(project, name) || (isProtectedBranch(project, name) && (project.developer_merge_branches ?? []).some((rule) => refRuleMatches(rule, name)));
export const isProtectedTag = (project: SimProject, name: string): boolean => tagRules(project).some((rule) => refRuleMatches(rule, name));

/** A rule as GitLab answers it: who may create the tags it matches (Maintainers, or Developers too). */
const tagRule = (project: SimProject) => (name: string) => {
  const developers = (project.developer_create_tags ?? []).includes(name);
  return { name, create_access_levels: [developers ? { id: 1, access_level: 30, access_level_description: "Developers + Maintainers" } : { id: 1, access_level: 40, access_level_description: "Maintainers" }] };
};

/** `GET /projects/:id/protected_tags`: every rule, wildcards included, by offset pages. */
export const listProtectedTags: Handler = (ctx) => {
  const project = findProject(ctx);
  return listReply(offsetPage(ctx, [...tagRules(project)]), tagRule(project));
};

/** `GET /projects/:id/protected_tags/:name`: the rule of exactly that name (a tag a wildcard protects is not one); ActiveRecord's 404 otherwise. */
export const getProtectedTag: Handler = (ctx) => {
  const name = ctx.path["name"]!;
  const project = findProject(ctx);
  if (!tagRules(project).includes(name)) throw apiError(404, "404 Not found");
  return { status: 200, body: tagRule(project)(name) };
};

/** A test's hands on a project's protected-branch rules (what Settings > Repository > Protected branches changes). */
export const protectedBranches = {
  /**
   * `developersCanPush`: the rule's "Allowed to push and merge" is Developers + Maintainers;
   * `developersCanMerge`: only its "Allowed to merge" is.
   */
  protect(project: SimProject, rule: string, opts: { developersCanPush?: boolean; developersCanMerge?: boolean } = {}): void {
    project.protected_branches = [...new Set([...branchRules(project), rule])];
    if (opts.developersCanPush) project.developer_push_branches = [...new Set([...(project.developer_push_branches ?? []), rule])];
    if (opts.developersCanMerge) project.developer_merge_branches = [...new Set([...(project.developer_merge_branches ?? []), rule])];
  },
  /** Removes the rule of exactly this name (as GitLab's `DELETE /projects/:id/protected_branches/:name`). */
  unprotect(project: SimProject, rule: string): void {
    project.protected_branches = branchRules(project).filter((r) => r !== rule);
    project.developer_push_branches = (project.developer_push_branches ?? []).filter((r) => r !== rule);
    project.developer_merge_branches = (project.developer_merge_branches ?? []).filter((r) => r !== rule);
  },
  isProtected: isProtectedBranch,
};

/** Protected-tag rules likewise (Settings > Repository > Protected tags). */
export const protectedTags = {
  /** `developersCanCreate`: the rule's "Allowed to create" is Developers + Maintainers. */
  protect(project: SimProject, rule: string, opts: { developersCanCreate?: boolean } = {}): void {
    project.protected_tags = [...new Set([...tagRules(project), rule])];
    if (opts.developersCanCreate) project.developer_create_tags = [...new Set([...(project.developer_create_tags ?? []), rule])];
  },
};
