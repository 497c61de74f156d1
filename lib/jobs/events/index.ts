/**
 * GitLab's events as the jobs read them (subjects.ts), the face the front ends that receive them (the
 * events receiver, the watch) import: light, so a receiver that only claims and forwards an event loads
 * no job. canonicalJson is here for the same receivers: a streamed event's claim is a hash of its text.
 */
export { canonicalJson, JsonTooDeepError, MAX_JSON_DEPTH } from "../canonical-json.ts";
export { auditEventName, eventSubjectKey, subjectOfAuditEvent, subjectOfSystemHook, type EventSubject } from "./subjects.ts";
