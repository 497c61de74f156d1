/**
 * A policy change judged share by share (`warden enforce --compare-policy-ref`): each share the one
 * examination lists is judged under the proposed policy (the run's) and the base one, and only the
 * shares whose fate differs are kept, so memory grows with the difference, as it does with the strays.
 *
 * Each share lands in at most one section, removal first:
 * - newlyRemoved: stray under the proposed policy, not under the base (allowed, exempt or out of scope
 *   there; an exemption that lapses into a removal is here), or stray under both and removed sooner
 *   under the proposed (onStray remove where the base notifies or reports; a shorter grace);
 * - noLongerRemoved: stray under the base, not under the proposed (an exemption that newly applies to a
 *   stray share is here), or stray under both and removed later or never under the proposed (onStray
 *   report: one line in a merge request stops every removal; notify, or a longer grace);
 * - exemptionChanged: stray under neither, exempt under exactly one (exempt ↔ allowed or out of scope).
 * Everything else (stray under both and removed alike, whatever the reason; allowed ↔ out of scope;
 * another exemption rule) changes nothing a run does, and is not listed.
 */
import type { GroupShare } from "../../gitlab/index.ts";
import { evaluateShare, inScope, scopeGroups, strayHandling, type Policy, type ShareVerdict, type StrayHandling } from "../../policy/index.ts";
import { withLevelName } from "../envelope.ts";
import { COMPARISON_SECTIONS, type ComparisonSection, type PolicyComparison } from "../shares/comparison.ts";
import { byKindAndPath, plannedRemoval, shareInput, shareKey, type ShareKindName, type ShareRemoval, type Subject } from "../shares/plan.ts";

/** One share whose fate differs, as a slice records it (JSON). */
export interface Difference {
  section: ComparisonSection;
  action: ShareRemoval;
}

/** How a share differs between the two verdicts, and why in words; undefined: it does not. */
export function compareVerdicts(base: ShareVerdict, proposed: ShareVerdict): { section: ComparisonSection; reason: string } | undefined {
  const was = `the base policy ${verdictText(base)}`;
  if (proposed.kind === "stray" && base.kind !== "stray") return { section: "newlyRemoved", reason: `${proposed.reason} (${was})` };
  if (base.kind === "stray" && proposed.kind !== "stray") return { section: "noLongerRemoved", reason: `${capital(verdictText(proposed))} (${was})` };
  if (base.kind === "stray" || (base.kind === "exempt") === (proposed.kind === "exempt")) return undefined;
  const change = proposed.kind === "exempt" ? "exemption newly applies" : "exemption lapses";
  return { section: "exemptionChanged", reason: `${change}: the proposed policy ${verdictText(proposed)} (${was})` };
}

/** The share judged under the base policy too (slice.ts): its difference from the proposed verdict (under `policy`), if any. */
export function judgeUnderBase(base: Policy, policy: Policy, kind: ShareKindName, subject: Subject, share: GroupShare, proposed: ShareVerdict, now: Date): Difference | undefined {
  const was = evaluateShare(base, shareInput(kind, subject, share), now);
  const found = compareVerdicts(was, proposed) ?? (was.kind === "stray" && proposed.kind === "stray" ? compareHandling(base, policy, subject.path) : undefined);
  return found && { section: found.section, action: plannedRemoval(kind, subject, share, found.reason) };
}

/** A share stray under both policies: whether the proposed removes it sooner, or later (or never), than the base. */
function compareHandling(base: Policy, proposed: Policy, subjectPath: string): { section: ComparisonSection; reason: string } | undefined {
  const [was, now] = [strayHandling(base, subjectPath), strayHandling(proposed, subjectPath)];
  const [before, after] = [removalDelay(was), removalDelay(now)];
  if (before === after) return undefined;
  return { section: after > before ? "noLongerRemoved" : "newlyRemoved", reason: `Stray under both: the proposed policy ${handlingText(now)} (the base policy ${handlingText(was)})` };
}

/** Hours from finding a stray to its removal: at once, after a notice's grace, or never. */
const removalDelay = (h: StrayHandling): number => (h.onStray === "remove" ? 0 : h.onStray === "report" ? Infinity : (h.grace?.hours ?? 0));

function handlingText(h: StrayHandling): string {
  const what = h.onStray === "remove" ? "removes it at once" : h.onStray === "report" ? "only reports it, never removing it" : `removes it ${h.grace?.text ?? "0h"} after a notice`;
  return `${what} (onStray ${h.onStray}, ${h.from})`;
}

function verdictText(verdict: ShareVerdict): string {
  switch (verdict.kind) {
    case "allowed":
      return `allows it (${verdict.rule})`;
    case "exempt":
      return `exempts it (${verdict.rule})`;
    case "out-of-scope":
      return "leaves it out of scope";
    case "stray":
      return `removes it: ${verdict.reason}`;
  }
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * The comparison of a whole run from its slices' differences: each share once (a project listed
 * twice, moved mid-listing, is judged twice), each section in the plan's order. Actions in
 * newlyRemoved stay "planned" (a run after merging plans them); the others are "skipped". No action
 * says who added its share: the comparison is the merge request note's, read by whoever reads the
 * policy project's merge requests, and who made a share is in the instance's audit events, which only
 * an administrator may read.
 */
export function comparisonOf(base: Policy, proposed: Policy, differences: readonly Difference[]): PolicyComparison {
  const source = base.source;
  if (source.source !== "gitlab") throw new Error("a comparison's base policy comes from a GitLab repository");
  const comparison: PolicyComparison = { baseRef: source.ref, baseCommitId: source.commitId, newlyRemoved: [], noLongerRemoved: [], exemptionChanged: [] };
  const seen = new Set<string>();
  for (const { section, action } of differences) {
    const key = shareKey(action);
    if (seen.has(key)) continue;
    seen.add(key);
    const { addedBy: _by, attribution: _why, ...unattributed } = action;
    comparison[section].push(withLevelName(section === "newlyRemoved" ? unattributed : { ...unattributed, status: "skipped" }));
  }
  for (const section of COMPARISON_SECTIONS) comparison[section].sort(byKindAndPath);
  const others = otherChanges(base, proposed);
  return others.length ? { ...comparison, otherChanges: others } : comparison;
}

/**
 * Every setting that differs between the two policies, by its path, as deep as it differs within mappings
 * ("chatops.slack.applyUsers", "gitlab.shares.exempt"). The sections judge today's shares alone: a change
 * can alter none of them and still do much, later or elsewhere (a scope widened to groups the base never
 * governed, which the examination does not list; an exemption's `until` moved to 2099; an allow rule for
 * shares not made yet; who may run pipelines as Warden, or apply from chat; the guard), and must not read as
 * changing nothing. Formatting, comments and key order are no change (the policies are compared as parsed).
 */
export function otherChanges(base: Policy, proposed: Policy): string[] {
  const settings = ({ text: _text, source: _source, ...rest }: Policy) => rest;
  const changed: string[] = [];
  differing(settings(base), settings(proposed), "", changed);
  return changed;
}

/** Pushes onto `into` each path at which `a` and `b` differ: within mappings key by key, else whole. */
function differing(a: unknown, b: unknown, path: string, into: string[]): void {
  if (JSON.stringify(a) === JSON.stringify(b)) return;
  const mapping = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  if (!mapping(a) || !mapping(b)) return void into.push(path);
  for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) differing(a[key], b[key], path ? `${path}.${key}` : key, into);
}

/** Differing shares in all sections. */
export function comparisonSize(comparison: PolicyComparison): number {
  return COMPARISON_SECTIONS.reduce((n, section) => n + comparison[section].length, 0);
}

/**
 * The proposed policy as the one examination reads with it: the base's scope examined (approved
 * already), each share there judged by what the proposed scope governs. The proposed policy is a merge
 * request's, written by whoever opened it, and the run reads with its own token: a scope widened past
 * the base's (or dropped: the whole instance) would have the report and the merge request's note list
 * shares the approved policy never governed, to that author; a scope narrowed must list the strays it
 * leaves out of scope (no longer removed), so the part it drops is examined all the same.
 */
export function withinBaseScope(proposed: Policy, base: Policy): Policy {
  const baseGroups = scopeGroups(base);
  if (baseGroups === undefined || proposed.gitlab === undefined) return proposed;
  const within = (path: string, outer: string) => path.toLowerCase() === outer.toLowerCase() || path.toLowerCase().startsWith(`${outer.toLowerCase()}/`);
  const includes = (path: string) => baseGroups.some((group) => within(path, group)) && inScope(proposed, path);
  const scope = { groups: baseGroups, includes, overrides: proposed.gitlab.scope?.overrides ?? [] };
  return { ...proposed, gitlab: { ...proposed.gitlab, scope } };
}

/**
 * A change that widens or narrows gitlab.scope is compared over the base's scope (withinBaseScope),
 * and the report says so.
 */
export function scopeWarning(base: Policy, proposed: Policy): string | undefined {
  const names = (p: Policy) => (scopeGroups(p) ?? ["(the whole instance)"]).map((g) => g.toLowerCase()).sort().join(", ");
  const [was, now] = [names(base), names(proposed)];
  if (was === now) return undefined;
  return `the change alters gitlab.scope (base: ${was}; proposed: ${now}): the base's scope was examined, so shares only the proposed scope governs, outside it, are not compared`;
}
