import type { Random } from "../shared/random.ts";
import { ACCESS } from "./dataset.ts";
import type { SimGroup, Visibility } from "./dataset.ts";

/**
 * Group-to-group shares for generateOrganisation, with their intents under the standard policy
 * (documented in generate.ts). Each case appears even in the smallest organisation:
 * - by a group under acme, to a group under acme: allowed (allow[0], whatever the level or expiry);
 * - by acme or a group under acme/platform, to `auditors`, cycling through the edge days of
 *   `expiresWithin: 90d` and `maxAccess: reporter` (AUDITOR_CASES);
 * - by another group under acme, to `auditors` (allow[2] names other groups) or to a group outside
 *   acme: stray; acme/mobile to partners/contractor-x is one (allow[1] covers project shares only);
 * - by a group under acme/legacy (acme/legacy itself included): exempt, whoever they grant;
 * - by a group outside acme: allowed (out of scope).
 */

/** What a generated share is meant to be; ProjectShareIntent (generate.ts) shares the base. */
export interface IntentBase {
  /** The group the share grants access to (the invited group). */
  groupId: number;
  intent: "allowed" | "stray" | "exempt";
}

export interface GroupShareIntent extends IntentBase {
  kind: "group";
  /** The group that shares (whose `shared_with_groups` holds the link). */
  sharedGroupId: number;
  projectId?: undefined;
}

export interface GroupShareWorld {
  rng: Random;
  /** Every group so far; the groups added here are appended to it. */
  groups: SimGroup[];
  addGroup(fullPath: string, name: string, visibility: Visibility): SimGroup;
  now: Date;
}

type Intent = GroupShareIntent["intent"];
type GroupSeed = readonly [fullPath: string, name: string, visibility: Visibility];

const AUDITORS: GroupSeed = ["auditors", "Auditors", "internal"];
/** With acme and acme/platform/infra-tools, enough groups under the auditors rule for every case. */
const PLATFORM_EXTRA: readonly GroupSeed[] = [
  ["acme/platform/sre", "SRE", "internal"],
  ["acme/platform/Release.Eng", "Release Engineering", "internal"],
  ["acme/platform/observability", "Observability", "private"],
];
/** The first outside groups stray shares take, in this order. */
const STRAY_FIRST = ["acme-ext", "partners/contractor-x", "freelancers"];
const CONTRACTOR = "partners/contractor-x";
const MEMBER_ROLE_ID = 7;

// Offsets in UTC days from `now`; the rule allows reporter or less, expiring no later than day 90.
const AUDITOR_CASES: ReadonlyArray<{ level: number; days: number | null; intent: Intent }> = [
  { level: ACCESS.reporter, days: 90, intent: "allowed" }, // the last day allowed
  { level: ACCESS.reporter, days: 91, intent: "stray" }, // one day too late
  { level: ACCESS.guest, days: 0, intent: "allowed" }, // expires today
  { level: ACCESS.reporter, days: null, intent: "stray" }, // never expires
  { level: ACCESS.reporter, days: -1, intent: "allowed" }, // already past: still listed until GitLab's nightly job
  { level: ACCESS.developer, days: 30, intent: "stray" }, // above maxAccess
];
const LEVELS = [ACCESS.guest, ACCESS.reporter, ACCESS.developer, ACCESS.maintainer];

const under = (path: string, root: string): boolean => path === root || path.startsWith(`${root}/`);
/** allow[2]'s `groups: ["acme", "acme/platform/**"]`. */
const audited = (g: SimGroup): boolean => g.full_path === "acme" || under(g.full_path, "acme/platform");
/** A group is not shared with itself, an ancestor or a descendant. */
const related = (a: SimGroup, b: SimGroup): boolean => under(a.full_path, b.full_path) || under(b.full_path, a.full_path);

export function addGroupShares({ rng, groups, addGroup, now }: GroupShareWorld): GroupShareIntent[] {
  const auditors = addGroup(...AUDITORS);
  for (const seed of PLATFORM_EXTRA) addGroup(...seed);
  const day = (offset: number | null): string | null =>
    offset === null ? null : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + offset)).toISOString().slice(0, 10);
  // Expiry that no rule judges: mostly none, some past, some far ahead.
  const anyExpiry = (): string | null => {
    const r = rng.next();
    return day(r < 0.1 ? -3 : r < 0.2 ? 200 : null);
  };

  const intents: GroupShareIntent[] = [];
  const link = (by: SimGroup, to: SimGroup, level: number, expiresAt: string | null, intent: Intent, memberRoleId: number | null = null): void => {
    if (related(by, to) || by.shared_with_groups.some((s) => s.group_id === to.id)) return;
    by.shared_with_groups.push({
      group_id: to.id,
      group_name: to.name,
      group_full_path: to.full_path,
      group_access_level: level,
      expires_at: expiresAt,
      member_role_id: memberRoleId,
    });
    intents.push({ kind: "group", sharedGroupId: by.id, groupId: to.id, intent });
  };

  const acme = groups.filter((g) => under(g.full_path, "acme"));
  const outside = groups.filter((g) => !under(g.full_path, "acme") && g !== auditors);
  const byPath = (path: string): SimGroup => outside.find((g) => g.full_path === path)!;
  const strayPool = [...STRAY_FIRST.map(byPath), ...outside.filter((g) => !STRAY_FIRST.includes(g.full_path))];
  const insideTargets = acme.filter((g) => g.full_path !== "acme");
  const counts = { audited: 0, unaudited: 0, strays: 0, legacy: 0 };
  const strayTo = (by: SimGroup): void => {
    const n = counts.strays++;
    link(by, strayPool[n % strayPool.length]!, rng.pick(LEVELS), anyExpiry(), "stray", n % 3 === 1 ? MEMBER_ROLE_ID : null);
  };

  for (const g of acme) {
    if (under(g.full_path, "acme/legacy")) {
      const k = counts.legacy++;
      link(g, strayPool[strayPool.length - 1 - (k % strayPool.length)]!, rng.pick(LEVELS), anyExpiry(), "exempt");
      if (k % 2 === 1) link(g, auditors, ACCESS.maintainer, null, "exempt");
      continue;
    }
    if (audited(g)) {
      const c = AUDITOR_CASES[counts.audited++ % AUDITOR_CASES.length]!;
      link(g, auditors, c.level, day(c.days), c.intent);
    } else if (counts.unaudited++ % 3 === 0) {
      link(g, auditors, ACCESS.reporter, day(30), "stray");
    }
    if (g.full_path === "acme/mobile") link(g, byPath(CONTRACTOR), ACCESS.developer, null, "stray");
    const inside = [0, 1, 1, 2][rng.int(4)]!;
    for (let k = 0; k < inside; k++) link(g, rng.pick(insideTargets), rng.pick(LEVELS), anyExpiry(), "allowed");
    if (counts.strays < STRAY_FIRST.length || rng.next() < 0.15) strayTo(g);
  }
  for (const g of outside) link(g, rng.pick([...insideTargets, ...outside]), rng.pick(LEVELS), anyExpiry(), "allowed");
  return intents;
}
