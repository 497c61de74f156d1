import { accessLevelName, levelWithin } from "./access-levels.ts";
import { DEFAULT_MAX_REMOVALS } from "./policy.ts";
import type { Glob, Policy, ShareAllowRule } from "./policy.ts";

/** A project shared with a group, or a group shared with a group. */
export type ShareKind = "project" | "group";

export interface ShareInput {
  kind: ShareKind;
  /** Full path of what is shared: the project (kind "project") or the sharing group (kind "group"). */
  target: string;
  /** Full path of the group the share grants access to (the invited group). */
  groupPath: string;
  /** GitLab access level number granted by the share. */
  accessLevel: number;
  /** YYYY-MM-DD, or null when the share does not expire. */
  expiresAt: string | null;
  /** The share's custom role (GitLab's `member_role_id`), where it has one. */
  memberRoleId?: number | null;
}

export type ShareVerdict =
  | { kind: "out-of-scope" }
  /**
   * `index`: the rule's place in gitlab.shares.exempt or .allow (rules.ts counts what each matched).
   * `covering`: the other allow rules that cover the share (its group, its target), whatever their
   * condition; `alsoExempt`, the later exemptions that match it too: each matched it, and is no typo
   * (docs/policy.md: an exemption, or an earlier rule, does not make a rule that covers a share a typo).
   */
  | { kind: "exempt"; rule: string; index: number; covering?: number[]; alsoExempt?: number[] }
  | { kind: "allowed"; rule: string; index: number; covering?: number[] }
  /**
   * `covering`: the allow rules that cover the share (its group, its target) but whose condition it breaks
   * (maxAccess, expiresWithin, a custom role): they matched it, and are no typo (rules.ts).
   */
  | { kind: "stray"; reason: string; covering?: number[] };

/** Where the policy names each kind's targets, and how reasons word them. */
interface KindTerms {
  /** The allow-rule key listing the targets a rule applies to. */
  readonly ruleKey: "projects" | "groups";
  /** The exemption key naming exempt targets. */
  readonly exemptionKey: "project" | "group";
  /** Introduces the share's target in a stray reason: "on project acme/api". */
  readonly on: string;
  /** Introduces a rule's target globs: "projects acme/mobile/**". */
  readonly covers: string;
}

const KINDS: Record<ShareKind, KindTerms> = {
  project: { ruleKey: "projects", exemptionKey: "project", on: "on project", covers: "projects" },
  group: { ruleKey: "groups", exemptionKey: "group", on: "for group shares of", covers: "group shares of" },
};

const OUT_OF_SCOPE: ShareVerdict = { kind: "out-of-scope" };
const DAY_MS = 86_400_000;

/**
 * Scope groups as written: they and everything below them are governed. Undefined means
 * everything the token can see; a policy without a gitlab section governs nothing, hence [].
 */
export function scopeGroups(policy: Policy): string[] | undefined {
  if (policy.gitlab === undefined) return [];
  return policy.gitlab.scope && [...policy.gitlab.scope.groups];
}

/**
 * Whether the policy governs the shares of this project, or the shares made by this group
 * (a scope group itself included; false when there is no gitlab section).
 */
export function inScope(policy: Policy, path: string): boolean {
  const gitlab = policy.gitlab;
  return gitlab !== undefined && (gitlab.scope === undefined || gitlab.scope.includes(path));
}

/** The one removal guard, over shares of both kinds. */
export function maxRemovals(policy: Policy): number {
  return policy.gitlab?.guard.maxRemovals ?? DEFAULT_MAX_REMOVALS;
}

/**
 * Judges one share of either kind. Called for every share in scope (about 100,000 a run),
 * so it only runs precompiled globs until a rule's group matches, and works out UTC days
 * only for a rule or exemption that depends on them.
 */
export function evaluateShare(policy: Policy, share: ShareInput, now: Date): ShareVerdict {
  if (policy.gitlab === undefined || !inScope(policy, share.target)) return OUT_OF_SCOPE;
  const { allow, exempt } = policy.gitlab.shares;
  const { target, groupPath } = share;
  const terms = KINDS[share.kind];

  let exempted: { rule: string; index: number } | undefined;
  let alsoExempt: number[] | undefined;
  for (const [i, exemption] of exempt.entries()) {
    const glob = exemption[terms.exemptionKey];
    // `until` is inclusive through that UTC day; YYYY-MM-DD strings compare in date order.
    if (glob?.matches(target) && (exemption.sharedWith === undefined || exemption.sharedWith.matches(groupPath)) && (exemption.until === undefined || utcDay(now) <= exemption.until)) {
      if (exempted) (alsoExempt ??= []).push(i);
      else exempted = { rule: `exempt[${i}] ${glob.pattern}${exemption.sharedWith ? ` shared with ${exemption.sharedWith.pattern}` : ""}`, index: i };
    }
  }

  // Near misses, to explain a stray share better than "no rule matches". A rule that covers
  // the share but limits its access or expiry explains more than one meant for other targets.
  // Every rule that covers the share is noted, past the one that decides it: each matched it.
  let unmet: string | undefined;
  let elsewhere: string | undefined;
  let allowed: number | undefined;
  let covering: number[] | undefined;
  for (const [i, rule] of allow.entries()) {
    if (!rule.group.matches(groupPath)) continue;
    if (!covers(rule, terms, target)) {
      elsewhere ??= `allow[${i}] ${rule.group.pattern} applies only to ${coverage(rule)}`;
      continue;
    }
    const problem = exempted || allowed !== undefined ? undefined : unmetCondition(rule, i, share, now);
    if (!exempted && allowed === undefined && problem === undefined) allowed = i;
    else (covering ??= []).push(i);
    unmet ??= problem;
  }
  if (exempted) return { kind: "exempt", ...exempted, ...(covering && { covering }), ...(alsoExempt && { alsoExempt }) };
  if (allowed !== undefined) return { kind: "allowed", rule: `allow[${allowed}] ${allow[allowed]!.group.pattern}`, index: allowed, ...(covering && { covering }) };
  const reason =
    unmet ?? `no allow rule matches group ${groupPath}${elsewhere === undefined ? "" : ` ${terms.on} ${target} (${elsewhere})`}`;
  return { kind: "stray", reason, ...(covering && { covering }) };
}

/** A rule without target keys covers both kinds everywhere; one with keys, only the targets they list. */
function covers(rule: ShareAllowRule, terms: KindTerms, target: string): boolean {
  const globs = rule[terms.ruleKey];
  if (globs !== undefined) return globs.some((glob) => glob.matches(target));
  return rule.projects === undefined && rule.groups === undefined;
}

/** "projects acme/mobile/** and group shares of acme": what a rule with target keys covers. */
function coverage(rule: ShareAllowRule): string {
  return Object.values(KINDS)
    .flatMap(({ ruleKey, covers }) => {
      const globs = rule[ruleKey];
      return globs === undefined ? [] : [`${covers} ${patterns(globs)}`];
    })
    .join(" and ");
}

/** Why `rule`, which covers the share, does not allow it; undefined when it does. */
function unmetCondition(rule: ShareAllowRule, i: number, share: ShareInput, now: Date): string | undefined {
  const { groupPath, accessLevel, expiresAt, memberRoleId } = share;
  if (rule.maxAccess !== undefined && !levelWithin(accessLevel, rule.maxAccess)) {
    return `${groupPath} at ${accessLevelName(accessLevel)} exceeds maxAccess ${rule.maxAccess} of allow[${i}]`;
  }
  // A custom role grants its permissions on top of the level (a Guest that administers CI/CD
  // variables): the level alone does not bound what such a share gives, so the rule must name the role.
  if (rule.maxAccess !== undefined && typeof memberRoleId === "number" && !rule.memberRoles?.includes(memberRoleId)) {
    return `${groupPath} at ${accessLevelName(accessLevel)} with custom role ${memberRoleId} exceeds maxAccess ${rule.maxAccess} of allow[${i}] (a custom role adds permissions to its level: name it in memberRoles to allow it)`;
  }
  if (rule.expiresWithin === undefined) return undefined;
  const within = `expiresWithin ${rule.expiresWithin}d`;
  if (expiresAt === null) return `${groupPath} has no expiry, but allow[${i}] requires ${within}`;
  // A date already past is within the limit too: GitLab deletes expired links itself. Only the day
  // counts, should a GitLab version send a timestamp.
  if (expiresAt.slice(0, 10) > utcDay(now, rule.expiresWithin)) {
    return `${groupPath} expires ${expiresAt}, later than ${within} of allow[${i}] allows`;
  }
  return undefined;
}

function patterns(globs: readonly Glob[]): string {
  return globs.map((glob) => glob.pattern).join(", ");
}

/** The UTC day (YYYY-MM-DD) `days` days after `now`'s; whole days of milliseconds, as UTC has no DST. */
function utcDay(now: Date, days = 0): string {
  return new Date(now.getTime() + days * DAY_MS).toISOString().slice(0, 10);
}
