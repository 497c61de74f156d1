/**
 * The watch: enforcement within a poll of a share being made. One poll reads, per source, the oldest
 * audit events past the cursor, at most `maxEvents` (watch/read.ts; deduplicated by id), keeps those
 * that name a subject (a share made or raised, a project created or moved in), adds the subjects whose
 * removal failed for a reason that may pass (watch/retries.ts), and enforces only those, in one
 * targeted enforce run (its judging, guard, removals, audit lines and report). The cursor moves past
 * the events read whatever the run did: a removal GitLab refuses is reported once and passed, one that
 * may pass is retried a few times through the cursor, a run that failed as a whole (or was cut off by the
 * poll's deadline) fails the poll but has its subjects retried so too (BatchError), and a tripped guard is reported and left for a person.
 * A source GitLab fails to list, or does not answer for before the poll's read deadline, keeps its
 * place and is said, the others read (watch/read-sources.ts); only a poll whose every source fails
 * (GitLab down, the audit events refused) moves nothing.
 */
import { inScope } from "../../policy/index.ts";
import { HttpError } from "../../gitlab/index.ts";
import { enforce, ScopeError } from "../enforce/index.ts";
import { statsSince, type EnforceOptions, type EnforceReport } from "../enforce/summary.ts";
import { auditEventName, eventSubjectKey, subjectOfAuditEvent, type EventSubject } from "../events/index.ts";
import type { ShareRemoval } from "../shares/plan.ts";
import { direct, type Steps } from "../steps.ts";
import { carriedPositions, cursorFor, type WatchCursor } from "./cursor.ts";
import { EVENTS_PER_POLL } from "./read.ts";
import { readSources } from "./read-sources.ts";
import { errorText } from "../report/index.ts";
import { firstOf } from "../view.ts";
import { retriesAfter, retriesAfterFailure, subjectOfRemoval } from "./retries.ts";
import type { WatchSource } from "./sources.ts";
import type { CursorStore } from "./store.ts";

export { cursorFor, MAX_UNWATCHED_POSITIONS, parseWatchCursor, type SourcePosition, type WatchCursor } from "./cursor.ts";
export { EVENTS_PER_POLL } from "./read.ts";
export { MAX_ATTEMPTS } from "./retries.ts";
export { readOnlyStore, type CursorStore, type StoredCursor } from "./store.ts";
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
  /** A source it lacks (new since the watch started) is read from an hour back (read-sources.ts). */
  cursor: WatchCursor;
  /** Events read a poll, per source (default EVENTS_PER_POLL): a backlog drains over several polls. */
  maxEvents?: number;
  /** How the batch's enforce run is cut into steps (default: run directly). */
  steps?: Steps;
  /** When reading the sources must stop, so the poll has time to enforce what it read (read-sources.ts); default: the poll's signal alone. */
  readDeadline?: AbortSignal;
  /**
   * Made as the batch's run begins: when looking up its subjects must stop, so that one GitLab hangs on (tried
   * again at the next poll) leaves time to enforce the others; default: the poll's signal alone.
   */
  lookupDeadline?: () => AbortSignal;
}

export interface PollResult {
  /** Absent when no event named a subject in scope and none waits for another try: nothing to enforce. */
  report?: WatchReport;
  /** Where the next poll starts. */
  cursor: WatchCursor;
  /** Whether the cursor changed. */
  moved: boolean;
  /** Events read this poll (all kinds). */
  read: number;
  /** Events that named a subject outside the scope, each said once (also among the report's warnings, when there is one). */
  ignored: string[];
  /**
   * Sources this poll could not read in full, each said (also among the report's warnings, when there
   * is one): GitLab failed to list it (kept where it stood), or a burst within a millisecond or two was
   * more than a poll reads (its older events passed, left to the sweep).
   */
  failedSources: string[];
  /** How far the cursor is behind what GitLab has recorded: 0 when the poll read all there was, else the seconds since the time it stands at. */
  behindSeconds: number;
}

/**
 * A poll whose batch's run failed as a whole (GitLab failed on a part of the run that it cannot leave
 * out, a group's detail say): the poll failed, and `poll` is where it leaves the cursor all the same,
 * past its events with the batch's subjects waiting for another try (watchOnce stores it).
 */
export class BatchError extends Error {
  override name = "BatchError";
  readonly poll: PollResult;
  constructor(message: string, poll: PollResult, cause: unknown) {
    super(message, { cause });
    this.poll = poll;
  }
}

/** One poll: read a bounded batch, pick the subjects, enforce them, move the cursor. */
export async function pollOnce(opts: PollOptions): Promise<PollResult> {
  const { gitlab, policy, signal } = opts;
  const before = gitlab.requestCounts();
  const next: WatchCursor = { version: 2, sources: carriedPositions(opts.cursor.sources, opts.sources), retries: { ...opts.cursor.retries } };
  const { events, positions, said: failedSources, behind, allFailed } = await readSources({ ...opts, maxEvents: opts.maxEvents ?? EVENTS_PER_POLL });
  if (allFailed !== undefined) throw allFailed;
  Object.assign(next.sources, positions);
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
  for (const key of Object.keys(opts.cursor.retries)) if (!subjects.has(key)) subjects.set(key, subjectOfKey(key));
  const behindSeconds = Number.isFinite(behind) ? Math.max(0, Math.round((Date.now() - behind) / 1000)) : 0;
  const result = { cursor: next, moved: JSON.stringify(next) !== JSON.stringify(opts.cursor), read: events.size, ignored: outside, failedSources, behindSeconds };
  if (subjects.size === 0) return result;
  const targets = [...subjects.values()].map((s) => (s.kind === "group" ? { kind: "group" as const, id: s.id, subtree: false as const } : { kind: "project" as const, id: s.id }));
  const { sources: _sources, cursor: _cursor, maxEvents: _max, readDeadline: _read, lookupDeadline, steps = direct, ...options } = opts;
  let run: EnforceReport;
  try {
    run = await enforce({ ...options, targets, ...(lookupDeadline ? { targetsReadBy: lookupDeadline() } : {}) }, steps);
  } catch (err) {
    // A setting to fix (the scope not found) fails every batch alike: the events wait for the fix. Not a 401: the
    // token read the sources just now, so one answered for a subject is that subject's (a proxy's rule on its
    // path), and failing the poll on it would hold every later event behind it; a token revoked since fails
    // the next poll's reads, before any attempt is spent.
    if (err instanceof ScopeError) throw err;
    // Failed as a whole, or cut off by the poll's signal (its deadline, while GitLab hung on a subject: it would hang the
    // next poll alike): the cursor still moves past the events, its subjects waiting for a bounded number of tries.
    const after = retriesAfterFailure([...subjects.keys()], opts.cursor.retries);
    next.retries = after.retries;
    const how = signal?.aborted ? `was cut off (${errorText(signal.reason)})` : `failed (${errorText(err)})`;
    throw new BatchError(`the batch's run ${how}; the watch moves on: ${after.warnings.join("; ")}`, { ...result, cursor: next, moved: true }, err);
  }
  const after = retriesAfter(run, [...subjects.keys()], opts.cursor.retries, signal?.aborted === true);
  next.retries = after.retries;
  const report: WatchReport = {
    ...run,
    stats: { ...run.stats, requests: run.stats.requests + listed.requests, pages: run.stats.pages + listed.pages, auditRequests: (run.stats.auditRequests ?? 0) + listed.requests },
    // Counted, not named: the report goes to Slack and the run history, whose readers may not see those projects in
    // GitLab (an administrator's token reads the whole instance's events). The log (`ignored`) names them.
    warnings: [...failedSources, ...(outside.length ? [`${outside.length} event${outside.length === 1 ? "" : "s"} named a project or group outside the policy's scope: left alone`] : []), ...run.warnings, ...after.warnings],
    events: handled,
  };
  // A few ids, not all: a poll reads up to 1,000 events a source (the report lists them all in `events`).
  if (run.summary.guard === "tripped") report.warnings.push(`guard tripped: the subjects of events ${firstOf(handled.map((e) => e.id))} were left as they are; the watch moves on (review them, then run warden enforce)`);
  return { ...result, moved: JSON.stringify(next) !== JSON.stringify(opts.cursor), report };
}

export interface WatchOnceOptions extends Omit<PollOptions, "cursor"> {
  store: CursorStore;
}

/** A first start stores the cursor at each source's newest event and polls nothing; later ones poll. */
export type WatchOnceResult = { started: true; cursor: WatchCursor } | (PollResult & { started: false; /** Another poller wrote the cursor first: this poll's is dropped. */ lost: boolean });

/**
 * One poll through a cursor store, as both front ends run it: read the cursor (a source it lacks starts
 * at its newest event), poll, and write the cursor back if it moved, naming the revision read.
 */
export async function watchOnce({ store, ...opts }: WatchOnceOptions): Promise<WatchOnceResult> {
  const stored = await store.read();
  if (!stored) {
    const cursor = await cursorFor(opts.gitlab, opts.sources, undefined, opts.signal);
    await store.write(cursor, 0);
    return { started: true, cursor };
  }
  // A source the stored cursor lacks (a subgroup new since, or one whose start failed) is read by the poll from an hour back.
  const polled = await pollOnce({ ...opts, cursor: stored.cursor }).catch(async (err: unknown) => {
    // A failed batch still moves the cursor on (the next poll does not meet the same events), and fails the poll.
    if (err instanceof BatchError) await store.write(err.poll.cursor, stored.revision);
    throw err;
  });
  // Against what is stored: a source new since (its newest event) is kept even when no event arrived.
  const moved = JSON.stringify(polled.cursor) !== JSON.stringify(stored.cursor);
  const lost = moved && !(await store.write(polled.cursor, stored.revision));
  return { ...polled, moved, started: false, lost };
}

/** A subject waiting for another try, from its key ("project:12"). */
function subjectOfKey(key: string): EventSubject {
  const [kind, id] = key.split(":");
  return { kind: kind === "group" ? "group" : "project", id: Number(id) };
}

/** Seconds from each removed share's event (the earliest naming its subject) to the batch's end: time to enforcement. */
export function secondsToRemoval(report: WatchReport): number[] {
  const first = new Map<string, number>();
  for (const event of report.events) first.set(event.subject, Math.min(first.get(event.subject) ?? Infinity, Date.parse(event.createdAt)));
  const end = Date.parse(report.finishedAt);
  return report.actions.flatMap((action) => {
    const at = action.status === "done" ? first.get(subjectOfRemoval(action)) : undefined;
    return at === undefined ? [] : [Math.max(0, (end - at) / 1000)];
  });
}
