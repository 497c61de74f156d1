/**
 * `warden policy check` offline: what a valid policy (parse.ts has refused an invalid one) still gets
 * wrong without any server. Rules outside every scope group, lapsed exemptions, and rules an earlier
 * one makes redundant. Shadowing is judged exactly for literal paths and `prefix/**` globs (and `**`);
 * other wildcards are never called shadowed, so every finding is certain.
 */
import { ACCESS_LEVELS, levelWithin } from "./access-levels.ts";
import { compileGlob, matchesEveryPath } from "./glob.ts";
import type { Glob, Policy, ShareAllowRule, ShareExemption } from "./policy.ts";
import { forEveryInvitedGroup, isLiteral, lapsed, ruleText } from "./rules.ts";
import { onStrayModes, within } from "./stray.ts";

export function checkPolicy(policy: Policy, now: Date): string[] {
  const gitlab = policy.gitlab;
  if (gitlab === undefined) return [];
  const { allow, exempt } = gitlab.shares;
  const text = (list: "allow" | "exempt", index: number) => ruleText(policy, { list, index });
  const findings: string[] = [];
  const scope = gitlab.scope?.groups;
  if (scope) {
    const outside = (globs: readonly (Glob | undefined)[]) => globs.filter((g): g is Glob => g !== undefined && !scope.some((s) => reachesInto(g.pattern, s)));
    const never = (what: string, globs: Glob[]) =>
      globs.length ? [`${what}: ${globs.map((g) => JSON.stringify(g.pattern)).join(", ")} ${globs.length === 1 ? "lies" : "lie"} outside every scope group (${scope.join(", ")}), so never ${globs.length === 1 ? "matches" : "match"}`] : [];
    allow.forEach((rule, i) => findings.push(...never(text("allow", i), outside([...(rule.projects ?? []), ...(rule.groups ?? [])]))));
    exempt.forEach((e, i) => findings.push(...never(text("exempt", i), outside([e.project ?? e.group]))));
    gitlab.scope?.overrides.forEach((o, i) => {
      // An override applies to everything below its group (strayHandling): on a scope group's ancestor, to all of it.
      if (!scope.some((s) => reachesInto(o.group, s) || within(s, o.group))) findings.push(`gitlab.scope.overrides[${i}] (group ${JSON.stringify(o.group)}) lies outside every scope group (${scope.join(", ")}), so applies to nothing`);
    });
  }
  findings.push(...strayFindings(policy), ...everythingFindings(policy));
  exempt.forEach((e, i) => {
    if (lapsed(e, now)) findings.push(`${text("exempt", i)} lapsed after ${e.until}: it exempts nothing (remove it, or move until on)`);
  });
  allow.forEach((rule, j) => {
    const i = allow.slice(0, j).findIndex((earlier) => allowCovers(earlier, rule));
    if (i >= 0) findings.push(redundant(text("allow", j), text("allow", i), "allows", `allow[${i}]`));
  });
  exempt.forEach((e, j) => {
    const i = exempt.slice(0, j).findIndex((earlier) => exemptCovers(earlier, e));
    if (i >= 0) findings.push(redundant(text("exempt", j), text("exempt", i), "exempts", `exempt[${i}]`));
  });
  return findings;
}

function redundant(later: string, earlier: string, does: string, place: string): string {
  const same = later.slice(later.indexOf(" (")) === earlier.slice(earlier.indexOf(" ("));
  return same ? `${later} duplicates ${earlier}: remove one` : `${later} is shadowed by ${earlier}: every share it ${does}, ${place} ${does} first, so it never matches`;
}

/** Whether some path at or below the scope group `scope` can match `pattern`. */
function reachesInto(pattern: string, scope: string): boolean {
  const segments = pattern.split("/");
  for (const [i, part] of scope.split("/").entries()) {
    const segment = segments[i];
    if (segment === undefined) return false; // the pattern stops above the scope group
    if (segment === "**") return true;
    if (!compileGlob(segment)(part)) return false;
  }
  return true;
}

/** Whether glob `a` matches every path `b` does: equal, `**` (or another matching every path), or `P/**` over a `b` starting with P's literal segments. */
function globCovers(a: Glob, b: Glob): boolean {
  const [x, y] = [a.pattern.toLowerCase(), b.pattern.toLowerCase()];
  if (x === y || matchesEveryPath(x)) return true;
  const prefix = x.split("/");
  if (prefix.pop() !== "**" || !prefix.every(isLiteral)) return false;
  const inner = y.split("/");
  // P's segments are literal: a path `b` matches starts with them only where b's first segments are them.
  return prefix.every((segment, i) => inner[i] === segment);
}

const someCovers = (a: readonly Glob[], b: readonly Glob[]) => b.every((g) => a.some((h) => globCovers(h, g)));

/** Whether every share `later` allows, `earlier` allows too (evaluateShare stops at the first rule that allows). */
function allowCovers(earlier: ShareAllowRule, later: ShareAllowRule): boolean {
  if (!globCovers(earlier.group, later.group)) return false;
  const everywhere = (r: ShareAllowRule) => r.projects === undefined && r.groups === undefined;
  if (!everywhere(earlier)) {
    if (everywhere(later)) return false;
    for (const key of ["projects", "groups"] as const) {
      const [wide, narrow] = [earlier[key], later[key]];
      if (narrow !== undefined && (wide === undefined || !someCovers(wide, narrow))) return false;
    }
  }
  const access =
    earlier.maxAccess === undefined ||
    (later.maxAccess !== undefined && levelWithin(ACCESS_LEVELS[later.maxAccess], earlier.maxAccess) && (later.memberRoles ?? []).every((role) => earlier.memberRoles?.includes(role)));
  const expiry = earlier.expiresWithin === undefined || (later.expiresWithin !== undefined && earlier.expiresWithin >= later.expiresWithin);
  return access && expiry;
}

function exemptCovers(earlier: ShareExemption, later: ShareExemption): boolean {
  const [wide, narrow] = [earlier.project ?? earlier.group!, later.project ?? later.group!];
  if ((earlier.project === undefined) !== (later.project === undefined) || !globCovers(wide, narrow)) return false;
  // An exemption for any invited group covers one for some; one for some covers only a narrower one.
  const invited = forEveryInvitedGroup(earlier) || (!forEveryInvitedGroup(later) && globCovers(earlier.sharedWith!, later.sharedWith!));
  return invited && (earlier.until === undefined || (later.until !== undefined && earlier.until >= later.until));
}

/**
 * A rule that alone makes the policy remove nothing of a kind: an exemption (for any invited group)
 * whose glob covers every scope group's subtree, or an allow rule for any invited group with no limit.
 * Valid, and matched by every share, so no other finding names it; a reviewer must see it.
 */
function everythingFindings(policy: Policy): string[] {
  const gitlab = policy.gitlab!;
  const subtrees: Glob[] = (gitlab.scope?.groups ?? [""]).map((group) => ({ pattern: group ? `${group}/**` : "**", matches: () => true }));
  const everywhere = (glob: Glob) => subtrees.every((tree) => globCovers(glob, tree));
  const findings: string[] = [];
  gitlab.shares.exempt.forEach((e, i) => {
    const kind = e.project ? "project" : "group";
    if (everywhere((e.project ?? e.group)!) && forEveryInvitedGroup(e)) {
      findings.push(`${ruleText(policy, { list: "exempt", index: i })} exempts every ${kind} share in scope${e.until ? ` until ${e.until}` : ""}: no ${kind} share is removed while it stands`);
    }
  });
  gitlab.shares.allow.forEach((rule, i) => {
    const unlimited = rule.projects === undefined && rule.groups === undefined && rule.maxAccess === undefined && rule.expiresWithin === undefined;
    if (matchesEveryPath(rule.group.pattern) && unlimited) findings.push(`${ruleText(policy, { list: "allow", index: i })} allows every share in scope: the policy removes nothing`);
  });
  return findings;
}

/** Settings that a valid policy holds but nothing reads: notices where nothing notifies, a grace where nothing waits. */
function strayFindings(policy: Policy): string[] {
  const modes = onStrayModes(policy);
  const shares = policy.gitlab!.shares;
  const findings: string[] = [];
  if (shares.notices !== undefined && !modes.has("notify")) findings.push("gitlab.shares.notices is set, but onStray is notify nowhere: no notice is ever opened");
  if (!modes.has("notify")) {
    if (shares.grace !== undefined) findings.push(`gitlab.shares.grace ${shares.grace.text} is set, but onStray is notify nowhere: nothing waits for it`);
    policy.gitlab!.scope?.overrides.forEach((o, i) => {
      if (o.grace !== undefined) findings.push(`gitlab.scope.overrides[${i}].grace ${o.grace.text} is set, but onStray is notify nowhere: nothing waits for it`);
    });
  }
  return findings;
}
