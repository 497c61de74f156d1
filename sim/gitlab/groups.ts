import { boolParam, invalid, sortParam, stringParam } from "./context.ts";
import type { Handler, RequestContext } from "./context.ts";
import type { SimGroup } from "./dataset.ts";
import { notFound } from "./http.ts";
import { decodeCursor, encodeCursor, keysetPage, keysetUnavailable, listReply, lowerBound, offsetPage } from "./pagination.ts";
import { groupDetailJson, groupJson, namespaceJson } from "./serialize.ts";

type Order = (a: SimGroup, b: SimGroup) => number;

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const byName = (a: Pick<SimGroup, "name" | "id">, b: Pick<SimGroup, "name" | "id">): number => compareText(a.name, b.name) || a.id - b.id;
const ORDERS = new Map<string, Order>([
  ["name", byName],
  ["path", (a, b) => compareText(a.path, b.path) || a.id - b.id],
  ["id", (a, b) => a.id - b.id],
]);

/** Sorts in place as asked: `order_by` name|path|id (default name), `sort` asc|desc (default asc). */
function sorted(ctx: RequestContext, groups: SimGroup[]): SimGroup[] {
  const order = ORDERS.get(stringParam(ctx, "order_by") ?? "name");
  if (!order) throw invalid("order_by", "does not have a valid value");
  return groups.sort(sortParam(ctx, "asc") === "asc" ? order : (a, b) => order(b, a));
}

export function findGroup(ctx: RequestContext): SimGroup {
  const group = ctx.store.findGroup(ctx.path["id"]!, ctx.caller);
  if (!group) throw notFound("Group");
  return group;
}

const visible = (ctx: RequestContext, groups: readonly SimGroup[]): SimGroup[] => groups.filter((g) => ctx.store.canSee(ctx.caller, g));
const groupList = (ctx: RequestContext, groups: readonly SimGroup[]) =>
  listReply(offsetPage(ctx, sorted(ctx, visible(ctx, groups))), (g) => groupJson(ctx, g));

/** Keyset exists only for anonymous callers ordering by name ascending; its cursor carries name and id. */
export const listGroups: Handler = (ctx) => {
  if (stringParam(ctx, "pagination") !== "keyset") return groupList(ctx, ctx.store.dataset.groups);
  const orderBy = stringParam(ctx, "order_by") ?? "name";
  if (ctx.caller || orderBy !== "name" || sortParam(ctx, "asc") !== "asc") throw keysetUnavailable();
  const groups = visible(ctx, ctx.store.dataset.groups).sort(byName);
  const cursor = decodeCursor(ctx);
  const after = cursor && { name: String(cursor["name"]), id: Number(cursor["id"]) };
  const start = after ? lowerBound(groups, (g) => byName(g, after) > 0) : 0;
  const page = keysetPage(ctx, groups.slice(start), (last) => {
    const next = encodeCursor({ name: last.name, id: String(last.id) });
    return { params: { cursor: next }, cursor: next };
  });
  return listReply(page, (g) => groupJson(ctx, g));
};

/** `with_projects` defaults to true: every detail then embeds projects unless the caller opts out. */
export const getGroup: Handler = (ctx) => ({ status: 200, body: groupDetailJson(ctx, findGroup(ctx), boolParam(ctx, "with_projects", true)) });
export const listSubgroups: Handler = (ctx) => groupList(ctx, ctx.store.children(findGroup(ctx).id));
export const listDescendantGroups: Handler = (ctx) => groupList(ctx, ctx.store.descendants(findGroup(ctx).id));

export const listNamespaces: Handler = (ctx) => {
  const namespaces = ctx.store.namespaces.filter((ns) => ctx.store.canSeeNamespace(ctx.caller, ns));
  return listReply(offsetPage(ctx, namespaces), (ns) => namespaceJson(ctx, ns));
};

export const getNamespace: Handler = (ctx) => {
  const ns = ctx.store.findNamespace(ctx.path["id"]!, ctx.caller);
  if (!ns) throw notFound("Namespace");
  return { status: 200, body: namespaceJson(ctx, ns) };
};

/** A user's public profile (id, username, name); tokens' synthetic users included. */
export const getUser: Handler = (ctx) => {
  const id = ctx.path["id"]!;
  const user = /^\d+$/.test(id) ? ctx.store.userById(Number(id)) : undefined;
  if (!user) throw notFound("User");
  return { status: 200, body: { id: user.id, username: user.username, name: user.name, state: "active" } };
};
