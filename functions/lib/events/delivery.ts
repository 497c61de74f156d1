/**
 * A delivery's body, read into the events it holds and the subject each names. Audit event streaming
 * sends JSON whatever its Content-Type says (application/x-www-form-urlencoded by default), one event
 * a request, though an array of them is taken too; a system hook sends one JSON object. Only what the
 * subject needs is kept, and only bounded and checked values leave here (ids, names, times): the body
 * itself never reaches a log or an answer.
 */
import { createHash } from "node:crypto";
import type { AuditEvent } from "../../../lib/gitlab/index.ts";
import { auditEventName, subjectOfAuditEvent, subjectOfSystemHook, type EventSubject } from "../../../lib/jobs/events/subjects.ts";
import { HttpStatusError } from "../lambda/http-status-error.ts";
import { rawBody } from "../slack/raw-body.ts";
import type { GitLabRequestEvent } from "./verify-request.ts";

/** One audit event is about 1 KB: a megabyte is hundreds of them, far past any delivery GitLab makes. */
export const MAX_BODY_BYTES = 1024 * 1024;
const MAX_ID_LENGTH = 128;

export interface DeliveredEvent {
  /** The claims table's key: once per event id (GitLab may deliver an event twice). */
  claim: string;
  id: string;
  name: string;
  subject: EventSubject | undefined;
  /** ISO 8601, when the event says when it happened. */
  createdAt?: string;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);

export function readDelivery(event: GitLabRequestEvent): DeliveredEvent[] {
  const body = rawBody(event);
  if (body.length > MAX_BODY_BYTES) throw new HttpStatusError(413, `Content Too Large: the body is ${body.length} bytes, more than the ${MAX_BODY_BYTES} taken`);
  const headers = event.headers ?? {};
  // Another kind of hook sent to this URL (a project's webhook, say) is acknowledged and left.
  if (event.sender === "system-hook" && headers["x-gitlab-event"] !== "System Hook") return [];
  let data: unknown;
  try {
    data = JSON.parse(body.toString("utf8"));
  } catch {
    // Not JSON.parse's own message: it quotes the body.
    throw new HttpStatusError(400, "Bad Request: the body is not JSON (GitLab sends each event as a JSON object, whatever the Content-Type says)");
  }
  if (event.sender === "system-hook") {
    if (!isObject(data)) throw new HttpStatusError(400, "Bad Request: a system hook's body is one JSON object");
    return [systemHook(data, body)];
  }
  const items = Array.isArray(data) ? data : [data];
  // The header names the type of a single event; an array's events each carry their own.
  const headerType = Array.isArray(data) ? undefined : text(headers["x-gitlab-audit-event-type"]);
  return items.map((item, i) => streamed(item, Array.isArray(data) ? `event [${i}]` : "the event", headerType));
}

function streamed(item: unknown, where: string, headerType: string | undefined): DeliveredEvent {
  if (!isObject(item)) throw new HttpStatusError(400, `Bad Request: ${where} is not a JSON object`);
  const id = typeof item["id"] === "number" ? String(item["id"]) : text(item["id"]);
  if (id === undefined || id.length > MAX_ID_LENGTH) throw new HttpStatusError(400, `Bad Request: ${where} has no id (every audit event GitLab streams carries one), or one longer than ${MAX_ID_LENGTH} characters`);
  const audit = auditEvent(item, headerType);
  return { claim: `stream:${id}`, id, name: bounded(auditEventName(audit)), subject: subjectOfAuditEvent(audit), ...time(item["created_at"]) };
}

/**
 * A streamed event in the REST API's shape subjects.ts reads: the streamed copy names its type in
 * `event_type` (older versions only in the header), and may carry the target and entity path at the top.
 */
function auditEvent(item: Json, headerType: string | undefined): AuditEvent {
  const details = isObject(item["details"]) ? item["details"] : {};
  return {
    id: 0,
    author_id: Number(item["author_id"]),
    entity_id: Number(item["entity_id"]),
    entity_type: String(item["entity_type"] ?? ""),
    event_name: text(item["event_name"]) ?? text(item["event_type"]) ?? headerType ?? null,
    details: { ...details, target_id: details["target_id"] ?? item["target_id"], target_details: details["target_details"] ?? item["target_details"], entity_path: details["entity_path"] ?? item["entity_path"] } as AuditEvent["details"],
    created_at: String(item["created_at"] ?? ""),
  };
}

/** A system hook has no id: the hash of its bytes stands for one, so a repeat of the same hook is known. */
function systemHook(hook: Json, body: Buffer): DeliveredEvent {
  const id = createHash("sha256").update(body).digest("hex").slice(0, 32);
  // A transfer's time is the project's updated_at; created_at is when the project was created.
  return { claim: `hook:${id}`, id, name: bounded(text(hook["event_name"])), subject: subjectOfSystemHook(hook), ...time(hook["updated_at"] ?? hook["created_at"]) };
}

function bounded(name: string | undefined): string {
  return name ? name.slice(0, 64) : "unnamed";
}

function time(value: unknown): { createdAt?: string } {
  const ms = typeof value === "string" ? Date.parse(value) : NaN;
  return Number.isFinite(ms) ? { createdAt: new Date(ms).toISOString() } : {};
}
