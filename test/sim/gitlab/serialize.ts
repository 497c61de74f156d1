import type { RequestContext } from "./context.ts";
import type { SimGroup, SimProject } from "./dataset.ts";
import type { Namespace } from "./store.ts";

// Creation times follow ids, as they do on a real instance.
const EPOCH = Date.UTC(2020, 0, 1);
const createdAt = (id: number): string => new Date(EPOCH + id * 60_000).toISOString();

export const namespaceJson = (ctx: RequestContext, ns: Namespace) => ({
  ...ns,
  web_url: ns.kind === "group" ? `${ctx.baseUrl}/groups/${ns.full_path}` : `${ctx.baseUrl}/${ns.full_path}`,
});

export const groupJson = (ctx: RequestContext, g: SimGroup) => ({ ...g, web_url: `${ctx.baseUrl}/groups/${g.full_path}` });

/** `simple=true` leaves out `archived` and `shared_with_groups`, as GitLab's simple entity does. */
export function projectJson(ctx: RequestContext, p: SimProject, simple: boolean) {
  const ns = ctx.store.namespaceOf(p);
  const base = {
    id: p.id,
    name: p.name,
    path: p.path,
    path_with_namespace: p.path_with_namespace,
    default_branch: p.default_branch,
    created_at: createdAt(p.id),
    web_url: `${ctx.baseUrl}/${p.path_with_namespace}`,
    namespace: ns && namespaceJson(ctx, ns),
  };
  return simple ? base : { ...base, archived: p.archived, shared_with_groups: ctx.store.visibleShares(ctx.caller, p) };
}
