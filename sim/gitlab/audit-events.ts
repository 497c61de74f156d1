/**
 * Audit events as GitLab (Premium and Ultimate) lists them (docs/api-contract.md, "Audit events";
 * audit-log.ts records each share change on the entity GitLab records it on, which is not always the
 * subject: a project share is recorded on the *invited* group): newest first, by keyset
 * (`order_by=id&sort=desc`, the only keyset order) or offset, filtered by `created_after`/`created_before`.
 */
import { intParam, invalid, sortParam, stringParam } from "./context.ts";
import type { Handler, RequestContext } from "./context.ts";
import type { SimAuditEvent } from "./dataset.ts";
import { findGroup } from "./groups.ts";
import { apiError } from "./http.ts";
import { decodeCursor, encodeCursor, keysetPage, keysetUnavailable, listReply, offsetPage } from "./pagination.ts";
import { findProject } from "./projects.ts";

/** `created_after` / `created_before`: ISO 8601, inclusive. */
function timeParam(ctx: RequestContext, name: string): number | undefined {
  const value = stringParam(ctx, name);
  if (value === undefined) return undefined;
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw invalid(name);
  return time;
}

/** Newest first; keyset only by id descending (spec, "Keyset support by resource"), offset otherwise. */
function listEvents(ctx: RequestContext, events: SimAuditEvent[]): ReturnType<Handler> {
  const after = timeParam(ctx, "created_after");
  const before = timeParam(ctx, "created_before");
  const cursor = decodeCursor(ctx);
  const below = cursor === undefined ? Infinity : Number(cursor["id"]);
  if (!Number.isFinite(below) && cursor !== undefined) throw invalid("cursor");
  const newestFirst = events
    .filter((e) => e.id < below && (after === undefined || Date.parse(e.created_at) >= after) && (before === undefined || Date.parse(e.created_at) <= before))
    .reverse();
  if (stringParam(ctx, "pagination") !== "keyset") return listReply(offsetPage(ctx, newestFirst), (e) => e);
  if ((stringParam(ctx, "order_by") ?? "id") !== "id" || sortParam(ctx, "desc") !== "desc") throw keysetUnavailable();
  const page = keysetPage(ctx, newestFirst, (last) => {
    const next = encodeCursor({ id: String(last.id) });
    return { params: { cursor: next }, cursor: next };
  });
  return listReply(page, (e) => e);
}

const forbidden = () => apiError(403, "403 Forbidden");

/** A Free instance: CE has no such routes (404, before anything else); EE refuses without a licence (403). */
function licensed(ctx: RequestContext): void {
  if (ctx.audit.tier === "free") throw ctx.audit.freeStatus === 404 ? apiError(404, "404 Not Found") : forbidden();
}

/**
 * Only events whose entity is exactly this group. Owners (inherited), administrators and auditors see
 * everyone's; the simulator models no other membership, so anyone else is refused.
 */
export const listGroupAuditEvents: Handler = (ctx) => {
  licensed(ctx);
  const group = findGroup(ctx);
  if (!(ctx.caller?.is_auditor || ctx.store.canAdminGroup(ctx.caller, group))) throw forbidden();
  return listEvents(ctx, ctx.audit.log.events.filter((e) => e.entity_type === "Group" && e.entity_id === group.id));
};

/** Maintainer and up; the simulator lets every signed-in token act as a Maintainer of a project, and shows it its own events. */
export const listProjectAuditEvents: Handler = (ctx) => {
  licensed(ctx);
  const project = findProject(ctx);
  const group = ctx.store.groupOf(project.namespace_id);
  const all = ctx.caller?.is_admin || ctx.caller?.is_auditor || (group !== undefined && ctx.store.canAdminGroup(ctx.caller, group));
  return listEvents(ctx, ctx.audit.log.events.filter((e) => e.entity_type === "Project" && e.entity_id === project.id && (all || e.author_id === ctx.caller?.id)));
};

const ENTITY_TYPES = new Set<string>(["User", "Group", "Project", "Gitlab::Audit::InstanceScope"]);

/** Administrators only; `entity_id` filters only together with `entity_type`. */
export const listInstanceAuditEvents: Handler = (ctx) => {
  licensed(ctx);
  if (!ctx.caller?.is_admin) throw forbidden();
  const type = stringParam(ctx, "entity_type");
  if (type !== undefined && !ENTITY_TYPES.has(type)) throw invalid("entity_type", "does not have a valid value");
  const id = intParam(ctx, "entity_id");
  if (id !== undefined && type === undefined) throw invalid("entity_type", "is missing");
  return listEvents(ctx, ctx.audit.log.events.filter((e) => (type === undefined || e.entity_type === type) && (id === undefined || e.entity_id === id)));
};
