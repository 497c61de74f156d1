/** The simulator's data model: plain objects, shaped like GitLab's own JSON where they overlap. */

export type Visibility = "public" | "internal" | "private";

export interface SimGroup {
  id: number;
  name: string;
  path: string;
  full_path: string;
  parent_id: number | null;
  visibility: Visibility;
  /** Direct group-to-group links this group made (`POST /groups/:id/share`); descendants' links are theirs. */
  shared_with_groups: SimGroupShare[];
  /**
   * Usernames with the Owner role here; Owner is inherited by every descendant group. Only Owners
   * (and administrators) may change the group's shares.
   */
  owners?: string[];
  /** "Share with group lock": no project in this group or below may be shared with another group. */
  share_with_group_lock?: boolean;
}

/** One entry of a project's `shared_with_groups`. */
export interface SimShare {
  group_id: number;
  group_name: string;
  group_full_path: string;
  group_access_level: number;
  expires_at: string | null;
}

/** One entry of a group's `shared_with_groups`; `member_role_id` appears where custom roles are on. */
export interface SimGroupShare extends SimShare {
  member_role_id?: number | null;
}

export interface SimProject {
  id: number;
  name: string;
  path: string;
  path_with_namespace: string;
  namespace_id: number;
  shared_with_groups: SimShare[];
  default_branch: string;
  branches: string[];
  /**
   * Protected-branch rules, names or wildcards (`release/*`; protected-refs.ts): a branch's `protected`
   * comes from them. Absent: the default branch alone, as GitLab protects it in a new project.
   */
  protected_branches?: string[];
  /**
   * Of those rules, the ones that let Developers push and merge too (Settings > Repository > Protected
   * branches, "Developers + Maintainers"): a branch they match answers `developers_can_push: true`.
   * Absent: none, as GitLab's default protection lets only Maintainers push.
   */
  developer_push_branches?: string[];
  /**
   * Of those rules, the ones that let Developers merge but only Maintainers push ("Allowed to merge:
   * Developers + Maintainers", what GitLab's default branch protection "Protected against pushes"
   * gives): a branch they match answers `developers_can_merge: true`, `developers_can_push: false`.
   */
  developer_merge_branches?: string[];
  /** Settings > CI/CD > CI/CD configuration file (`ci/x.yml`, `x.yml@group/project:ref`, a URL); absent: the default, answered as null. */
  ci_config_path?: string;
  /** Protected-tag rules, likewise; absent: none. */
  protected_tags?: string[];
  /** Of those rules, the ones that let Developers create tags too ("Allowed to create": Developers + Maintainers). */
  developer_create_tags?: string[];
  archived: boolean;
  /** Old `path_with_namespace` values: requests through them are redirected. */
  previous_paths: string[];
  /** ISO 8601 with milliseconds, as GitLab writes it; absent reads as the creation time. */
  updated_at?: string;
  /** Absent: derived from the id, never above its group's (Store.visibilityOf). */
  visibility?: Visibility;
  /**
   * Present: the project is private to these usernames (access level each, ACCESS) and administrators;
   * anyone else is answered 404 Project Not Found, as GitLab hides a private project.
   */
  members?: Record<string, number>;
}

export interface SimUser {
  id: number;
  username: string;
  name: string;
  namespace_id: number;
}

export interface GitLabDataset {
  groups: SimGroup[];
  users: SimUser[];
  projects: SimProject[];
  /** Audit events recorded before the simulator starts (older GitLab rows without `event_name`, say). */
  auditEvents?: SimAuditEvent[];
  /** Merge requests that take notes (notes.ts); none unless seeded. */
  mergeRequests?: SimMergeRequest[];
}

export interface SimMergeRequest {
  project_id: number;
  iid: number;
  title?: string;
  /** The source branch's head, as GitLab answers it (GET /projects/:id/merge_requests/:iid); null where unset. */
  sha?: string;
}

/** GitLab's access levels (planner 15 and minimal access 5 exist too, unused here). */
export const ACCESS = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;

export type AuditEntityType = "Group" | "Project" | "User" | "Gitlab::Audit::InstanceScope";

export interface SimAuditEvent {
  id: number;
  author_id: number;
  entity_id: number;
  entity_type: AuditEntityType;
  /** Absent on rows older GitLab versions wrote (before 15.9 for project shares). */
  event_name?: string;
  details: Record<string, unknown>;
  /** ISO 8601 with milliseconds. */
  created_at: string;
}

/** "premium" and "ultimate" have audit events; a "free" instance answers their routes 403 or 404. */
export type Tier = "free" | "premium" | "ultimate";
