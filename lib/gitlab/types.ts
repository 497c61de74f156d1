/** The fields Warden reads from GitLab v4 objects (docs/api-contract.md says where they come from). */

export interface ProjectShare {
  group_id: number;
  group_name: string;
  group_full_path: string;
  group_access_level: number;
  expires_at: string | null;
}

export type Visibility = "private" | "internal" | "public";

export interface Project {
  id: number;
  name: string;
  path: string;
  path_with_namespace: string;
  archived?: boolean | null;
  default_branch?: string | null;
  web_url?: string;
  /** ISO 8601; a transfer to another group moves it on, as any change to the project does. */
  updated_at?: string;
  /** Absent with `simple=true`. */
  visibility?: Visibility;
  /** Absent with `simple=true`; lists only groups the caller can see. */
  shared_with_groups?: ProjectShare[];
  /** The group (or user) it sits in. */
  namespace?: { id: number; kind?: string; full_path: string };
  /**
   * The CI file its pipelines run (Settings > CI/CD > CI/CD configuration file): null or empty for the
   * ref's own `.gitlab-ci.yml`, a path in the ref, `file@group/project[:ref]` in another project, or a URL.
   * Absent with `simple=true`.
   */
  ci_config_path?: string | null;
}

export interface Group {
  id: number;
  name: string;
  path: string;
  full_path: string;
  parent_id: number | null;
}

/** One entry of a group's `shared_with_groups`: a link this group made (`POST /groups/:id/share`). */
export interface GroupShare extends ProjectShare {
  /** Where custom roles are on. */
  member_role_id?: number | null;
}

/**
 * `GET /groups/:id`, the only answer that carries a group's shares: its direct links, to groups the
 * caller can see (all of them for administrators and auditors).
 */
export interface GroupDetail extends Group {
  shared_with_groups: GroupShare[];
  /**
   * With `with_projects=true`: up to 100 of the group's own projects (not its subgroups', not those
   * shared into it), each as a listing shows it, shares included. Deprecated for API v5, which drops it.
   */
  projects?: Project[];
}

export interface Namespace {
  id: number;
  name: string;
  path: string;
  kind: "user" | "group";
  full_path: string;
  parent_id: number | null;
}

export interface CurrentUser {
  id: number;
  username: string;
  is_admin?: boolean | null;
  /** GitLab EE auditors read everything too. */
  is_auditor?: boolean | null;
}

export interface Pipeline {
  id: number;
  iid: number;
  project_id: number;
  sha: string;
  ref: string;
  status: string;
  web_url: string;
}

export interface Issue {
  id: number;
  iid: number;
  project_id: number;
  title: string;
}

export interface Note {
  id: number;
  body: string;
  author?: { id: number };
}

export interface RepositoryFile {
  file_name: string;
  file_path: string;
  ref: string;
  content: string;
}

export interface Tag {
  name: string;
  commit?: { id: string };
  /** From the project's protected-tag rules, wildcards included; absent on GitLab versions older than the field. */
  protected?: boolean;
}

/** A protected-tag rule: a tag name, or a wildcard (`v*`), and who may create the tags it matches. */
export interface ProtectedTag {
  name: string;
  /** Each grant: a role (`access_level` 30 Developers, 40 Maintainers, 0 no one), a user or a group. */
  create_access_levels?: { access_level?: number | null }[];
}

export interface Branch {
  name: string;
  commit: { id: string };
  protected: boolean;
  /** True when a protected-branch rule for it lets Developers push (not only Maintainers). */
  developers_can_push?: boolean;
  /** True when a protected-branch rule for it lets Developers merge into it: each can merge a change of their own. */
  developers_can_merge?: boolean;
}

/** Requests a GitLabClient sent, by what they cost (GitLabClient.requestCounts). */
export interface RequestCounts {
  requests: number;
  retries: number;
  rateLimited: number;
  pages: number;
  /** GET /groups/:id, the endpoint GitLab.com limits to 400 a minute. */
  groupReads: number;
}
