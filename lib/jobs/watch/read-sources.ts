/**
 * One poll's reading of every source (watch/read.ts reads one): several at once, the most behind
 * first, and only until the poll's read deadline, so that a GitLab answering slowly still leaves the
 * poll time to enforce what it read and store the cursor. A poll that outlasted its invocation every
 * time would store nothing, ever; one cut off here keeps what it read, and the sources it did not read
 * keep their place and are read first at the next poll (they are the most behind then), so no source
 * waits behind the others for good.
 */
import pMap from "p-map";
import type { AuditEvent, GitLabClient } from "../../gitlab/index.ts";
import { errorText } from "../report/index.ts";
import { count } from "../view.ts";
import type { SourcePosition, WatchCursor } from "./cursor.ts";
import { BURST_EVENTS, readSource } from "./read.ts";
import { WatchError, type WatchSource } from "./sources.ts";

/** Sources read at once: a poll of dozens of groups is not their latencies end to end (the client still bounds and adapts its requests). */
const SOURCES_AT_ONCE = 4;
/** Sources a warning names before it counts the rest. */
const NAMED = 5;
/**
 * How far back a source new to a running watch is read: the Watch function lists its sources hourly
 * (functions/watch.ts), so a subgroup is first read at most an hour after it was made.
 */
export const NEW_SOURCE_BACK_MS = 3_600_000;

export interface SourcesRead {
  /** Every event read, by id (a source's events may repeat another's). */
  events: Map<number, AuditEvent>;
  /** Where each source read stands now; a source not read is not in it. */
  positions: Record<string, SourcePosition>;
  /** Each source not read in full, said: failed, passed a burst, or not read in time. */
  said: string[];
  /** The oldest time up to which a source is not known to be read (epoch ms), Infinity when all caught up. */
  behind: number;
  /** Every source failed (none was merely left for the read deadline): the first failure. */
  allFailed?: unknown;
}

export interface ReadSourcesOptions {
  gitlab: GitLabClient;
  sources: readonly WatchSource[];
  cursor: WatchCursor;
  maxEvents: number;
  /** The poll's own end: reading stops, and the poll fails. */
  signal?: AbortSignal | undefined;
  /** When reading must stop so the poll has time to enforce what it read: the sources not read by then wait for the next poll. */
  readDeadline?: AbortSignal | undefined;
}

export async function readSources(opts: ReadSourcesOptions): Promise<SourcesRead> {
  const { gitlab, cursor, signal, readDeadline } = opts;
  const reading = readDeadline && signal ? AbortSignal.any([signal, readDeadline]) : (readDeadline ?? signal);
  const read: SourcesRead = { events: new Map(), positions: {}, said: [], behind: Infinity };
  const failed: { source: WatchSource; err: unknown }[] = [];
  const unread: WatchSource[] = [];
  const passed: string[] = [];
  const stand = (at: string | undefined) => (read.behind = Math.min(read.behind, Date.parse(at ?? "") || 0));
  const one = async (source: WatchSource) => {
    const from = cursor.sources[source.key];
    if (readDeadline?.aborted) return void (unread.push(source), stand(from?.at));
    try {
      // A source new to a running watch (a subgroup made since the sources were listed, or one whose start failed) is
      // read from NEW_SOURCE_BACK_MS ago, not started at its newest event: that event may be the share its maker made
      // as soon as the subgroup was, which a start there would never enforce (a first start is cursor.ts's).
      const got = await readSource(gitlab, source, from ?? { id: 0, at: new Date(Date.now() - NEW_SOURCE_BACK_MS).toISOString() }, opts.maxEvents, reading);
      for (const event of got.events) read.events.set(event.id, event);
      read.positions[source.key] = got.to;
      if (got.unusable) passed.push(`the audit events of ${source.label}: ${count(got.unusable, "event")} with an id or a time GitLab never writes (not a positive integer, not a date; a forged or corrupted answer?) passed`);
      if (got.idsWentBack) passed.push(`the audit events of ${source.label}: the newest (id ${got.idsWentBack.newestId}) is dated after the cursor yet its id is below the cursor's (${got.idsWentBack.cursorId}): GitLab's ids went back (restored from an older backup?), so the watch reads it again from the cursor's time; what the backup lost is left to the scheduled sweep`);
      if (got.passedBurst) passed.push(`the audit events of ${source.label}: more than ${BURST_EVENTS} recorded within a millisecond or two (a bulk action), more than a poll reads: the older of them were passed unread, left to the scheduled sweep`);
      if (!got.caughtUp) stand(got.to.at);
    } catch (err) {
      if (signal?.aborted) throw err;
      if (readDeadline?.aborted) unread.push(source);
      else failed.push({ source, err });
      stand(from?.at);
    }
  };
  await pMap(mostBehindFirst(opts.sources, cursor), one, { concurrency: SOURCES_AT_ONCE });
  if (failed.length > 0 && failed.length === opts.sources.length) read.allFailed = failed[0]!.err;
  // GitLab's own answer, not the refusal of a whole watch (WatchError) that it would be alone.
  for (const { source, err } of failed) read.said.push(`the audit events of ${source.label} could not be read (${errorText(err instanceof WatchError ? err.cause : err)}): its events are read at the next poll; the other sources' were handled`);
  read.said.push(...passed);
  if (unread.length) read.said.push(`the audit events of ${named(unread)} were not read this poll: its time for reading ran out (GitLab answering slowly?); they keep their place and are read first at the next poll`);
  return read;
}

/** Not started first, then the oldest position: a source left unread last time goes before those that were read. */
function mostBehindFirst(sources: readonly WatchSource[], cursor: WatchCursor): WatchSource[] {
  const at = (source: WatchSource) => {
    const from = cursor.sources[source.key];
    return from ? Date.parse(from.at ?? "") || 0 : -Infinity;
  };
  return [...sources].sort((a, b) => at(a) - at(b));
}

/** "acme and acme/team", "a, b, c, d, e and 3 more groups". */
function named(sources: WatchSource[]): string {
  const labels = sources.slice(0, NAMED).map((s) => s.label);
  if (sources.length > NAMED) return `${labels.join(", ")} and ${count(sources.length - NAMED, "more source")}`;
  return labels.length > 1 ? `${labels.slice(0, -1).join(", ")} and ${labels.at(-1)}` : labels[0]!;
}
