import type { RequestContext } from "./context.ts";
import type { SimGroup, SimProject } from "./dataset.ts";
import type { Namespace } from "./store.ts";
import { visibleProjects } from "./visible-projects.ts";

// Creation times follow ids, as they do on a real instance.
const EPOCH = Date.UTC(2020, 0, 1);
const createdMs = (id: number): number => EPOCH + id * 60_000;
// Formatted once per id: every group detail writes two dates for each of up to 100 projects, and
// formatting them was an eighth of the simulator's time per detail, time a benchmark counts against the client.
const created = new Map<number, string>();
const createdAt = (id: number): string => {
  let at = created.get(id);
  if (at === undefined) created.set(id, (at = new Date(createdMs(id)).toISOString()));
  return at;
};

/** A project never updated since it was created reads as its creation time. */
export const updatedAt = (p: SimProject): string => p.updated_at ?? createdAt(p.id);
/** `updatedAt` in milliseconds, for ordering without formatting every project's date. */
export const updatedMs = (p: SimProject): number => (p.updated_at === undefined ? createdMs(p.id) : Date.parse(p.updated_at));

export const namespaceJson = (ctx: RequestContext, ns: Namespace) => ({
  ...ns,
  web_url: ns.kind === "group" ? `${ctx.baseUrl}/groups/${ns.full_path}` : `${ctx.baseUrl}/${ns.full_path}`,
});

/** GitLab's Group entity, as lists present it: no shares, no owners. */
export const groupJson = (ctx: RequestContext, g: SimGroup) => ({
  id: g.id,
  name: g.name,
  path: g.path,
  full_path: g.full_path,
  parent_id: g.parent_id,
  visibility: g.visibility,
  share_with_group_lock: g.share_with_group_lock ?? false,
  web_url: `${ctx.baseUrl}/groups/${g.full_path}`,
});

/** Most projects GitLab embeds in a group detail, for each of `projects` and `shared_projects`. */
const EMBEDDED_PROJECTS = 100;

/**
 * GitLab's GroupDetail entity: the group's direct links (only to groups the caller can see) and,
 * with `withProjects`, up to 100 of its own projects and 100 projects shared with it, newest first
 * (GroupProjectsFinder's default order, limited to 100).
 */
export function groupDetailJson(ctx: RequestContext, g: SimGroup, withProjects: boolean) {
  const detail = { ...groupJson(ctx, g), shared_with_groups: ctx.store.visibleShares(ctx.caller, g.shared_with_groups) };
  if (!withProjects || !ctx.detailProjects) return detail;
  const embed = (projects: readonly SimProject[]) =>
    ctx.detailProjects === "empty" ? [] : visibleProjects(ctx, [...projects].sort((a, b) => b.id - a.id)).slice(0, EMBEDDED_PROJECTS).map((p) => projectJson(ctx, p, false));
  return { ...detail, projects: embed(ctx.store.projectsOf(g.id, false)), shared_projects: embed(ctx.store.projectsSharedWith(g.id)) };
}

/** `simple=true` leaves out `archived`, `visibility` and `shared_with_groups`, as GitLab's simple entity does. */
export function projectJson(ctx: RequestContext, p: SimProject, simple: boolean) {
  const ns = ctx.store.namespaceOf(p);
  const base = {
    id: p.id,
    name: p.name,
    path: p.path,
    path_with_namespace: p.path_with_namespace,
    default_branch: p.default_branch,
    created_at: createdAt(p.id),
    updated_at: updatedAt(p),
    web_url: `${ctx.baseUrl}/${p.path_with_namespace}`,
    namespace: ns && namespaceJson(ctx, ns),
  };
  if (simple) return base;
  return {
    ...base,
    archived: p.archived,
    ...(ctx.projectVisibility === "none" ? {} : { visibility: ctx.store.visibilityOf(p) }),
    shared_with_groups: ctx.store.visibleShares(ctx.caller, p.shared_with_groups),
    ci_config_path: p.ci_config_path ?? null,
  };
}
