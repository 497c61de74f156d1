/**
 * What happens to a stray share: `gitlab.shares.onStray` (remove, notify, report), its `grace`, and the
 * per-group `gitlab.scope.overrides` that let one part of the organisation move first. Pure.
 *
 * Overrides name plain group paths (no wildcards) and no group twice, so the overrides that contain a
 * path are nested one inside the other: for each field the deepest one that sets it wins, and two can
 * never tie.
 */
import type { GitlabPolicy, Grace, OnStray, Policy } from "./policy.ts";

export const ON_STRAY = ["remove", "notify", "report"] as const;
export const DEFAULT_ON_STRAY: OnStray = "remove";

/** What applies to the stray shares of one subject, and where the policy says so. */
export interface StrayHandling {
  readonly onStray: OnStray;
  /** Set whenever onStray is notify (parse refuses a policy without it); may be set otherwise too. */
  readonly grace?: Grace;
  /** Where onStray is set: `gitlab.shares`, or `gitlab.scope.overrides[i] (group "acme/mobile")`. */
  readonly from: string;
}

export const MAX_GRACE_DAYS = 3650;

/** `7d` or `36h`, 1 hour to 3650 days; undefined when the text is not one. */
export function parseGrace(text: string): Grace | undefined {
  const [, number, unit] = /^([1-9]\d{0,5})([dh])$/.exec(text) ?? [];
  if (number === undefined) return undefined;
  const hours = Number(number) * (unit === "d" ? 24 : 1);
  return hours <= MAX_GRACE_DAYS * 24 ? { text, hours } : undefined;
}

/** Whether `path` is `group` or lies below it (whole segments, any case, as GitLab paths compare). */
export function within(path: string, group: string): boolean {
  const [p, g] = [path.toLowerCase(), group.toLowerCase()];
  return p === g || p.startsWith(`${g}/`);
}

/**
 * Which onStray and grace apply to the shares of `subjectPath` (a project's or a sharing group's full
 * path): each from the deepest override containing the path that sets it, else from gitlab.shares.
 */
export function strayHandling(policy: Policy, subjectPath: string): StrayHandling {
  const gitlab = policy.gitlab;
  return gitlab === undefined ? { onStray: DEFAULT_ON_STRAY, from: "gitlab.shares" } : resolve(gitlab, subjectPath);
}

function resolve(gitlab: Pick<GitlabPolicy, "shares" | "scope">, subjectPath: string): StrayHandling {
  let onStray: [OnStray, string] = [gitlab.shares.onStray, "gitlab.shares"];
  let grace = gitlab.shares.grace;
  // Containing overrides are nested (distinct plain paths): shallowest first, so deeper ones overwrite.
  const containing = (gitlab.scope?.overrides ?? []).map((o, i) => [o, i] as const).filter(([o]) => within(subjectPath, o.group));
  for (const [override, i] of containing.sort(([a], [b]) => a.group.length - b.group.length)) {
    if (override.onStray) onStray = [override.onStray, `gitlab.scope.overrides[${i}] (group ${JSON.stringify(override.group)})`];
    grace = override.grace ?? grace;
  }
  return { onStray: onStray[0], ...(grace && { grace }), from: onStray[1] };
}

/** The longest grace the policy gives any share, in hours (gitlab.shares's and each override's); 0 without one. */
export function longestGraceHours(policy: Policy): number {
  const gitlab = policy.gitlab;
  if (gitlab === undefined) return 0;
  return Math.max(0, ...[gitlab.shares.grace, ...(gitlab.scope?.overrides ?? []).map((o) => o.grace)].map((g) => g?.hours ?? 0));
}

/** Every onStray the policy can apply: gitlab.shares's and each override's. */
export function onStrayModes(policy: Policy): Set<OnStray> {
  const gitlab = policy.gitlab;
  if (gitlab === undefined) return new Set();
  return new Set([gitlab.shares.onStray, ...(gitlab.scope?.overrides ?? []).flatMap((o) => (o.onStray ? [o.onStray] : []))]);
}

/**
 * Why a saved plan (warden apply) cannot be applied under this policy, or undefined: a plan holds
 * removals only, while onStray notify or report says which strays to leave (their notices decide,
 * lib/jobs/notices/); only warden enforce --apply reads the notices.
 */
export function unsupportedOnStray(policy: Policy): string | undefined {
  const modes = [...onStrayModes(policy)].filter((mode) => mode !== "remove");
  if (modes.length === 0) return undefined;
  return `the policy sets onStray ${modes.join(" and ")}, and a saved plan holds removals only: applying it would remove what the policy says to notice or report first; nothing was read or changed (run warden enforce --apply, which reads the notices, or set onStray: remove everywhere)`;
}

/** Cross-field problems of a gitlab section whose fields are each valid, as [path, message]. */
export function strayProblems(gitlab: Pick<GitlabPolicy, "shares" | "scope">): [string, string][] {
  const problems: [string, string][] = [];
  const { onStray, grace, notices } = gitlab.shares;
  const overrides = gitlab.scope?.overrides ?? [];
  const needsNotices: string[] = [];
  if (onStray === "notify") {
    if (grace === undefined) problems.push(["gitlab.shares.grace", "required when onStray is notify: how long a notice stands before the share is removed (like 7d or 36h)"]);
    needsNotices.push("gitlab.shares.onStray");
  }
  const seen = new Map<string, number>();
  overrides.forEach((override, i) => {
    const at = `gitlab.scope.overrides[${i}]`;
    const earlier = seen.get(override.group.toLowerCase());
    if (earlier !== undefined) problems.push([`${at}.group`, `group ${JSON.stringify(override.group)} is already overridden by overrides[${earlier}]: merge the two`]);
    seen.set(override.group.toLowerCase(), i);
    if (override.onStray === undefined && override.grace === undefined) problems.push([at, "expected onStray, grace or both: an override that sets neither changes nothing"]);
    // Every subject below the override is handled as the override's own path is.
    const here = resolve(gitlab, override.group);
    if (here.onStray === "notify") {
      if (here.grace === undefined) problems.push([`${at}.grace`, "required when onStray is notify here, as no enclosing override nor gitlab.shares sets a grace (like 7d or 36h)"]);
      needsNotices.push(`${at}.onStray`);
    }
  });
  if (notices === undefined && needsNotices.length > 0) {
    problems.push(["gitlab.shares.notices", `required when onStray is notify (${needsNotices.join(", ")}): the project the notices are issues in, like { project: security/access-notices }`]);
  }
  return problems;
}
