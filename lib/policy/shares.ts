import { ACCESS_LEVELS, accessLevelName } from "./access-levels.ts";
import { DEFAULT_MAX_REMOVALS } from "./policy.ts";
import type { Policy } from "./policy.ts";

export interface ShareInput {
  projectPath: string;
  /** Full path of the group the project is shared with. */
  groupPath: string;
  /** GitLab access level number granted by the share. */
  accessLevel: number;
}

export type ShareVerdict =
  | { kind: "out-of-scope" }
  | { kind: "exempt"; rule: string }
  | { kind: "allowed"; rule: string }
  | { kind: "stray"; reason: string };

const OUT_OF_SCOPE: ShareVerdict = { kind: "out-of-scope" };

/**
 * Top-level groups whose projects are governed; undefined means every project the
 * token can see. A policy without a gitlab section governs nothing, hence [].
 */
export function scopeGroups(policy: Policy): string[] | undefined {
  if (policy.gitlab === undefined) return [];
  return policy.gitlab.scope && [...policy.gitlab.scope.groups];
}

/** Whether the policy governs the project's shares (false when there is no gitlab section). */
export function projectInScope(policy: Policy, projectPath: string): boolean {
  const gitlab = policy.gitlab;
  return gitlab !== undefined && (gitlab.scope === undefined || gitlab.scope.includes(projectPath));
}

export function maxRemovals(policy: Policy): number {
  return policy.gitlab?.guard.maxRemovals ?? DEFAULT_MAX_REMOVALS;
}

/**
 * Judges one project share. Called for every share of every governed project (about
 * 100,000 a run), so it only runs precompiled globs until a rule's group matches.
 */
export function evaluateShare(policy: Policy, share: ShareInput, now: Date): ShareVerdict {
  if (policy.gitlab === undefined || !projectInScope(policy, share.projectPath)) return OUT_OF_SCOPE;
  const { allow, exempt } = policy.gitlab.shares;
  const { projectPath, groupPath, accessLevel } = share;

  for (const [i, exemption] of exempt.entries()) {
    // `until` is inclusive through that UTC day; YYYY-MM-DD strings compare in date order.
    if (exemption.project.matches(projectPath) && (exemption.until === undefined || utcDay(now) <= exemption.until)) {
      return { kind: "exempt", rule: `exempt[${i}] ${exemption.project.pattern}` };
    }
  }

  // Near misses, to explain a stray share better than "no rule matches".
  let tooHigh: string | undefined;
  let otherProjects: string | undefined;
  for (const [i, rule] of allow.entries()) {
    if (!rule.group.matches(groupPath)) continue;
    const name = `allow[${i}] ${rule.group.pattern}`;
    if (rule.projects !== undefined && !rule.projects.some((project) => project.matches(projectPath))) {
      otherProjects ??= `${name} applies only to projects ${rule.projects.map((p) => p.pattern).join(", ")}`;
    } else if (rule.maxAccess !== undefined && accessLevel > ACCESS_LEVELS[rule.maxAccess]) {
      tooHigh ??= `${groupPath} at ${accessLevelName(accessLevel)} exceeds maxAccess ${rule.maxAccess} of allow[${i}]`;
    } else {
      return { kind: "allowed", rule: name };
    }
  }
  const reason =
    tooHigh ??
    `no allow rule matches group ${groupPath}${otherProjects === undefined ? "" : ` on project ${projectPath} (${otherProjects})`}`;
  return { kind: "stray", reason };
}

function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}
