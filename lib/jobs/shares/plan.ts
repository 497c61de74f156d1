/**
 * The removal plan as data: the kinds of share Warden governs (a project shared with a group, and a
 * group shared with a group), the one shape of a removal, its statuses, and the one identity key of a
 * share and of its subject. Enforce plans and applies these, restore reads them back, the views show
 * them; the I/O on one subject is shares/kinds.ts.
 */
import type { GroupShare } from "../../gitlab/index.ts";
import type { ShareInput } from "../../policy/index.ts";

/**
 * A removal's statuses, and those of a stray share the policy does not remove at once (onStray,
 * lib/jobs/notices/): "notify" (a notice to open), "noticed" (opened by this run), "pending" (its
 * notice stands, not yet due), "reported" (onStray report: only reported).
 */
export const SHARE_STATUSES = ["planned", "done", "already-gone", "skipped", "failed", "notify", "noticed", "pending", "reported"] as const;
export type ShareStatus = (typeof SHARE_STATUSES)[number];

/** The audit event that created a share or last raised its level: its author, time and id. */
export interface AddedBy {
  name: string;
  /** null for deploy tokens and keys, or a user GitLab no longer shows. */
  username: string | null;
  /** ISO 8601, the event's created_at. */
  at: string;
  eventId: number;
}

/**
 * Why a removal has no author: no event found within gitlab.attribution.days ("not recorded"), the
 * events could not be read by this token ("not visible"), or attribution is off (by the policy, or on
 * a GitLab without audit events: Free).
 */
export const ATTRIBUTIONS = ["not recorded", "not visible", "off"] as const;
export type Attribution = (typeof ATTRIBUTIONS)[number];

/** A notice as a stray share's action carries it: the issue (absent for one still to open) and its due date. */
export interface NoticeRef {
  iid?: number;
  url?: string;
  /** The due_date, as a person may have moved it (for one to open, the date it gets); null: none set. */
  dueDate: string | null;
  /** Whole UTC days until dueDate (0 or less: due); null without a due date. */
  daysLeft: number | null;
  /** Closed by this run (its share removed, or no longer to be removed). */
  closed?: boolean;
  /**
   * The oldest notice of the share a person closed before the share was resolved (no notice open):
   * dueDate is counted from its opening, not from now, and it is left closed (lib/jobs/notices/closed.ts).
   */
  earlier?: { iid: number; url: string };
}

/** The fields every removal carries, whatever its kind (restore re-creates a share from them). */
interface ShareFields {
  /** The group the share grants access to (the invited group). */
  groupId: number;
  group: string;
  accessLevel: number;
  /** In reports only (lib/jobs/envelope.ts): "developer" beside 30. */
  accessLevelName?: string;
  /** YYYY-MM-DD, or null when the share does not expire. */
  expiresAt: string | null;
  /** The custom role, where GitLab gives one. */
  memberRoleId?: number;
  reason: string;
  /**
   * Who created the share (or last raised its level) and when, from GitLab's audit events
   * (enforce/attribution.ts); null when not known, `attribution` saying why. Absent: not attributed.
   */
  addedBy?: AddedBy | null;
  attribution?: Attribution;
  /** The share's notice (onStray notify, lib/jobs/notices/): the issue, or the one to open. */
  notice?: NoticeRef;
  /** "skipped": judged again before removal (the plan had grown old) and no longer stray, or (a saved plan) changed since. */
  status: ShareStatus;
  error?: string;
  /**
   * On a failed removal: whether another attempt would meet the same failure (GitLab refused it, or
   * answered success and kept the share), judged where it failed (shares/remove.ts); false for one that
   * may pass (a 5xx, a timeout, a 429, a connection lost, an answer cut short). Absent on every other
   * status, and in reports of earlier Warden versions (watch/retries.ts says how those are judged).
   */
  lasting?: boolean;
  /** Planned, and GitLab refused it (lasting) in the last full run under the same policy: tried again, not counted by the guard (enforce/rules.ts refusedBefore). */
  refusedBefore?: true;
}

export interface RemoveShareAction extends ShareFields {
  type: "remove-share";
  kind: "project";
  projectId: number;
  project: string;
}

export interface RemoveGroupShareAction extends ShareFields {
  type: "remove-group-share";
  kind: "group";
  /** The group that shares. */
  sharedGroupId: number;
  sharedGroup: string;
}

export type ShareRemoval = RemoveShareAction | RemoveGroupShareAction;
export type ShareKindName = ShareRemoval["kind"];

/** The fields that name a share's kind and subject, on a removal or on anything recording one (restore's input). */
export type ShareSubjectFields<A extends ShareRemoval = ShareRemoval> = A extends ShareRemoval ? Pick<A, Exclude<keyof A, keyof ShareFields | "type">> : never;

/**
 * What names one share, on a removal or on any row listing one (the access review's): its kind and
 * subject, and the group it is shared with. All that ordering (byKindAndPath) and attribution's
 * choice of the group whose audit events record it read.
 */
export type ShareRef = ShareSubjectFields & { groupId: number; group: string };

/** A share as it was removed, all restore needs to re-create it: the removal without its type, verdict and outcome. */
export type RemovedShare<A extends ShareRemoval = ShareRemoval> = A extends ShareRemoval ? Omit<A, "type" | "reason" | "status" | "error" | "lasting"> : never;

/** What is shared (a project, or the sharing group), with its direct shares as GitLab lists them. */
export interface Subject {
  id: number;
  path: string;
  shares: readonly GroupShare[];
}

type SubjectRef = Pick<Subject, "id" | "path">;

/** What a removing job (enforce, apply) counts of its plan in its report's summary, by the same names. */
export interface RemovalCounts {
  strays: number;
  removed: number;
  alreadyGone: number;
  skipped: number;
  failed: number;
  maxRemovals: number;
}

/** The action type of a removal, by kind (also the message of its audit line). */
export const REMOVAL_TYPES = { project: "remove-share", group: "remove-group-share" } as const satisfies { [K in ShareKindName]: Extract<ShareRemoval, { kind: K }>["type"] };

interface KindNames<A extends ShareRemoval> {
  /** The action's own fields, naming its kind and subject. */
  head(subject: SubjectRef): Omit<A, keyof ShareFields>;
  subject(action: ShareSubjectFields<A>): SubjectRef;
}

const NAMES: { [K in ShareKindName]: KindNames<Extract<ShareRemoval, { kind: K }>> } = {
  project: {
    head: ({ id, path }) => ({ type: REMOVAL_TYPES.project, kind: "project", projectId: id, project: path }),
    subject: (a) => ({ id: a.projectId, path: a.project }),
  },
  group: {
    head: ({ id, path }) => ({ type: REMOVAL_TYPES.group, kind: "group", sharedGroupId: id, sharedGroup: path }),
    subject: (a) => ({ id: a.sharedGroupId, path: a.sharedGroup }),
  },
};

/** The kinds, in the order the examination begins them and the plan lists them. */
export const SHARE_KIND_NAMES: readonly ShareKindName[] = ["project", "group"];

/** The summary counters of each kind: subjects examined, and their shares. */
export const KIND_COUNTERS = {
  project: { subjects: "projects", shares: "shares" },
  group: { subjects: "groups", shares: "groupShares" },
} as const satisfies Record<ShareKindName, { subjects: string; shares: string }>;

/** What the share is on: the project, or the group that shares. */
export function subjectOf(a: ShareSubjectFields): SubjectRef {
  return (NAMES[a.kind].subject as (a: ShareSubjectFields) => SubjectRef)(a);
}

/**
 * A subject's path field as GitLab names it now ({ project } or { sharedGroup }): what a report and an
 * audit line name, never the name a plan or restore input gives (anyone who can edit one writes that).
 */
export function subjectNamed(kind: ShareKindName, path: string): { project: string } | { sharedGroup: string } {
  return kind === "project" ? { project: path } : { sharedGroup: path };
}

/** The one identity of a subject, e.g. "project:42". */
export function subjectKey(a: ShareSubjectFields): string {
  return `${a.kind}:${subjectOf(a).id}`;
}

/** The one identity of a share, e.g. "project:42:7" (the subject, and the group it is shared with). */
export function shareKey(a: ShareSubjectFields & { groupId: number }): string {
  return `${subjectKey(a)}:${a.groupId}`;
}

/** What the policy judges, the same for every kind. */
export function shareInput(kind: ShareKindName, subject: SubjectRef, share: GroupShare): ShareInput {
  return { kind, target: subject.path, groupPath: share.group_full_path, accessLevel: share.group_access_level, expiresAt: share.expires_at ?? null, memberRoleId: share.member_role_id };
}

/** The fields of a removal taken from the share as GitLab listed it. */
export function shareFields(share: GroupShare, reason: string): Omit<ShareFields, "status"> {
  return {
    groupId: share.group_id,
    group: share.group_full_path,
    accessLevel: share.group_access_level,
    expiresAt: share.expires_at ?? null,
    ...(typeof share.member_role_id === "number" ? { memberRoleId: share.member_role_id } : {}),
    reason,
  };
}

export function plannedRemoval(kind: ShareKindName, subject: SubjectRef, share: GroupShare, reason: string): ShareRemoval {
  return { ...NAMES[kind].head(subject), ...shareFields(share, reason), status: "planned" } as ShareRemoval;
}

/** One audit line per removal attempt, with its final status as `outcome` (restore reads these). */
export function auditFields(action: ShareRemoval): Record<string, unknown> {
  const { type: _type, ...subject } = NAMES[action.kind].head(subjectOf(action));
  const { groupId, group, accessLevel, expiresAt, memberRoleId, reason, status, error, addedBy, attribution } = action;
  return { ...subject, group, groupId, accessLevel, expiresAt, memberRoleId, addedBy, attribution, rule: reason, outcome: status, error };
}

/**
 * The plan's order: by kind, then subject path, subject id, and the group shared with. Paths compare
 * by code unit, not localeCompare: the same on every machine whatever its locale, and without mapping
 * ICU's collation data into the process.
 */
export function byKindAndPath(a: ShareRef, b: ShareRef): number {
  const [x, y] = [subjectOf(a), subjectOf(b)];
  return SHARE_KIND_NAMES.indexOf(a.kind) - SHARE_KIND_NAMES.indexOf(b.kind) || byCodeUnit(x.path, y.path) || x.id - y.id || byCodeUnit(a.group, b.group);
}

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The most strays one run plans, and differences a comparison lists (enforce/phases/examine.ts stops at
 * either): each is held until the report, a few hundred bytes, so a GitLab (or something in front of it)
 * listing strays without end would otherwise fill the heap and end the process with no report. An
 * organisation's honest plan is far smaller; one this large is a policy that allows almost nothing, for a
 * run over less of the scope. Neither a plan file (plan-file.ts) nor a restore's input (restore/input.ts)
 * holding more removals than this is taken.
 */
export const MAX_PLANNED = 100_000;
