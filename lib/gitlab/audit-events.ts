/**
 * GitLab's audit events (Premium and Ultimate; docs/api-contract.md, "Audit events"): a group's
 * (exactly that group), a project's, or the instance's (administrators, self-managed), always newest
 * first by keyset (`order_by=id&sort=desc`, the only keyset order GitLab offers for them), in the
 * 30-day windows the API documents. A watch reads what is newer than its cursor with `newerThan`.
 */
import type { ListOptions, Listing } from "../paging/index.ts";
import type { GitLabApi } from "./api.ts";

export interface AuditEventDetails {
  author_name?: string;
  author_email?: string;
  author_class?: string;
  target_id?: number | string;
  target_type?: string;
  target_details?: string;
  custom_message?: string;
  /** Project shares: "project_access" (the only mark older rows without event_name carry). */
  add?: string;
  as?: string;
  [field: string]: unknown;
}

export interface AuditEvent {
  id: number;
  /** A user's id; deploy tokens author as -2, deploy keys as -3. */
  author_id: number;
  entity_id: number;
  entity_type: string;
  /** Absent on rows older GitLab versions wrote. */
  event_name?: string | null;
  details?: AuditEventDetails;
  /** ISO 8601. */
  created_at: string;
}

export type AuditEntityType = "User" | "Group" | "Project" | "Gitlab::Audit::InstanceScope";

/** Whose events to list; the instance's may be narrowed to one entity. */
export type AuditSource =
  | { kind: "group"; id: number | string }
  | { kind: "project"; id: number | string }
  | { kind: "instance"; entityType?: AuditEntityType; entityId?: number };

/** Both bounds inclusive, as GitLab reads them. */
export interface AuditWindow {
  createdAfter?: Date;
  createdBefore?: Date;
}

export const AUDIT_EVENT_ROUTES = { group: "/groups/:id/audit_events", project: "/projects/:id/audit_events", instance: "/audit_events" } as const;

/** The longest span the docs allow one query. */
export const AUDIT_WINDOW_DAYS = 30;
const DAY_MS = 86_400_000;

/** One source's events in one window, newest first, by keyset. */
export function listAuditEvents(api: GitLabApi, source: AuditSource, window: AuditWindow = {}, options?: ListOptions): Listing<AuditEvent> {
  const bounds = { created_after: window.createdAfter?.toISOString(), created_before: window.createdBefore?.toISOString() };
  const order = { orderBy: "id", sort: "desc" } as const;
  // An event's id is a hint: an answer with one no GitLab writes is its readers' to pass (the watch's cursor.ts).
  const list: ListOptions = { ...options, idsAreHints: true };
  if (source.kind === "instance") {
    return api.list(AUDIT_EVENT_ROUTES.instance, {}, { query: { entity_type: source.entityType, entity_id: source.entityId, ...bounds }, order, list });
  }
  return api.list(AUDIT_EVENT_ROUTES[source.kind], { id: source.id }, { query: bounds, order, list });
}

/** The windows that cover the `days` before `now`, newest first, each at most AUDIT_WINDOW_DAYS long. */
export function auditWindows(now: Date, days: number): AuditWindow[] {
  const windows: AuditWindow[] = [];
  const oldest = now.getTime() - days * DAY_MS;
  for (let before = now.getTime(); before > oldest; before -= AUDIT_WINDOW_DAYS * DAY_MS) {
    windows.push({ createdAfter: new Date(Math.max(oldest, before - AUDIT_WINDOW_DAYS * DAY_MS)), createdBefore: new Date(before) });
  }
  return windows;
}

/** The events of a newest-first listing newer than `cursor` (an event id): it stops reading at the first one that is not. */
export async function* newerThan(events: AsyncIterable<AuditEvent>, cursor: number): AsyncGenerator<AuditEvent> {
  for await (const event of events) {
    if (event.id <= cursor) return;
    yield event;
  }
}

/** A user's public profile: who an event's `author_id` is (its details carry only the name). */
export function getUser(api: GitLabApi, id: number, signal?: AbortSignal): Promise<{ id: number; username: string; name: string }> {
  return api.get("/users/:id", { id }, { signal });
}
