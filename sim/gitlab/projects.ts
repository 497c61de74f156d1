import { boolParam, intParam, invalid, sortParam, stringParam } from "./context.ts";
import type { Handler, RequestContext } from "./context.ts";
import type { SimProject } from "./dataset.ts";
import { findGroup } from "./groups.ts";
import { HttpError, notFound } from "./http.ts";
import { decodeCursor, encodeCursor, keysetPage, keysetUnavailable, lazyList, listReply, lowerBound, offsetPage } from "./pagination.ts";
import type { Sliceable } from "./pagination.ts";
import { projectJson, updatedMs } from "./serialize.ts";
import { visibleProjects } from "./visible-projects.ts";

/**
 * The project named by `:id`. Through an old path, GET is redirected (301, Location by numeric id,
 * rest of the URL kept) and any other method refused, 405, as GitLab's find_project! does.
 */
export function findProject(ctx: RequestContext): SimProject {
  const found = ctx.store.findProject(ctx.path["id"]!);
  if (!found || !ctx.store.canSeeProject(ctx.caller, found.project)) throw notFound("Project");
  if (!found.moved) return found.project;
  if (ctx.method !== "GET") throw new HttpError(405, { message: "Non GET methods are not allowed for moved projects" });
  // rawPath is /api/v4/projects/<old path>[/rest]
  const rest = ctx.rawPath.split("/").slice(5);
  const location = [`${ctx.baseUrl}/api/v4/projects/${found.project.id}`, ...rest].join("/") + (ctx.rawQuery ? `?${ctx.rawQuery}` : "");
  throw new HttpError(301, { message: `301 Moved Permanently: this project has moved permanently to ${location}` }, { location });
}


/** Projects with after < id < before, in id order (ascending or descending), without copying. */
function idRange(sorted: readonly SimProject[], after: number | undefined, before: number | undefined, desc: boolean): Sliceable<SimProject> {
  const lo = after === undefined ? 0 : lowerBound(sorted, (p) => p.id > after);
  const hi = before === undefined ? sorted.length : lowerBound(sorted, (p) => p.id >= before);
  return lazyList(Math.max(0, hi - lo), (i) => sorted[desc ? hi - 1 - i : lo + i]!);
}

/** A copy by `updated_at`, ties by id, both in one direction (GitLab's updated_at_asc/_desc). */
function byUpdatedAt(projects: Sliceable<SimProject>, desc: boolean): SimProject[] {
  const dir = desc ? -1 : 1;
  const keyed = projects.slice(0, projects.length).map((p) => ({ p, t: updatedMs(p) }));
  return keyed.sort((a, b) => dir * (a.t - b.t || a.p.id - b.p.id)).map((k) => k.p);
}

/** Orders simulated on both project listings; creation order is id order. */
function orderParam(ctx: RequestContext): "id" | "created_at" | "updated_at" {
  const orderBy = stringParam(ctx, "order_by") ?? "created_at";
  if (orderBy !== "id" && orderBy !== "created_at" && orderBy !== "updated_at") throw invalid("order_by", "does not have a valid value");
  return orderBy;
}

/**
 * Offset by default; keyset with `pagination=keyset&order_by=id`. `id_after`/`id_before` filter in
 * both modes, which is also how keyset moves on. Order is by creation (= id) or by `updated_at`
 * (offset only), newest first by default. Other orderings are not simulated (400).
 */
export const listProjects: Handler = (ctx) => {
  const keyset = stringParam(ctx, "pagination") === "keyset";
  if (keyset && stringParam(ctx, "order_by") !== "id") throw keysetUnavailable();
  const orderBy = orderParam(ctx);
  const desc = sortParam(ctx, "desc") === "desc";
  const bound = desc ? "id_before" : "id_after";
  const bounds = { id_after: intParam(ctx, "id_after"), id_before: intParam(ctx, "id_before") };
  const cursor = decodeCursor(ctx);
  if (cursor) {
    const id = Number(cursor["id"]);
    if (!Number.isInteger(id)) throw invalid("cursor");
    bounds[bound] = id;
  }
  const view = visibleProjects(
    ctx,
    orderBy === "updated_at" ? byUpdatedAt(idRange(ctx.store.projects, bounds.id_after, bounds.id_before, false), desc) : idRange(ctx.store.projects, bounds.id_after, bounds.id_before, desc),
  );
  const simple = boolParam(ctx, "simple", false);
  const serialize = (p: SimProject) => projectJson(ctx, p, simple);
  if (!keyset) return listReply(offsetPage(ctx, view, "Project"), serialize);
  const page = keysetPage(ctx, view, (last) => ({ params: { [bound]: String(last.id) }, cursor: encodeCursor({ id: String(last.id) }) }));
  return listReply(page, serialize);
};

export const getProject: Handler = (ctx) => ({ status: 200, body: projectJson(ctx, findProject(ctx), false) });

/**
 * `include_subgroups` (default false) widens the group to its descendants; `with_shared` (default
 * true) adds projects shared into any of those groups from elsewhere; `visibility` keeps those of one
 * (ignored where the simulator plays a GitLab without it). Ordered by id (`sort` asc,
 * the default here, or desc) or by `updated_at` (`sort` desc by default, as GitLab's), no offset limit.
 * Shares are read live, so `with_shared` scans every project (some milliseconds at 100,000).
 */
export const listGroupProjects: Handler = (ctx) => {
  const group = findGroup(ctx);
  const orderBy = orderParam(ctx);
  const subgroups = boolParam(ctx, "include_subgroups", false);
  const simple = boolParam(ctx, "simple", false);
  const own = ctx.store.projectsOf(group.id, subgroups);
  let projects: readonly SimProject[] = own;
  if (boolParam(ctx, "with_shared", true)) {
    const ids = new Set([group.id, ...(subgroups ? ctx.store.descendants(group.id).map((g) => g.id) : [])]);
    const sharedIn = ctx.store.projects.filter((p) => !ids.has(p.namespace_id) && p.shared_with_groups.some((s) => ids.has(s.group_id)));
    // Two runs already in id order: the sort merges them.
    if (sharedIn.length > 0) projects = [...own, ...sharedIn].sort((a, b) => a.id - b.id);
  }
  projects = visibleProjects(ctx, projects);
  const visibility = stringParam(ctx, "visibility");
  if (visibility !== undefined && ctx.projectVisibility === "full") {
    if (!["private", "internal", "public"].includes(visibility)) throw invalid("visibility", "does not have a valid value");
    projects = projects.filter((p) => ctx.store.visibilityOf(p) === visibility);
  }
  const desc = sortParam(ctx, orderBy === "updated_at" ? "desc" : "asc") === "desc";
  // order_by=id and created_at list alike; sort=desc reverses them.
  const byId = desc ? lazyList(projects.length, (i) => projects[projects.length - 1 - i]!) : projects;
  const ordered = orderBy === "updated_at" ? byUpdatedAt(projects, desc) : byId;
  return listReply(offsetPage(ctx, ordered), (p) => projectJson(ctx, p, simple));
};
