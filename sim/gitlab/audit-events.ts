/**
 * Audit events as GitLab (Premium and Ultimate) records and lists them (real-behaviour-notes.md,
 * "Audit events"): each share change on the entity GitLab records it on, which is not always the
 * subject (a project share is recorded on the *invited* group); listed newest first, by keyset
 * (`order_by=id&sort=desc`, the only keyset order) or offset, filtered by `created_after`/`created_before`.
 */
import { intParam, invalid, sortParam, stringParam } from "./context.ts";
import type { Handler, RequestContext } from "./context.ts";
import type { SimGroup, SimProject } from "./dataset.ts";
import { findGroup } from "./groups.ts";
import { apiError } from "./http.ts";
import { decodeCursor, encodeCursor, keysetPage, keysetUnavailable, listReply, offsetPage } from "./pagination.ts";
import { findProject } from "./projects.ts";
import type { Caller, Store } from "./store.ts";

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

/** "premium" and "ultimate" have audit events; "free" answers their routes with `freeStatus`. */
export type Tier = "free" | "premium" | "ultimate";

const ROLE_NAMES: Record<number, string> = { 5: "Minimal Access", 10: "Guest", 15: "Planner", 20: "Reporter", 30: "Developer", 40: "Maintainer", 50: "Owner" };

/** The events of the simulated instance, in id order; ids continue after the highest seeded one. */
export class AuditLog {
  readonly events: SimAuditEvent[];
  private lastId: number;
  private readonly clock: () => number;

  constructor(seeded: readonly SimAuditEvent[] = [], clock: () => number = Date.now) {
    this.clock = clock;
    this.events = [...seeded].sort((a, b) => a.id - b.id);
    this.lastId = this.events.at(-1)?.id ?? 0;
  }

  record(author: Caller, entity: { type: AuditEntityType; id: number; path: string }, eventName: string, details: Record<string, unknown>): SimAuditEvent {
    const event: SimAuditEvent = {
      id: ++this.lastId,
      author_id: author.id,
      entity_id: entity.id,
      entity_type: entity.type,
      event_name: eventName,
      details: { author_name: author.name ?? author.username, author_class: "User", ...details, event_name: eventName, entity_path: entity.path },
      created_at: new Date(this.clock()).toISOString(),
    };
    this.events.push(event);
    return event;
  }

  /** `project_group_link_created`: recorded on the invited group, its target the project. */
  projectShared(author: Caller, project: SimProject, group: SimGroup, access: number): SimAuditEvent {
    return this.record(author, { type: "Group", id: group.id, path: group.full_path }, "project_group_link_created", {
      add: "project_access",
      as: ROLE_NAMES[access] ?? String(access),
      target_id: project.id,
      target_type: "Project",
      target_details: project.path_with_namespace,
      custom_message: `Added project access as ${ROLE_NAMES[access] ?? access}`,
    });
  }

  /** `group_share_with_group_link_created` / `_updated`: recorded on the sharing group, its target the invited group. */
  groupShared(author: Caller, group: SimGroup, invited: SimGroup, change?: { from: number; to: number }): SimAuditEvent {
    const target = { target_id: invited.id, target_type: "Group", target_details: invited.full_path };
    if (!change) {
      return this.record(author, { type: "Group", id: group.id, path: group.full_path }, "group_share_with_group_link_created", {
        ...target,
        custom_message: `Invited ${invited.name} to the group ${group.name}`,
      });
    }
    return this.record(author, { type: "Group", id: group.id, path: group.full_path }, "group_share_with_group_link_updated", {
      ...target,
      changes: [{ change: "group_access", from: ROLE_NAMES[change.from], to: ROLE_NAMES[change.to] }],
      custom_message: `Updated ${invited.name}'s access params for the group ${group.name}`,
    });
  }
}

/** A share's level changed as GitLab's UI changes it (REST has no route for it), with its `_updated` event. */
export function updateGroupShare(store: Store, log: AuditLog, caller: Caller | undefined, groupId: number, invitedId: number, access: number): void {
  const [group, invited] = [store.groupOf(groupId), store.groupOf(invitedId)];
  const share = group?.shared_with_groups.find((s) => s.group_id === invitedId);
  if (!group || !invited || !caller || !share) throw new Error(`updateGroupShare: no share of group ${groupId} with ${invitedId}, or no such token`);
  log.groupShared(caller, group, invited, { from: share.group_access_level, to: access });
  share.group_access_level = access;
}

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
