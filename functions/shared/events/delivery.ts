/**
 * A delivery's body, read into the events it holds and the subject each names. Audit event streaming
 * sends JSON whatever its Content-Type says (application/x-www-form-urlencoded by default), one event
 * a request, though an array of them is taken too; a system hook sends one JSON object. Only what the
 * subject needs is kept, and only bounded and checked values leave here (ids, names, times): the body
 * itself never reaches a log or an answer.
 *
 * Each event's claim (dispatch.ts) is a SHA-256 of the whole event's canonical JSON, not its id: a
 * holder of the streaming token can send any id (GitLab's are sequential, so tomorrow's are easy to
 * guess), and a claim by id would drop GitLab's real event with that id as a repeat. An id is a hint;
 * a redelivery is the identical event, so only a copy of the very same event is ever taken as a repeat.
 */
import { createHash } from "node:crypto";
import type { AuditEvent } from "../../../lib/gitlab/index.ts";
import { auditEventName, canonicalJson, eventSubjectKey, JsonTooDeepError, MAX_JSON_DEPTH, subjectOfAuditEvent, subjectOfSystemHook, type EventSubject } from "../../../lib/jobs/events/index.ts";
import { HttpStatusError } from "../lambda/http-status-error.ts";
import { rawBody } from "../lambda/raw-body.ts";
import type { GitLabRequestEvent } from "./verify-request.ts";

/** One audit event is about 1 KB: a megabyte is hundreds of them, far past any delivery GitLab makes. */
export const MAX_BODY_BYTES = 1024 * 1024;
const MAX_ID_LENGTH = 128;
/** Longer than any full path GitLab gives a project or group in practice. */
const MAX_PATH_LENGTH = 1024;
/**
 * GitLab streams one event a request (a relay may batch a few): a delivery of more is not GitLab's, and
 * each event is a claim written, each subject a Worker run started. Past either bound the whole delivery
 * is refused (413) rather than its first part taken: bad input changes nothing, and a sender that
 * splits its events into deliveries within the bounds is handled in full.
 */
export const MAX_EVENTS_PER_DELIVERY = 1000;
export const MAX_SUBJECTS_PER_DELIVERY = 100;

export interface DeliveredEvent {
  /** The claims table's key: a hash of the whole event (GitLab may deliver an event twice, identical). */
  claim: string;
  id: string;
  name: string;
  subject: EventSubject | undefined;
  /** ISO 8601, when the event says when it happened. */
  createdAt?: string;
  /**
   * How long after its time it may be claimed (dispatch.ts): a system hook's time is whole seconds, and
   * every other field of it its sender's to know, who could send it within the second of a transfer,
   * before the transfer commits, and so claim GitLab's own hook for a run that sees nothing yet.
   */
  claimAfterMs?: number;
}

/** A hook's: past its whole second, the clocks' difference and the change's commit. */
export const HOOK_CLAIM_AFTER_MS = 10_000;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
/** A number as the sender wrote it, as a number or in a string; anything else (an object whose valueOf throws) is none. */
const numeric = (value: unknown) => (typeof value === "number" || typeof value === "string" ? Number(value) : NaN);

/** How many of a delivery's events a log line names (with their count): one delivery may hold 1,000, each id the sender's. */
export const LOGGED_EVENTS = 20;

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
    return [systemHook(data)];
  }
  const items = Array.isArray(data) ? data : [data];
  if (items.length > MAX_EVENTS_PER_DELIVERY) throw tooMany(`holds ${items.length} events`, MAX_EVENTS_PER_DELIVERY);
  // The header names the type of a single event; an array's events each carry their own.
  const headerType = Array.isArray(data) ? undefined : text(headers["x-gitlab-audit-event-type"]);
  const events = items.map((item, i) => streamed(item, Array.isArray(data) ? `event [${i}]` : "the event", headerType));
  const subjects = new Set(events.flatMap((e) => (e.subject ? [eventSubjectKey(e.subject)] : []))).size;
  if (subjects > MAX_SUBJECTS_PER_DELIVERY) throw tooMany(`names ${subjects} subjects`, MAX_SUBJECTS_PER_DELIVERY);
  return events;
}

function tooMany(what: string, most: number): HttpStatusError {
  return new HttpStatusError(413, `Content Too Large: the delivery ${what}, more than the ${most} one delivery may (GitLab streams one event a request): nothing of it was taken`);
}

/**
 * The hex SHA-256 of a JSON value's canonical text: the same for every copy of the same value. A value
 * nested deeper than any event GitLab sends (JSON.parse takes any depth) is a 400, not a stack overflow.
 */
function hashOf(value: unknown, where: string): string {
  let text: string;
  try {
    text = canonicalJson(value);
  } catch (err) {
    if (err instanceof JsonTooDeepError) throw new HttpStatusError(400, `Bad Request: ${where} is nested more than ${MAX_JSON_DEPTH} levels deep (GitLab's events are a few levels deep)`);
    throw err;
  }
  return createHash("sha256").update(text, "utf8").digest("hex");
}

function streamed(item: unknown, where: string, headerType: string | undefined): DeliveredEvent {
  if (!isObject(item)) throw new HttpStatusError(400, `Bad Request: ${where} is not a JSON object`);
  const id = typeof item["id"] === "number" ? String(item["id"]) : text(item["id"]);
  if (id === undefined || id.length > MAX_ID_LENGTH) throw new HttpStatusError(400, `Bad Request: ${where} has no id (every audit event GitLab streams carries one), or one longer than ${MAX_ID_LENGTH} characters`);
  const audit = auditEvent(item, headerType);
  // The header's type is part of what the event means (an older GitLab sends it there alone).
  return { claim: `stream:${hashOf([headerType ?? null, item], where)}`, id, name: bounded(auditEventName(audit)), subject: labelled(subjectOfAuditEvent(audit)), ...time(item["created_at"]) };
}

/**
 * A streamed event in the REST API's shape subjects.ts reads: the streamed copy names its type in
 * `event_type` (older versions only in the header), and may carry the target and entity path at the top.
 */
function auditEvent(item: Json, headerType: string | undefined): AuditEvent {
  const details = isObject(item["details"]) ? item["details"] : {};
  return {
    id: 0,
    author_id: numeric(item["author_id"]),
    entity_id: numeric(item["entity_id"]),
    entity_type: text(item["entity_type"]) ?? "",
    event_name: text(item["event_name"]) ?? text(item["event_type"]) ?? headerType ?? null,
    details: { ...details, target_id: details["target_id"] ?? item["target_id"], target_details: details["target_details"] ?? item["target_details"], entity_path: details["entity_path"] ?? item["entity_path"] } as AuditEvent["details"],
    created_at: text(item["created_at"]) ?? "",
  };
}

/** A system hook has no id: the hash of the whole hook stands for one, and is its claim. */
function systemHook(hook: Json): DeliveredEvent {
  const hash = hashOf(hook, "the system hook");
  const id = hash.slice(0, 32);
  // A transfer's time is the project's updated_at; created_at is when the project was created.
  return { claim: `hook:${hash}`, id, name: bounded(text(hook["event_name"])), subject: labelled(subjectOfSystemHook(hook)), ...time(hook["updated_at"] ?? hook["created_at"]), claimAfterMs: HOOK_CLAIM_AFTER_MS };
}

/**
 * The path an event gives its subject is the sender's word, used only as the run's label (the run
 * finds the subject by id): one too long to be GitLab's is left out, not carried into the Worker's
 * event and its log lines.
 */
function labelled(subject: EventSubject | undefined): EventSubject | undefined {
  if (!subject?.path || subject.path.length <= MAX_PATH_LENGTH) return subject;
  const { path: _, ...byId } = subject;
  return byId;
}

function bounded(name: string | undefined): string {
  return name ? name.slice(0, 64) : "unnamed";
}

function time(value: unknown): { createdAt?: string } {
  const ms = typeof value === "string" ? Date.parse(value) : NaN;
  // Within years 1970 to 9999: beyond, toISOString writes a six-digit year the worker's schema refuses.
  return ms >= 0 && ms <= LAST_MS ? { createdAt: new Date(ms).toISOString() } : {};
}

const LAST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
