/**
 * Which project or group an event names, for the runs that enforce one subject at a time (the watch,
 * the audit-event stream, system hooks): the event is only a hint of where to look, the subject's
 * shares are read and judged as a full run judges them. Where GitLab records each share event is not
 * where one would guess (docs/api-contract.md, "Audit events"): a project share's creation is on
 * the invited group, with the project as its target.
 */
import type { AuditEvent } from "../../gitlab/index.ts";

/** A subject named by id, with its full path when the event carries it (a look-up is saved then). */
export type EventSubject = { kind: "project"; id: number; path?: string } | { kind: "group"; id: number; path?: string };

/** Audit events that can leave a stray share behind, or bring a project with shares into scope. */
export const SUBJECT_EVENTS = [
  "project_group_link_created",
  "project_group_link_updated",
  "group_share_with_group_link_created",
  "group_share_with_group_link_updated",
  "project_created",
  "project_namespace_updated",
] as const;

/** The event's name; rows older GitLab versions wrote have none, and a project share's is known by `details.add`. */
export function auditEventName(event: AuditEvent): string | undefined {
  const name = event.event_name ?? (typeof event.details?.["event_name"] === "string" ? (event.details["event_name"] as string) : undefined);
  if (name) return name;
  return event.details?.add === "project_access" ? "project_group_link_created" : undefined;
}

/** The subject an audit event names, or undefined for an event that cannot leave a stray share (a removal, a login…). */
export function subjectOfAuditEvent(event: AuditEvent): EventSubject | undefined {
  const details = event.details ?? {};
  const entityPath = typeof details["entity_path"] === "string" ? (details["entity_path"] as string) : undefined;
  switch (auditEventName(event)) {
    case "project_group_link_created": {
      // Recorded on the invited group; the project is the target.
      const id = positiveId(details.target_id);
      return id === undefined ? undefined : withPath({ kind: "project", id }, typeof details.target_details === "string" ? details.target_details : undefined);
    }
    case "project_group_link_updated":
    case "project_created":
    case "project_namespace_updated": {
      const id = positiveId(event.entity_id);
      return event.entity_type === "Project" && id !== undefined ? withPath({ kind: "project", id }, entityPath) : undefined;
    }
    case "group_share_with_group_link_created":
    case "group_share_with_group_link_updated": {
      const id = positiveId(event.entity_id);
      return event.entity_type === "Group" && id !== undefined ? withPath({ kind: "group", id }, entityPath) : undefined;
    }
    default:
      return undefined;
  }
}

/** An id as GitLab gives one (a positive whole number, or its digits); anything else names no subject. */
function positiveId(value: unknown): number | undefined {
  const id = typeof value === "string" && /^[1-9]\d{0,15}$/.test(value) ? Number(value) : value;
  return typeof id === "number" && Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

/** A self-managed system hook's body (X-Gitlab-Event: System Hook), the fields Warden reads. */
export interface SystemHook {
  event_name?: unknown;
  project_id?: unknown;
  path_with_namespace?: unknown;
  group_id?: unknown;
  full_path?: unknown;
}

/** The subject of a system hook that brings a project or group into view: created, or transferred (with its shares). */
export function subjectOfSystemHook(hook: SystemHook): EventSubject | undefined {
  const path = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
  const id = (value: unknown) => (typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : undefined);
  switch (hook.event_name) {
    case "project_create":
    case "project_transfer": {
      const projectId = id(hook.project_id);
      return projectId === undefined ? undefined : withPath({ kind: "project", id: projectId }, path(hook.path_with_namespace));
    }
    case "group_create": {
      const groupId = id(hook.group_id);
      return groupId === undefined ? undefined : withPath({ kind: "group", id: groupId }, path(hook.full_path));
    }
    default:
      return undefined;
  }
}

/** One subject once, however many events name it: "project:12", "group:7". */
export function eventSubjectKey(subject: EventSubject): string {
  return `${subject.kind}:${subject.id}`;
}

function withPath<S extends EventSubject>(subject: S, path: string | undefined): S {
  return path ? { ...subject, path } : subject;
}
