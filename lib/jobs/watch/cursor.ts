/**
 * Where a watch stands: per source, the id of the last audit event handled and the time up to which
 * its events have all been read; and the subjects whose removal failed for a reason that may pass,
 * with the attempts spent on each. Per source, not one number: event ids are instance-wide, and a
 * source read early in a poll may get an event with an id below one a source read later returned.
 */
import { AUDIT_WINDOW_DAYS, listAuditEvents, type AuditEvent, type GitLabClient } from "../../gitlab/index.ts";
import { auditRefusal, type WatchSource } from "./sources.ts";

export interface SourcePosition {
  /** The last event id handled. */
  id: number;
  /** ISO 8601 (GitLab's clock): every event created up to this time is read. Absent in a version 1 cursor. */
  at?: string;
}

export interface WatchCursor {
  version: 2;
  /** Source key ("instance", "group:12") → where its reading stands. */
  sources: Record<string, SourcePosition>;
  /** Subject key ("project:12") → attempts spent on it, for removals that failed for a reason that may pass (watch/retries.ts). */
  retries: Record<string, number>;
}

const isId = (id: unknown): id is number => Number.isSafeInteger(id) && (id as number) >= 0;
const isPosition = (p: unknown): p is SourcePosition => {
  const v = p as Partial<SourcePosition> | null;
  return typeof v === "object" && v !== null && isId(v.id) && (v.at === undefined || (typeof v.at === "string" && !Number.isNaN(Date.parse(v.at))));
};
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A value read back (a state file, a table item) as a cursor, or undefined if it is none. A version 1
 * cursor (ids alone, before the watch read in bounded windows) is taken as it stands, with no time:
 * its next poll reads back at most 30 days (watch/read.ts).
 */
export function parseWatchCursor(value: unknown): WatchCursor | undefined {
  if (!isRecord(value) || !isRecord(value["sources"])) return undefined;
  const sources = value["sources"];
  if (value["version"] === 1 && Object.values(sources).every(isId)) {
    return { version: 2, sources: Object.fromEntries(Object.entries(sources).map(([key, id]) => [key, { id: id as number }])), retries: {} };
  }
  const retries = value["retries"];
  if (value["version"] !== 2 || !Object.values(sources).every(isPosition) || !isRecord(retries)) return undefined;
  if (!Object.entries(retries).every(([subject, attempts]) => /^(project|group):[1-9]\d{0,15}$/.test(subject) && isId(attempts))) return undefined;
  return { version: 2, sources: sources as Record<string, SourcePosition>, retries: retries as Record<string, number> };
}

/** The most positions a cursor keeps of sources no longer watched. */
export const MAX_UNWATCHED_POSITIONS = 100;
const WINDOW_MS = AUDIT_WINDOW_DAYS * 86_400_000;

/**
 * The positions a poll carries on: every watched source's, and of the sources no longer watched (a subgroup
 * deleted or moved out of the scope, or left out of a partial watch at the last refresh) the newest
 * MAX_UNWATCHED_POSITIONS within the audit window, so that one coming back within it goes on where it
 * stood. Kept for good, they grew the cursor by some 65 bytes for every subgroup ever watched, past what
 * its table item holds (400 KB), and every poll's write then failed.
 */
export function carriedPositions(positions: Record<string, SourcePosition>, sources: readonly WatchSource[], now = Date.now()): Record<string, SourcePosition> {
  const watched = new Set(sources.map((source) => source.key));
  const at = (position: SourcePosition) => (position.at === undefined ? NaN : Date.parse(position.at));
  const gone = Object.entries(positions).filter(([key, position]) => !watched.has(key) && now - at(position) < WINDOW_MS);
  const kept = new Set(gone.sort((a, b) => at(b[1]) - at(a[1])).slice(0, MAX_UNWATCHED_POSITIONS).map(([key]) => key));
  // In the order they were stored: a cursor that lost nothing is the same text, and is not written again.
  return Object.fromEntries(Object.entries(positions).filter(([key]) => watched.has(key) || kept.has(key)));
}

/**
 * The cursor with every source it lacks set at that source's newest event now (one request each):
 * a watch does not replay history, it handles what happens from its start (the sweep has the past).
 * A source GitLab fails on is left out, to be started at a later poll (index.ts), unless every source
 * it lacks fails: then nothing would be watched that was not already, and the error is the caller's.
 */
export async function cursorFor(gitlab: GitLabClient, sources: readonly WatchSource[], known: WatchCursor | undefined, signal?: AbortSignal): Promise<WatchCursor> {
  const cursor: WatchCursor = { version: 2, sources: {}, retries: { ...known?.retries } };
  const failures: unknown[] = [];
  for (const source of sources) {
    const position = known?.sources[source.key] ?? (await newestEvent(gitlab, source, signal).catch((err: unknown) => void failures.push(err)));
    if (position) cursor.sources[source.key] = position;
  }
  if (failures.length > 0 && (signal?.aborted || Object.keys(cursor.sources).length === 0)) throw failures[0];
  return cursor;
}

/**
 * Whether an event can place the cursor: an id GitLab writes (a positive integer a JavaScript number holds
 * exactly) and a time. A forged or corrupted answer's `2 ** 64` would be stored as an id no later
 * invocation reads back (parseWatchCursor), and the watch would fail every minute until someone deleted it.
 */
export function usableEvent(event: AuditEvent): boolean {
  return isId(event.id) && event.id > 0 && Number.isFinite(Date.parse(event.created_at));
}

/**
 * A time the cursor may stand at: never past `now` (the time of the read). An event GitLab dated ahead (a
 * node's clock, an answer rewritten on the way) would otherwise have every later poll list only what is newer
 * than that time, seeing nothing until it comes, while the cursor's age said it was caught up.
 */
export function notAfter(ms: number, now: number): string {
  return new Date(Math.min(ms, now)).toISOString();
}

/** How far back a source with no event yet starts: more than any clock skew between Warden and GitLab. */
const EMPTY_START_BACK_MS = 3_600_000;

/** A source's start: its newest usable event now (of its first page). */
export async function newestEvent(gitlab: GitLabClient, source: WatchSource, signal?: AbortSignal): Promise<SourcePosition> {
  const now = Date.now();
  try {
    for await (const event of listAuditEvents(gitlab, source.source, {}, { maxItems: 100, signal })) if (usableEvent(event)) return { id: event.id, at: notAfter(Date.parse(event.created_at), now) };
    // No event yet: every event from now on, by GitLab's clock, which may be behind Lambda's by more than a read's
    // margin: an hour back, which holds none of the source's (it had none), so the first ones are not passed.
    return { id: 0, at: new Date(now - EMPTY_START_BACK_MS).toISOString() };
  } catch (err) {
    return auditRefusal(err, source);
  }
}
