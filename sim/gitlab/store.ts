import type { GitLabDataset, SimGroup, SimProject, SimShare, Visibility } from "./dataset.ts";
import { SimNotes } from "./notes-store.ts";
import { SimWork } from "./work-store.ts";
import { SimRepositories } from "./repository-store.ts";

/** Who is asking: `null` is an unauthenticated request. */
export interface Caller {
  id: number;
  username: string;
  /** The display name audit events record as `author_name` (default: the username). */
  name?: string;
  is_admin: boolean;
  /** GitLab EE auditors read everything and change only what they own; present for auditor tokens only. */
  is_auditor?: boolean;
  /** An administrator whose token acts as a plain user (Admin Mode on, no admin_mode scope): only GET /user says is_admin. */
  adminUserOnly?: true;
}

export interface Namespace {
  id: number;
  name: string;
  path: string;
  kind: "user" | "group";
  full_path: string;
  parent_id: number | null;
}

export interface Pipeline {
  id: number;
  project_id: number;
  ref: string;
  /** The commit the ref pointed at when the pipeline was created: what it runs. */
  sha: string;
  variables: { key: string; value: string }[];
  /** "created" until cancelled ("canceled", GitLab's spelling). */
  status: string;
  /** Whose token created it: the user its jobs run as. */
  user: string;
}

const NUMERIC = /^\d+$/;
/** Least visible first. */
const VISIBILITIES: readonly Visibility[] = ["private", "internal", "public"];

/**
 * The dataset with the indexes the routes need. Groups, users and projects are indexed at start,
 * and `moveProject` keeps the project indexes right; shares, branches and `updated_at` are read
 * live from the objects, so tests may edit those. Paths are looked up case-insensitively, as
 * GitLab's routes are.
 */
export class Store {
  readonly dataset: GitLabDataset;
  /** Every project, by ascending id. */
  readonly projects: SimProject[];
  readonly namespaces: Namespace[];
  readonly pipelines: Pipeline[] = [];
  /** What tests committed to projects' repositories. */
  readonly repositories = new SimRepositories();
  /** The seeded merge requests' notes. */
  readonly notes: SimNotes;
  /** Issues and merge requests created through the API. */
  readonly work: SimWork;
  private readonly projectById = new Map<number, SimProject>();
  private readonly projectByPath = new Map<string, SimProject>();
  private readonly projectByOldPath = new Map<string, SimProject>();
  private readonly groupById = new Map<number, SimGroup>();
  private readonly groupByPath = new Map<string, SimGroup>();
  private readonly childrenOf = new Map<number, SimGroup[]>();
  private readonly projectsByNamespace = new Map<number, SimProject[]>();
  private readonly subtreeProjects = new Map<number, SimProject[]>();
  private sharedInto: Map<number, SimProject[]> | undefined;
  private readonly namespaceById = new Map<number, Namespace>();
  private readonly namespaceByPath = new Map<string, Namespace>();
  private readonly pipelineIids = new Map<number, number>();
  private lastPipelineId = 0;
  private lastLinkId = 0;
  /** Dataset users and the tokens' users, by id: who audit events name as author. */
  private readonly userIds = new Map<number, { id: number; username: string; name: string }>();

  /** `clock`: the time stored issues are created, updated and closed at (default Date.now). */
  constructor(dataset: GitLabDataset, clock?: () => number) {
    this.dataset = dataset;
    this.work = new SimWork(clock);
    this.notes = new SimNotes(dataset.mergeRequests);
    this.projects = [...dataset.projects].sort((a, b) => a.id - b.id);
    for (const p of this.projects) {
      this.projectById.set(p.id, p);
      this.projectByPath.set(p.path_with_namespace.toLowerCase(), p);
      for (const old of p.previous_paths) this.projectByOldPath.set(old.toLowerCase(), p);
      push(this.projectsByNamespace, p.namespace_id, p);
    }
    for (const g of dataset.groups) {
      this.groupById.set(g.id, g);
      this.groupByPath.set(g.full_path.toLowerCase(), g);
      if (g.parent_id !== null) push(this.childrenOf, g.parent_id, g);
    }
    // A group's namespace id is its group id; user namespaces have ids of their own.
    this.namespaces = [
      ...dataset.groups.map((g): Namespace => ({ id: g.id, name: g.name, path: g.path, kind: "group", full_path: g.full_path, parent_id: g.parent_id })),
      ...dataset.users.map((u): Namespace => ({ id: u.namespace_id, name: u.name, path: u.username, kind: "user", full_path: u.username, parent_id: null })),
    ].sort((a, b) => a.id - b.id);
    for (const u of dataset.users) this.userIds.set(u.id, u);
    for (const ns of this.namespaces) {
      this.namespaceById.set(ns.id, ns);
      this.namespaceByPath.set(ns.full_path.toLowerCase(), ns);
    }
  }

  /** `ref` is a decoded `:id`: a numeric id or a full path, possibly an old one (`moved`). */
  findProject(ref: string): { project: SimProject; moved: boolean } | undefined {
    const current = NUMERIC.test(ref) ? this.projectById.get(Number(ref)) : this.projectByPath.get(ref.toLowerCase());
    if (current) return { project: current, moved: false };
    const old = this.projectByOldPath.get(ref.toLowerCase());
    return old && { project: old, moved: true };
  }

  userById(id: number): { id: number; username: string; name: string } | undefined {
    return this.userIds.get(id);
  }

  /** A dataset's or a token's user by username, any case, as `GET /users?username=` finds one. */
  userByUsername(username: string): { id: number; username: string; name: string } | undefined {
    return [...this.userIds.values()].find((u) => u.username.toLowerCase() === username.toLowerCase());
  }

  /** A token's user, known from then on to `GET /users/:id`. */
  addUser(caller: Caller): void {
    if (!this.userIds.has(caller.id)) this.userIds.set(caller.id, { id: caller.id, username: caller.username, name: caller.name ?? caller.username });
  }

  /** Any group by id, visible or not (links name groups by id). */
  groupOf(id: number): SimGroup | undefined {
    return this.groupById.get(id);
  }

  findGroup(ref: string, caller: Caller | null): SimGroup | undefined {
    const group = NUMERIC.test(ref) ? this.groupById.get(Number(ref)) : this.groupByPath.get(ref.toLowerCase());
    return group && this.canSee(caller, group) ? group : undefined;
  }

  findNamespace(ref: string, caller: Caller | null): Namespace | undefined {
    const ns = NUMERIC.test(ref) ? this.namespaceById.get(Number(ref)) : this.namespaceByPath.get(ref.toLowerCase());
    return ns && this.canSeeNamespace(caller, ns) ? ns : undefined;
  }

  namespaceOf(project: SimProject): Namespace | undefined {
    return this.namespaceById.get(project.namespace_id);
  }

  /** Admins and auditors see every group, signed-in users all but private ones, anonymous callers only public ones. */
  canSee(caller: Caller | null, group: SimGroup): boolean {
    if (caller?.is_admin || caller?.is_auditor) return true;
    return group.visibility === "public" || (caller !== null && group.visibility === "internal");
  }

  /**
   * A project's visibility: its own, or one derived from its id (about 55% private, 35% internal, 10%
   * public, as organisations mix them), never above its group's, as GitLab allows; private in a user's
   * namespace. Derived without the generator's random numbers, so every seed's dataset is unchanged.
   */
  visibilityOf(project: SimProject): Visibility {
    if (project.visibility) return project.visibility;
    const group = this.groupById.get(project.namespace_id);
    if (!group) return "private";
    const bucket = Math.imul(project.id, 2654435761) >>> 0;
    const wanted = VISIBILITIES[bucket % 100 < 55 ? 0 : bucket % 100 < 90 ? 1 : 2]!;
    return VISIBILITIES[Math.min(VISIBILITIES.indexOf(wanted), VISIBILITIES.indexOf(group.visibility))]!;
  }

  /**
   * GitLab's project visibility (ProjectsFinder's public_or_visible_to_user, find_project!): administrators
   * and auditors see every project, a signed-in user the public and internal ones and those they are a
   * member of (the project's `members`; an Owner of its group or an ancestor, membership being inherited;
   * an Owner of a group it is shared with, whose members the share makes the project's), an anonymous
   * caller the public ones. Group membership below Owner is not modelled.
   */
  canSeeProject(caller: Caller | null, project: SimProject): boolean {
    if (caller?.is_admin || caller?.is_auditor) return true;
    if (caller !== null && project.members?.[caller.username] !== undefined) return true;
    const groups = [project.namespace_id, ...project.shared_with_groups.map((s) => s.group_id)].map((id) => this.groupById.get(id));
    if (groups.some((group) => group !== undefined && this.canAdminGroup(caller, group))) return true;
    const visibility = this.visibilityOf(project);
    return visibility === "public" || (caller !== null && visibility === "internal");
  }

  /** Non-admins see the groups they can see and their own user namespace. */
  canSeeNamespace(caller: Caller | null, ns: Namespace): boolean {
    if (ns.kind === "user") return caller !== null && (caller.is_admin || caller.username === ns.path);
    const group = this.groupById.get(ns.id);
    return group !== undefined && this.canSee(caller, group);
  }

  /** A project's or group's `shared_with_groups` as the caller may see it; shares to unknown groups are shown. */
  visibleShares<S extends SimShare>(caller: Caller | null, shares: S[]): S[] {
    if (caller?.is_admin || caller?.is_auditor) return shares;
    return shares.filter((s) => {
      const group = this.groupById.get(s.group_id);
      return !group || this.canSee(caller, group);
    });
  }

  /** The group and its ancestors, nearest first. */
  lineage(group: SimGroup): SimGroup[] {
    const out: SimGroup[] = [];
    for (let g: SimGroup | undefined = group; g; g = g.parent_id === null ? undefined : this.groupById.get(g.parent_id)) out.push(g);
    return out;
  }

  /** Administrators, and Owners of the group or of an ancestor (Owner is inherited). Auditors only read. */
  canAdminGroup(caller: Caller | null, group: SimGroup): boolean {
    if (!caller) return false;
    return caller.is_admin || this.lineage(group).some((g) => g.owners?.includes(caller.username));
  }

  /** Projects outside the group that are shared with it, by id; shares are read live. */
  projectsSharedWith(groupId: number): SimProject[] {
    // Every group's detail asks this: an index, not a scan of every project per detail. It holds the
    // projects once shared with each group; whether they still are is read live.
    if (!this.sharedInto) {
      this.sharedInto = new Map();
      for (const p of this.projects) {
        for (const s of p.shared_with_groups) {
          const into = this.sharedInto.get(s.group_id);
          if (into) into.push(p);
          else this.sharedInto.set(s.group_id, [p]);
        }
      }
    }
    return (this.sharedInto.get(groupId) ?? []).filter((p) => p.namespace_id !== groupId && p.shared_with_groups.some((s) => s.group_id === groupId));
  }

  /** A project was shared with a group: the index of projects shared with each group is built again when next asked. */
  projectShared(): void {
    this.sharedInto = undefined;
  }

  /** Ids for new project links: GitLab answers a project share with the link's own id. */
  nextLinkId(): number {
    return ++this.lastLinkId;
  }

  children(groupId: number): readonly SimGroup[] {
    return this.childrenOf.get(groupId) ?? [];
  }

  descendants(groupId: number): SimGroup[] {
    const out: SimGroup[] = [];
    const stack = [...this.children(groupId)];
    for (let g = stack.pop(); g; g = stack.pop()) {
      out.push(g);
      stack.push(...this.children(g.id));
    }
    return out;
  }

  /** Projects whose namespace is the group (or, with subgroups, any group below it too), by id. */
  projectsOf(groupId: number, includeSubgroups: boolean): readonly SimProject[] {
    if (!includeSubgroups) return this.projectsByNamespace.get(groupId) ?? [];
    // Each subtree is gathered once until a move changes membership.
    let projects = this.subtreeProjects.get(groupId);
    if (!projects) {
      const ids = [groupId, ...this.descendants(groupId).map((g) => g.id)];
      projects = ids.flatMap((id) => this.projectsByNamespace.get(id) ?? []).sort((a, b) => a.id - b.id);
      this.subtreeProjects.set(groupId, projects);
    }
    return projects;
  }

  /**
   * GitLab's project transfer: the project joins the group under its own path, its old path
   * redirects, and it counts as updated now. Like GitLab, refuses a move into the project's own
   * namespace or onto a path the group already holds (here by throwing).
   */
  moveProject(projectId: number, groupId: number): SimProject {
    const project = this.projectById.get(projectId);
    const group = this.groupById.get(groupId);
    if (!project || !group) throw new Error(`moveProject: no project ${projectId} or no group ${groupId}`);
    if (project.namespace_id === group.id) throw new Error(`moveProject: project ${projectId} is already in ${group.full_path}`);
    const from = this.projectsByNamespace.get(project.namespace_id)!;
    this.route(project, group, project.path);
    from.splice(from.indexOf(project), 1);
    const to = this.projectsByNamespace.get(group.id) ?? [];
    const at = to.findIndex((p) => p.id > project.id);
    to.splice(at < 0 ? to.length : at, 0, project);
    this.projectsByNamespace.set(group.id, to);
    this.subtreeProjects.clear();
    return project;
  }

  /** GitLab's rename of a project's path in its own group: the old path redirects, as after a transfer. */
  renameProject(projectId: number, path: string): SimProject {
    const project = this.projectById.get(projectId);
    const group = project && this.groupById.get(project.namespace_id);
    if (!project || !group) throw new Error(`renameProject: no project ${projectId} in a group`);
    this.route(project, group, path);
    project.name = path;
    return project;
  }

  /**
   * A new, empty project at `path` in the group (default branch main), with the next id. Like GitLab,
   * it takes the path over from a project that moved away from it: the old path's redirect is gone.
   */
  createProject(groupId: number, path: string): SimProject {
    const group = this.groupById.get(groupId);
    if (!group) throw new Error(`createProject: no group ${groupId}`);
    const full = `${group.full_path}/${path}`;
    if (this.projectByPath.has(full.toLowerCase())) throw new Error(`createProject: ${full} already exists`);
    this.dropRedirect(full.toLowerCase());
    const id = (this.projects.at(-1)?.id ?? 0) + 1;
    const project: SimProject = {
      id, name: path, path, path_with_namespace: full, namespace_id: group.id, shared_with_groups: [],
      default_branch: "main", branches: ["main"], archived: false, previous_paths: [], updated_at: new Date().toISOString(),
    };
    this.projects.push(project);
    this.dataset.projects.push(project);
    this.projectById.set(id, project);
    this.projectByPath.set(full.toLowerCase(), project);
    push(this.projectsByNamespace, group.id, project);
    this.subtreeProjects.clear();
    return project;
  }

  /** Gives the project the path `path` in `group`; its old path redirects to it. Refuses a path taken. */
  private route(project: SimProject, group: SimGroup, path: string): void {
    const oldPath = project.path_with_namespace;
    const newPath = `${group.full_path}/${path}`;
    const newKey = newPath.toLowerCase();
    if (this.projectByPath.has(newKey)) throw new Error(`${newPath} already exists`);
    this.dropRedirect(newKey);
    this.projectByPath.delete(oldPath.toLowerCase());
    this.projectByPath.set(newKey, project);
    this.projectByOldPath.set(oldPath.toLowerCase(), project);
    project.previous_paths.push(oldPath);
    project.namespace_id = group.id;
    project.path = path;
    project.path_with_namespace = newPath;
    project.updated_at = new Date().toISOString();
  }

  /** A new route deletes any redirect from the same path (a project's own, when it moves back). */
  private dropRedirect(key: string): void {
    const redirected = this.projectByOldPath.get(key);
    if (!redirected) return;
    const i = redirected.previous_paths.findIndex((old) => old.toLowerCase() === key);
    if (i >= 0) redirected.previous_paths.splice(i, 1);
    this.projectByOldPath.delete(key);
  }

  addPipeline(project: SimProject, created: Omit<Pipeline, "id" | "project_id" | "status">): { pipeline: Pipeline; iid: number } {
    const iid = (this.pipelineIids.get(project.id) ?? 0) + 1;
    this.pipelineIids.set(project.id, iid);
    const pipeline = { id: ++this.lastPipelineId, project_id: project.id, ...created, status: "created" };
    this.pipelines.push(pipeline);
    return { pipeline, iid };
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
