/**
 * The share rules as things to account for: where each sits (allow[i], exempt[i]), how it reads,
 * how many shares each matched in a run (covered: allowed or exempted, or decided by another rule), and which matched nothing. A rule that protects
 * nothing most often protects the wrong thing (a typo), so a run names it and an applying run refuses.
 */
import { matchesEveryPath } from "./glob.ts";
import type { Glob, Policy, ShareAllowRule, ShareExemption } from "./policy.ts";
import { UNSEEN_BEYOND_C0 } from "./unseen.ts";

export type RuleList = "allow" | "exempt";

/** Shares each rule matched (lib/policy/shares.ts' verdicts), by the rule's index: JSON, as a durable step records it. */
export interface RuleCounts {
  allow: number[];
  exempt: number[];
}

/** A rule, by its place in gitlab.shares. */
export interface RuleRef {
  list: RuleList;
  index: number;
}

/** A path a rule names without wildcards: the instance either has it or not. */
export interface LiteralPath {
  kind: "group" | "project";
  path: string;
}

export function emptyRuleCounts(policy: Policy): RuleCounts {
  const shares = policy.gitlab?.shares;
  return { allow: (shares?.allow ?? []).map(() => 0), exempt: (shares?.exempt ?? []).map(() => 0) };
}

/** Adds each rule's count of `more` to `into`'s (the counts of a run's steps add up so). */
export function addRuleCounts(into: RuleCounts, more: RuleCounts): RuleCounts {
  for (const list of ["allow", "exempt"] as const) more[list].forEach((n, i) => (into[list][i] = (into[list][i] ?? 0) + n));
  return into;
}

/** `exempt[0] (project "acme/legacyy/**")`, `allow[1] (group "partners/x", projects "acme/mobile/**")`. */
export function ruleText(policy: Policy, { list, index }: RuleRef): string {
  const shares = policy.gitlab!.shares;
  const keys = list === "allow" ? allowKeys(shares.allow[index]!) : exemptKeys(shares.exempt[index]!);
  return `${list}[${index}] (${keys.join(", ")})`;
}

function allowKeys(rule: ShareAllowRule): string[] {
  return [
    `group ${quote(rule.group)}`,
    ...(rule.projects ? [`projects ${rule.projects.map(quote).join(", ")}`] : []),
    ...(rule.groups ? [`groups ${rule.groups.map(quote).join(", ")}`] : []),
  ];
}

function exemptKeys(exemption: ShareExemption): string[] {
  return [
    exemption.project ? `project ${quote(exemption.project)}` : `group ${quote(exemption.group!)}`,
    ...(exemption.sharedWith ? [`sharedWith ${quote(exemption.sharedWith)}`] : []),
  ];
}

const quote = (glob: Glob) => JSON.stringify(glob.pattern);

/** Whether the exemption is for every group a subject invites: no sharedWith, or one every path matches (`**`). */
export function forEveryInvitedGroup(exemption: ShareExemption): boolean {
  return exemption.sharedWith === undefined || matchesEveryPath(exemption.sharedWith.pattern);
}

/** Whether the exemption has lapsed: its `until` day (inclusive, UTC) is before `now`'s. */
export function lapsed(exemption: ShareExemption, now: Date): boolean {
  return exemption.until !== undefined && exemption.until < now.toISOString().slice(0, 10);
}

/** Rules that matched no share; a lapsed exemption exempts nothing by design, so it is not one. */
export function unmatchedRules(policy: Policy, counts: RuleCounts, now: Date): RuleRef[] {
  const shares = policy.gitlab?.shares;
  if (shares === undefined) return [];
  return [
    ...shares.allow.flatMap((_, index) => (counts.allow[index] ? [] : [{ list: "allow" as const, index }])),
    ...shares.exempt.flatMap((exemption, index) => (counts.exempt[index] || lapsed(exemption, now) ? [] : [{ list: "exempt" as const, index }])),
  ];
}

/** What the rule's subjects are, for "matched no … in scope". */
export function ruleSubject(policy: Policy, { list, index }: RuleRef): string {
  if (list === "allow") return "share";
  return policy.gitlab!.shares.exempt[index]!.project ? "project share" : "group share";
}

export function isLiteral(pattern: string): boolean {
  return !/[*?]/.test(pattern);
}

/** The paths a rule names literally: each must exist on the instance for the rule to mean anything. */
export function literalPaths(policy: Policy, { list, index }: RuleRef): LiteralPath[] {
  const shares = policy.gitlab!.shares;
  const named: LiteralPath[] = [];
  const add = (kind: LiteralPath["kind"], globs: readonly Glob[] | undefined) => {
    for (const glob of globs ?? []) if (isLiteral(glob.pattern)) named.push({ kind, path: glob.pattern });
  };
  if (list === "allow") {
    const rule = shares.allow[index]!;
    add("group", [rule.group, ...(rule.groups ?? [])]);
    add("project", rule.projects);
  } else {
    const exemption = shares.exempt[index]!;
    add("project", exemption.project && [exemption.project]);
    add("group", exemption.group && [exemption.group]);
    add("group", exemption.sharedWith && [exemption.sharedWith]);
  }
  return named;
}

export const MAX_REASON_CHARS = 500;

/** Control characters, and those that break or reorder a line in a reviewer's diff (a reason shown reversed, or a forged `until:` line). */
const UNSEEN = new RegExp(`[\\x00-\\x1f${UNSEEN_BEYOND_C0}]`);

/** Why `text` cannot be an exemption's reason (one line a reviewer reads, bounded), or undefined. */
export function reasonProblem(text: string): string | undefined {
  if (text.trim() === "" || text.length > MAX_REASON_CHARS || UNSEEN.test(text)) {
    return `expected one line of 1 to ${MAX_REASON_CHARS} characters without control, line-separator or bidirectional characters, got ${text.length > 40 ? `a text of ${text.length} characters` : JSON.stringify(text)}`;
  }
  return undefined;
}
