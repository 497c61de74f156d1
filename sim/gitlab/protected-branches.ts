/**
 * Protected-branch rules per project, from which GitLab computes a branch's `protected`
 * (`GET /projects/:id/repository/branches/:branch`): a rule names a branch or a wildcard (`release/*`,
 * where `*` matches any run of characters, `/` included, as GitLab's RefMatcher does). A project no
 * test gave rules has what GitLab gives a new project: its default branch protected.
 */
import type { SimProject } from "./dataset.ts";

export class SimProtectedBranches {
  /** Project id → rule names; absent: the default branch alone. */
  private readonly rules = new Map<number, Set<string>>();

  protect(project: SimProject, rule: string): void {
    this.of(project).add(rule);
  }

  /** Removes the rule of exactly this name (as GitLab's `DELETE /projects/:id/protected_branches/:name`). */
  unprotect(project: SimProject, rule: string): void {
    this.of(project).delete(rule);
  }

  isProtected(project: SimProject, branch: string): boolean {
    const rules = this.rules.get(project.id) ?? [project.default_branch];
    for (const rule of rules) if (matches(rule, branch)) return true;
    return false;
  }

  private of(project: SimProject): Set<string> {
    let rules = this.rules.get(project.id);
    if (!rules) this.rules.set(project.id, (rules = new Set([project.default_branch])));
    return rules;
  }
}

function matches(rule: string, branch: string): boolean {
  if (!rule.includes("*")) return rule === branch;
  const pattern = rule.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*");
  return new RegExp(`^${pattern}$`).test(branch);
}
