import { createRandom } from "../shared/random.ts";
import { AuditLog } from "./audit-log.ts";
import type { GitLabDataset, SimAuditEvent, SimGroup, SimUser } from "./dataset.ts";

/**
 * The audit events a GitLab (Premium and up) would hold for the shares of a generated organisation,
 * recorded where GitLab records them (audit-log.ts): a project share's `project_group_link_created`
 * on the invited group, a group share's `group_share_with_group_link_created` on the sharing group.
 * A mix as a real instance has one: most shares made in the last `recentDays` by one of the
 * organisation's users, some long ago (before any attribution window), some never recorded (made
 * before GitLab recorded such events, 15.9 for project shares and 15.10 for group shares).
 */
export interface ShareHistory {
  /** The day events are dated back from (default: now). */
  now?: Date;
  /** Recent events fall within this many days before `now` (default 60). */
  recentDays?: number;
  /** Shares recorded recently (default 0.75), and long ago (default 0.15); the rest, never. */
  recent?: number;
  old?: number;
}

const DAY_MS = 86_400_000;

/** Every share's creation event, or none, in id order (ids grow with time, as GitLab's do). */
export function shareAuditEvents(dataset: GitLabDataset, seed: number, history: ShareHistory = {}): SimAuditEvent[] {
  // Its own sequence: the organisation the same seed generates stays the same, events or not.
  const rng = createRandom(seed ^ 0x5ae7e5);
  const { now = new Date(), recentDays = 60, recent = 0.75, old = 0.15 } = history;
  const groups = new Map(dataset.groups.map((g) => [g.id, g]));
  const made: { at: number; author: SimUser; record: (log: AuditLog, author: SimUser) => void }[] = [];
  const when = (): number | undefined => {
    const r = rng.next();
    if (r < recent) return now.getTime() - (1 + rng.next() * (recentDays - 1)) * DAY_MS;
    if (r < recent + old) return now.getTime() - (400 + rng.int(1_500)) * DAY_MS;
    return undefined;
  };
  const add = (record: (log: AuditLog, author: SimUser) => void): void => {
    const at = when();
    const author = rng.pick(dataset.users);
    if (at !== undefined) made.push({ at, author, record });
  };
  for (const project of dataset.projects) {
    for (const share of project.shared_with_groups) {
      const invited = groups.get(share.group_id) as SimGroup;
      add((log, author) => log.projectShared(caller(author), project, invited, share.group_access_level));
    }
  }
  for (const group of dataset.groups) {
    for (const share of group.shared_with_groups) {
      const invited = groups.get(share.group_id) as SimGroup;
      add((log, author) => log.groupShared(caller(author), group, invited));
    }
  }
  let clock = 0;
  const log = new AuditLog([], () => clock);
  for (const { at, author, record } of made.sort((a, b) => a.at - b.at)) {
    clock = at;
    record(log, author);
  }
  return log.events;
}

const caller = (user: SimUser) => ({ id: user.id, username: user.username, name: user.name, is_admin: false });
