/** What the access review (`warden report shares`) lists and counts, and what it takes. */
import type { GitLabClient } from "../../gitlab/index.ts";
import type { EnforceTarget } from "../enforce/summary.ts";
import type { Report } from "../report/index.ts";
import type { AddedBy, Attribution, NoticeRef, RemoveGroupShareAction, RemoveShareAction, ShareSubjectFields } from "../shares/plan.ts";
import type { Policy } from "../../policy/index.ts";

/** A share's verdict under the policy: what the review says of each listed share. */
export const REVIEW_STATUSES = ["allowed", "exempt", "stray"] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/**
 * One share in scope, of either kind, named as a removal names it (kind and subject: `project`/
 * `projectId`, or `sharedGroup`/`sharedGroupId`), so attribution reads it as it reads a removal.
 */
export type ReviewedShare = ReviewedFields<RemoveShareAction> | ReviewedFields<RemoveGroupShareAction>;

type ReviewedFields<A extends RemoveShareAction | RemoveGroupShareAction> = ShareSubjectFields<A> & {
  /** The invited group. */
  groupId: number;
  group: string;
  accessLevel: number;
  accessLevelName: string;
  /** YYYY-MM-DD, or null when the share does not expire. */
  expiresAt: string | null;
  memberRoleId?: number;
  status: ReviewStatus;
  /** The rule that allows or exempts it ("allow[0] acme/**"), or why it is stray. */
  rule: string;
  /**
   * A stray share's notice, where the policy's onStray is notify for it (lib/jobs/notices/): the open
   * issue (iid, url, its due date as it stands, days left), or, without iid and url, none open yet
   * (dueDate: the one a notice opened now would get). Absent: not stray, not under notify, or the
   * notices project could not be read (a warning says so).
   */
  notice?: ReviewNotice;
  /** As on a removal: who created the share (or last raised its level) and when; absent: not attributed (the run stopped first). */
  addedBy?: AddedBy | null;
  attribution?: Attribution;
};

/** A notice as the review shows it: as enforce's dry run read it, never closed by this run. */
export type ReviewNotice = Omit<NoticeRef, "closed">;

export interface ReviewSummary {
  /** Projects and groups examined (enforce's counts). */
  projects: number;
  groups: number;
  /** Shares listed, by verdict (shares outside the scope are not listed). */
  listed: number;
  allowed: number;
  exempt: number;
  strays: number;
  /** Listed shares whose author attribution found. */
  attributed: number;
  /** The days of audit events read (gitlab.attribution.days; 0: attribution off). */
  attributionDays: number;
  /** Groups whose audit events record the listed shares: attribution lists each at most once, newest first, within attributionDays. */
  attributionGroups: number;
  /** False when the run stopped before the examination's end: the list is incomplete. */
  complete: boolean;
}

export type ReviewReport = Report<ReviewedShare, ReviewSummary>;

export interface ReviewOptions {
  gitlab: GitLabClient;
  policy: Policy;
  /** Limits the review to these parts of the scope, as enforce's --target does. */
  targets?: readonly EnforceTarget[];
  listConcurrency?: number;
  signal?: AbortSignal;
  now?: Date;
  onProgress?: (p: { projects: number; groups: number; shares: number }) => void;
}
