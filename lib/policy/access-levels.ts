/** GitLab access levels a policy may name (the values of the GitLab API's `access_level`). */
export const ACCESS_LEVELS = {
  guest: 10,
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
  [15, "planner"],
  ...Object.entries(ACCESS_LEVELS).map(([name, level]): [number, string] => [level, name]),
]);

/** 30 -> "developer", 15 -> "planner", 5 -> "minimal access", anything else -> "level 35". */
export function accessLevelName(level: number): string {
  return NAMES.get(level) ?? `level ${level}`;
}
