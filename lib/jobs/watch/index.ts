/**
 * The watch: enforcement within a poll of a share being made. One poll reads the audit events newer
 * than the cursor (each source newest first, stopping at the last id handled; deduplicated by id),
 * keeps those that name a subject (a share made or raised, a project created or moved in), and
 * enforces only those subjects, in one targeted enforce run (its judging, guard, removals, audit
 * lines and report). The cursor moves once the batch is handled: a run that completed, dry or
 * applied, or whose guard tripped (reported, and left for a person: holding the cursor would trip
 * on every poll after). A run that stopped or failed a removal keeps the cursor where it was, so
 * the next poll handles those events again, with the newer ones.
 */
import { inScope } from "../../policy/index.ts";
import { listAuditEvents, newerThan, type AuditEvent } from "../../gitlab/index.ts";
import { enforce } from "../enforce/index.ts";
import { statsSince, type EnforceOptions, type EnforceReport } from "../enforce/summary.ts";
import { auditEventName, eventSubjectKey, subjectOfAuditEvent, type EventSubject } from "../events/subjects.ts";
import { FAILED_STATUSES } from "../report.ts";
import type { ShareRemoval } from "../shares/plan.ts";
import { direct, type Steps } from "../steps.ts";
import type { WatchCursor } from "./cursor.ts";
import { auditRefusal, type WatchSource } from "./sources.ts";

export { cursorFor, isWatchCursor, type WatchCursor } from "./cursor.ts";
export { watchSources, WatchError, type WatchSource, type WatchSources } from "./sources.ts";

/** An event a batch handled: what it named, and when GitLab recorded it. */
export interface WatchEvent {
  id: number;
  name: string;
  /** "project:12", "group:7" (lib/jobs/events/subjects.ts). */
  subject: string;
  path?: string;
  createdAt: string;
}

/** The enforce report of one batch, with the events it handled. */
export type WatchReport = EnforceReport & { events: WatchEvent[] };

export interface PollOptions extends Omit<EnforceOptions, "targets"> {
  sources: readonly WatchSource[];
  cursor: WatchCursor;
  /** How the batch's enforce run is cut into steps (default: run directly). */
  steps?: Steps;
}

export interface PollResult {
  /** Absent when no event named a subject in scope: nothing to enforce. */
  report?: WatchReport;
  /** Where the next poll starts: moved only past events handled. */
  cursor: WatchCursor;
  /** Whether the cursor moved. */
  moved: boolean;
  /** Events read this poll (all kinds). */
  read: number;
  /** Events that named a subject outside the scope, each said once (also among the report's warnings, when there is one). */
  ignored: string[];
}

/** One poll: read, pick the subjects, enforce them, move the cursor if the batch was handled. */
export async function pollOnce(opts: PollOptions): Promise<PollResult> {
  const { gitlab, policy, signal } = opts;
  const before = gitlab.requestCounts();
  const next: WatchCursor = { version: 1, sources: { ...opts.cursor.sources } };
  const events = new Map<number, AuditEvent>();
  for (const source of opts.sources) {
    const cursor = opts.cursor.sources[source.key] ?? 0;
    try {
      for await (const event of newerThan(listAuditEvents(gitlab, source.source, {}, { signal }), cursor)) {
        events.set(event.id, event);
        next.sources[source.key] = Math.max(next.sources[source.key] ?? 0, event.id);
      }
    } catch (err) {
      auditRefusal(err, source);
    }
  }
  const listed = statsSince(gitlab, before);
  const handled: WatchEvent[] = [];
  const outside: string[] = [];
  const subjects = new Map<string, EventSubject>();
  for (const event of [...events.values()].sort((a, b) => a.id - b.id)) {
    const subject = subjectOfAuditEvent(event);
    if (!subject) continue;
    const named = { id: event.id, name: auditEventName(event)!, subject: eventSubjectKey(subject), ...(subject.path ? { path: subject.path } : {}), createdAt: event.created_at };
    // A path the event gives outside the scope is left without a look-up; one by id only is found first.
    if (subject.path !== undefined && !inScope(policy, subject.path)) {
      outside.push(`event ${event.id} (${named.name}) names ${subject.path}, outside the policy's scope: left alone`);
      continue;
    }
    handled.push(named);
    subjects.set(named.subject, subject);
  }
  const moved = { cursor: next, moved: true, read: events.size, ignored: outside };
  if (subjects.size === 0) return moved;
  const targets = [...subjects.values()].map((s) => (s.kind === "group" ? { kind: "group" as const, id: s.id, subtree: false as const } : { kind: "project" as const, id: s.id }));
  const { sources: _sources, cursor: _cursor, steps = direct, ...options } = opts;
  const run = await enforce({ ...options, targets }, steps);
  const report: WatchReport = {
    ...run,
    stats: { ...run.stats, requests: run.stats.requests + listed.requests, pages: run.stats.pages + listed.pages, auditRequests: (run.stats.auditRequests ?? 0) + listed.requests },
    warnings: [...outside, ...run.warnings],
    events: handled,
  };
  const done = run.summary.guard === "tripped" || (run.summary.complete && !run.actions.some((a) => FAILED_STATUSES.has(a.status)));
  if (!done) report.warnings.push(`these events are handled again at the next poll (the run stopped or a removal failed): ${handled.map((e) => e.id).join(", ")}`);
  if (run.summary.guard === "tripped") report.warnings.push(`guard tripped: the subjects of events ${handled.map((e) => e.id).join(", ")} were left as they are; the watch moves on (review them, then run warden enforce)`);
  return done ? { ...moved, report } : { ...moved, report, cursor: opts.cursor, moved: false };
}

/** Seconds from each removed share's event (the earliest naming its subject) to the batch's end: time to enforcement. */
export function secondsToRemoval(report: WatchReport): number[] {
  const first = new Map<string, number>();
  for (const event of report.events) first.set(event.subject, Math.min(first.get(event.subject) ?? Infinity, Date.parse(event.createdAt)));
  const end = Date.parse(report.finishedAt);
  return report.actions.flatMap((action) => {
    const at = action.status === "done" ? first.get(actionSubject(action)) : undefined;
    return at === undefined ? [] : [Math.max(0, (end - at) / 1000)];
  });
}

function actionSubject(action: ShareRemoval): string {
  return action.kind === "project" ? `project:${action.projectId}` : `group:${action.sharedGroupId}`;
}
