/** What Warden sends to share a project or group with a group, and what GitLab's answers to (un)sharing are. */

export type UnshareOutcome = "removed" | "already-gone";
export type ShareOutcome = "created" | "exists";

/** A share to create, of either kind: the group it grants access to, and on what terms. */
export interface NewShare {
  groupId: number;
  accessLevel: number;
  /** YYYY-MM-DD, or null for a share that does not expire. */
  expiresAt: string | null;
  /** A custom role (`member_role_id`), where custom roles are on; sent only when set. */
  memberRoleId?: number | null;
}

/**
 * The access levels a share may grant (`group_access`): Guest, Planner (GitLab 17.7 and later),
 * Reporter, Developer, Maintainer, Owner. GitLab answers 400 to any other.
 */
export const SHARE_ACCESS_LEVELS: ReadonlySet<number> = new Set([10, 15, 20, 30, 40, 50]);

/** GitLab's words for "that link exists already", old and new, on both kinds. */
export const ALREADY_SHARED = /already (been )?shared with this group/i;

/** The body of `POST /projects/:id/share` and `POST /groups/:id/share`; optional fields only when set. */
export function shareBody(share: NewShare): Record<string, unknown> {
  return {
    group_id: share.groupId,
    group_access: share.accessLevel,
    ...(share.expiresAt === null ? {} : { expires_at: share.expiresAt }),
    ...(share.memberRoleId == null ? {} : { member_role_id: share.memberRoleId }),
  };
}
