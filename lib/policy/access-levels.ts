/** GitLab access levels a policy may name (the values of the GitLab API's `access_level`). */
export const ACCESS_LEVELS = {
  guest: 10,
  planner: 15,
  reporter: 20,
  developer: 30,
  maintainer: 40,
  owner: 50,
} as const;

export type AccessLevelName = keyof typeof ACCESS_LEVELS;

export const ACCESS_LEVEL_NAMES = Object.keys(ACCESS_LEVELS) as AccessLevelName[];

// GitLab also reports levels a policy cannot grant; name them so messages stay readable.
const NAMES = new Map<number, string>([
  [5, "minimal access"],
  ...Object.entries(ACCESS_LEVELS).map(([name, level]): [number, string] => [level, name]),
]);

/** 30 -> "developer", 15 -> "planner", 5 -> "minimal access", anything else -> "level 35". */
export function accessLevelName(level: number): string {
  return NAMES.get(level) ?? `level ${level}`;
}

/**
 * Whether a share at `level` grants no more than `max` allows. The levels are a ladder but for Planner
 * (15, GitLab 17.7): it holds Guest's permissions and some that Reporter, Developer and Maintainer do
 * not have (editing group wiki pages, deleting issues: "we can't consider permissions to be linear
 * anymore", gitlab-org/gitlab!169256), so it is within planner and owner only, and planner holds
 * Guest and below. Any other level is compared by its number.
 */
export function levelWithin(level: number, max: AccessLevelName): boolean {
  if (level === ACCESS_LEVELS.planner) return max === "planner" || max === "owner";
  if (max === "planner") return level <= ACCESS_LEVELS.guest;
  return level <= ACCESS_LEVELS[max];
}
