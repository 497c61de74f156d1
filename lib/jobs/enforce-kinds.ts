/**
 * The kinds of share Warden governs, as data: a project shared with a group, and a group shared with
 * a group. Each kind says how its subjects (projects, sharing groups) are examined, read again,
 * unshared and shared again, and how its actions name the subject; judging, the plan, the guard, the
 * removal loop, the plan-age re-check and the audit line are written once over them (enforce.ts,
 * enforce-removal.ts), and restore (restore.ts) reads and re-creates through the same table.
 */
import type { GitLabClient, GroupShare, NewShare, ShareOutcome, UnshareOutcome } from "../gitlab/index.ts";
import type { Policy, ShareInput } from "../policy/index.ts";
import { beginGroups, examineGroups, readGroupSubject, type GroupWork } from "./enforce-groups.ts";
import { beginProjects, examineProjects, readProjectSubject, type ProjectWork, type ScopeRoot } from "./enforce-listing.ts";
import type { Ledger } from "./enforce-moves.ts";
import type { Slots } from "./enforce-slots.ts";

export type ShareStatus = "planned" | "done" | "already-gone" | "skipped" | "failed";

/** The fields every removal carries, whatever its kind (restore re-creates a share from them). */
interface ShareFields {
  /** The group the share grants access to (the invited group). */
  groupId: number;
  group: string;
  accessLevel: number;
  /** YYYY-MM-DD, or null when the share does not expire. */
  expiresAt: string | null;
  /** The custom role, where GitLab gives one. */
  memberRoleId?: number;
  reason: string;
  /** "skipped": judged again before removal (the plan had grown old) and no longer stray. */
  status: ShareStatus;
  error?: string;
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

/** The fields that name a share's kind and subject, on a removal or on anything recording one (restore's input). */
export type ShareSubjectFields<A extends ShareRemoval = ShareRemoval> = A extends ShareRemoval ? Pick<A, Exclude<keyof A, keyof ShareFields | "type">> : never;

/** What is shared (a project, or the sharing group), with its direct shares as GitLab lists them. */
export interface Subject {
  id: number;
  path: string;
  shares: readonly GroupShare[];
}

/** What examining needs, whatever the kind. */
export interface Examination {
  gitlab: GitLabClient;
  policy: Policy;
  /** Whether the token sees every group (administrator or auditor). */
  seesAllGroups: boolean;
  /** Examination requests in flight at once, both kinds together. */
  concurrency: number;
  /**
   * The one pool of `concurrency` request slots every examination request takes (project pages, group
   * pages, group details): whichever kind still has work keeps every slot busy, where a pool per kind
   * would leave one idle as soon as its kind ran dry. Waiting requests are served by priority
   * (enforce-slots.ts): the longest listing chains first, group details whenever a slot is spare.
   */
  slots: Slots;
  signal: AbortSignal;
  /** Once aborted, the examination starts no request: what is left is handed back as work to resume. */
  pause?: AbortSignal;
  /** Each project judged in this slice, and by which listing (enforce-moves.ts). */
  ledger: Ledger;
  warnings: string[];
  /** Judges subjects of a kind other than the work's: a group's detail carries its own projects too. */
  judgeKind(kind: ShareRemoval["kind"], subjects: Subject[]): void;
  /**
   * Examines more work, of any kind, within this slice (a group's own projects too many for its
   * detail to carry); what a pause leaves goes to the slice's frontier. True when all of it was done.
   * It never rejects: a failure stops the whole examination, which throws it.
   */
  examine(work: ExaminationWork): Promise<boolean>;
}

/** A piece of the examination not yet done, of either kind, as data (JSON): a run in steps resumes from it. */
export type ExaminationWork = ProjectWork | GroupWork;

export interface ShareKindSpec<A extends ShareRemoval = ShareRemoval> {
  kind: A["kind"];
  /** The summary counters of this kind: subjects examined, and their shares. */
  counters: { subjects: "projects" | "groups"; shares: "shares" | "groupShares" };
  /**
   * The examination's first work for this kind: the scope groups (undefined: the whole instance), for
   * a token that sees every group or not.
   */
  begin(roots: readonly ScopeRoot[] | undefined, seesAllGroups: boolean): ExaminationWork[];
  /**
   * Does one piece of work and all it leads to, handing subjects to `judge` as they arrive; what a
   * pause (Examination.pause) leaves undone goes to `leave`.
   */
  examine(x: Examination, work: ExaminationWork, judge: (subjects: Subject[]) => void, leave: (work: ExaminationWork) => void): Promise<void>;
  /** The action's own fields, naming its kind and subject. */
  head(subject: Pick<Subject, "id" | "path">): Omit<A, keyof ShareFields>;
  subject(action: ShareSubjectFields<A>): Pick<Subject, "id" | "path">;
  /** Reads one subject as it is now; undefined when it is gone or out of the token's sight. */
  read(gitlab: GitLabClient, id: number, signal?: AbortSignal): Promise<Subject | undefined>;
  remove(gitlab: GitLabClient, subjectId: number, groupId: number, signal?: AbortSignal): Promise<UnshareOutcome>;
  /** Re-creates a share (restore); never repeated by lib/http once it may have arrived. */
  create(gitlab: GitLabClient, subjectId: number, share: NewShare, signal?: AbortSignal): Promise<ShareOutcome>;
  /**
   * Set for a kind whose removal GitLab may answer with success without removing: the subject is read
   * again after its removals, and a share still there fails with this message.
   */
  kept?(subjectPath: string): string;
}

const projectShares: ShareKindSpec<RemoveShareAction> = {
  kind: "project",
  counters: { subjects: "projects", shares: "shares" },
  begin: beginProjects,
  examine: (x, work, judge, leave) => examineProjects(x, work as ProjectWork, judge, leave),
  head: ({ id, path }) => ({ type: "remove-share", kind: "project", projectId: id, project: path }),
  subject: (a) => ({ id: a.projectId, path: a.project }),
  read: readProjectSubject,
  remove: (gitlab, id, groupId, signal) => gitlab.unshareProject(id, groupId, signal),
  create: (gitlab, id, share, signal) => gitlab.shareProject(id, share, signal),
};

const groupShares: ShareKindSpec<RemoveGroupShareAction> = {
  kind: "group",
  counters: { subjects: "groups", shares: "groupShares" },
  begin: beginGroups,
  examine: (x, work, judge, leave) => examineGroups(x, work as GroupWork, judge, leave),
  head: ({ id, path }) => ({ type: "remove-group-share", kind: "group", sharedGroupId: id, sharedGroup: path }),
  subject: (a) => ({ id: a.sharedGroupId, path: a.sharedGroup }),
  read: readGroupSubject,
  remove: (gitlab, id, groupId, signal) => gitlab.unshareGroup(id, groupId, signal),
  create: (gitlab, id, share, signal) => gitlab.shareGroup(id, share, signal),
  // GitLab answers 204 without removing anything when the token lacks Owner on the sharing group.
  kept: (path) => `GitLab answered 204 but kept the share: the token needs Owner on ${path}, or administrator`,
};

export const SHARE_KINDS: readonly ShareKindSpec[] = [projectShares, groupShares];

export function kindOf(action: Pick<ShareRemoval, "kind">): ShareKindSpec {
  return SHARE_KINDS.find((k) => k.kind === action.kind)!;
}

/** What the policy judges, the same for every kind. */
export function shareInput(kind: ShareKindSpec, subject: Subject, share: GroupShare): ShareInput {
  return { kind: kind.kind, target: subject.path, groupPath: share.group_full_path, accessLevel: share.group_access_level, expiresAt: share.expires_at ?? null };
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

export function plannedRemoval(kind: ShareKindSpec, subject: Subject, share: GroupShare, reason: string): ShareRemoval {
  return { ...kind.head(subject), ...shareFields(share, reason), status: "planned" } as ShareRemoval;
}

/** One audit line per removal attempt, with its final status as `outcome` (restore reads these). */
export function auditFields(action: ShareRemoval): Record<string, unknown> {
  const kind = kindOf(action);
  const { type: _type, ...subject } = kind.head(kind.subject(action));
  const { groupId, group, accessLevel, expiresAt, memberRoleId, reason, status, error } = action;
  return { ...subject, group, groupId, accessLevel, expiresAt, memberRoleId, rule: reason, outcome: status, error };
}
