/**
 * Requests as GitLab sends them to Warden's Events Function URL, in the Lambda event a Function URL
 * makes of them (payload v2, header names in lower case, the body base64-encoded): audit event
 * streaming (Ultimate: the destination's token in X-Gitlab-Event-Streaming-Token, the event's type in
 * X-Gitlab-Audit-Event-Type, JSON sent as application/x-www-form-urlencoded unless the destination
 * sets another Content-Type) and self-managed system hooks (X-Gitlab-Event: System Hook, the hook's
 * secret in X-Gitlab-Token). Free of vitest, so scripts use them too.
 */
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import type { SimAuditEvent, SimGroup, SimProject } from "../gitlab/index.ts";
import { functionUrlEvent } from "./events.ts";

/** The secret's fields for the two kinds of request; distinctive, so finding one in an output is never a coincidence. */
export const GITLAB_EVENT_TOKENS = {
  gitlabStreamingToken: "STREAM-TOKEN-5e1f0c7a93d2b4",
  gitlabSystemHookToken: "HOOK-TOKEN-0b7d3e9f21a6c8",
};

const GITLAB_AGENT = "GitLab/18.6.0";

/**
 * An audit event as streaming sends it (GitLab's audit event schema): the REST fields, plus
 * `event_type` and, at the top as well as in details, the author's name, entity path, target and IP.
 */
export function streamedAuditEvent(event: SimAuditEvent): Record<string, unknown> {
  const d = event.details;
  return {
    id: event.id,
    author_id: event.author_id,
    entity_id: event.entity_id,
    entity_type: event.entity_type,
    details: { ...d, ip_address: "198.51.100.7" },
    ip_address: "198.51.100.7",
    author_name: d["author_name"],
    entity_path: d["entity_path"],
    target_details: d["target_details"],
    created_at: event.created_at,
    target_type: d["target_type"],
    target_id: d["target_id"],
    event_type: event.event_name,
  };
}

/** A streaming delivery of one event (or, as some relays batch them, an array). */
export function streamDelivery(body: unknown, opts: { token?: string; contentType?: string; eventType?: string } = {}): APIGatewayProxyEventV2 {
  const single = !Array.isArray(body) && typeof body === "object" && body !== null ? (body as Record<string, unknown>) : undefined;
  const eventType = opts.eventType ?? (typeof single?.["event_type"] === "string" ? single["event_type"] : undefined);
  return gitlabRequest(typeof body === "string" ? body : JSON.stringify(body), {
    "content-type": opts.contentType ?? "application/x-www-form-urlencoded",
    "x-gitlab-event-streaming-token": opts.token ?? GITLAB_EVENT_TOKENS.gitlabStreamingToken,
    ...(eventType ? { "x-gitlab-audit-event-type": eventType } : {}),
  });
}

/** A system hook's delivery, as a self-managed instance posts it. */
export function systemHookDelivery(hook: unknown, opts: { token?: string; event?: string } = {}): APIGatewayProxyEventV2 {
  return gitlabRequest(JSON.stringify(hook), {
    "content-type": "application/json",
    "x-gitlab-event": opts.event ?? "System Hook",
    "x-gitlab-token": opts.token ?? GITLAB_EVENT_TOKENS.gitlabSystemHookToken,
    "x-gitlab-instance": "https://gitlab.example.com",
  });
}

function gitlabRequest(body: string, headers: Record<string, string>): APIGatewayProxyEventV2 {
  const event = functionUrlEvent(body, { "user-agent": GITLAB_AGENT, ...headers });
  event.requestContext.http.userAgent = GITLAB_AGENT;
  return event;
}

/** System hook bodies as GitLab's documentation gives them. */
/** A system hook's time as GitLab writes it (Ruby's xmlschema): whole seconds. */
const hookTime = (at: Date) => at.toISOString().replace(/\.\d{3}Z$/, "Z");

export function projectCreateHook(project: SimProject, at = new Date()): Record<string, unknown> {
  return {
    created_at: hookTime(at),
    updated_at: hookTime(at),
    event_name: "project_create",
    name: project.name,
    owner_email: "owner@example.com",
    owner_name: "Owner",
    owners: [],
    path: project.path,
    path_with_namespace: project.path_with_namespace,
    project_id: project.id,
    project_visibility: "private",
  };
}

export function projectTransferHook(project: SimProject, oldPathWithNamespace: string, at = new Date()): Record<string, unknown> {
  return { ...projectCreateHook(project, new Date(at.getTime() - 86_400_000)), updated_at: hookTime(at), event_name: "project_transfer", old_path_with_namespace: oldPathWithNamespace };
}

export function groupCreateHook(group: SimGroup, at = new Date()): Record<string, unknown> {
  return { created_at: hookTime(at), updated_at: hookTime(at), event_name: "group_create", name: group.name, path: group.path, full_path: group.full_path, group_id: group.id };
}
