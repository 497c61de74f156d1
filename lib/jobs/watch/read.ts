/**
 * Reading one source's events oldest first, at most `limit` a poll, however far behind the cursor is.
 * GitLab lists audit events newest first only (keyset by id descending; offset paging is deprecated),
 * filtered by `created_after` / `created_before` (inclusive). So a poll narrows a time window until it
 * holds no more than `limit` events past the cursor, and takes those: while a window overflows, its
 * end is brought down to where, at the rate of the page just read, some 80% of the bound would fit;
 * a window found empty moves the start up past it.
 * One request a probe (two when a window overflows a page); at most MAX_PROBES probes, after which the poll
 * keeps what it learned (the start moved up) and the next goes on. The cursor thus moves part-way,
 * and a backlog of any size drains over several polls, each within its bound.
 */
import { AUDIT_WINDOW_DAYS, listAuditEvents, type AuditEvent, type GitLabClient } from "../../gitlab/index.ts";
import { notAfter, usableEvent, type SourcePosition } from "./cursor.ts";
import { auditRefusal, type WatchSource } from "./sources.ts";

/**
 * Events a source's reading yields in one poll, by default. Every kind counts (sign-ins, settings), and
 * a busy instance records them by the hundred a minute: a bound below that leaves the cursor further
 * behind each poll, for good. Ten pages of 100 at most, while a backlog drains.
 */
export const EVENTS_PER_POLL = 1_000;
/** Windows tried a poll, per source; past them the poll keeps how far it got (the start moved up). */
const MAX_PROBES = 24;
/**
 * An event whose time is a little before a later-read one's (times are not in step with ids to the
 * millisecond) is still read. Not one whose id is below the cursor's: an event GitLab commits after one
 * with a higher id, read in between, is left to the sweep (docs/how-enforce-works.md, "Watching").
 */
const MARGIN_MS = 5 * 60_000;
const WINDOW_MS = AUDIT_WINDOW_DAYS * 86_400_000;

export interface SourceRead {
  /** Oldest first, each newer than the position's id. */
  events: AuditEvent[];
  /** Where the next poll starts. */
  to: SourcePosition;
  /** Whether it read everything the source had: false when the bound (or the probes) left events for the next poll. */
  caughtUp: boolean;
  /** A burst within a millisecond or two larger than BURST_EVENTS: its older events were passed, unread. */
  passedBurst?: true;
  /** Events passed as no cursor can stand on them (cursor.ts's usableEvent): an id or a time GitLab never writes. */
  unusable?: number;
  /**
   * The source's newest event is dated past the cursor (by more than IDS_WENT_BACK_MS) with an id below
   * its id: GitLab's ids went back (an instance restored from an older backup), and no event would pass the
   * cursor until they grew past it, months perhaps. The source is read again from the cursor's time by time
   * alone (what the instance recorded since); what the backup lost is the scheduled sweep's.
   */
  idsWentBack?: { cursorId: number; newestId: number };
}

/**
 * The most events of a burst within a millisecond or two (a bulk action) a poll reads to find its
 * oldest: GitLab lists them newest first only, so each poll would read the whole burst above the
 * cursor, its cost growing with the burst's size until a poll outlasts its invocation, every time.
 */
export const BURST_EVENTS = 2_000;

/**
 * How much later than the cursor's time the newest event must be dated, its id below the cursor's, for
 * GitLab's ids to have gone back: GitLab commits events out of id order by well under a second, never this.
 */
const IDS_WENT_BACK_MS = 30_000;

export async function readSource(gitlab: GitLabClient, source: WatchSource, from: SourcePosition, limit: number, signal?: AbortSignal): Promise<SourceRead> {
  const now = Date.now();
  // Every event newer than from.id and created before `lo` has been handled; `hi` undefined: up to now.
  // Never past now: a cursor stored ahead (before notAfter) comes back.
  let lo = from.at === undefined ? now - WINDOW_MS : Math.min(Date.parse(from.at), now);
  // Each passed once, however many windows list it.
  const passed = new Set<string>();
  const pass = (item: unknown) => {
    const { id, created_at } = typeof item === "object" && item !== null ? (item as Partial<AuditEvent>) : {};
    passed.add(`${typeof id} ${String(id)} ${String(created_at)}`);
  };
  const usable = (event: AuditEvent) => usableEvent(event) || (pass(event), false);
  // A query spans at most 30 days, the margin included.
  const spanEnd = (start: number) => (now - start > WINDOW_MS - MARGIN_MS ? start + WINDOW_MS - MARGIN_MS : undefined);
  let ceiling = spanEnd(lo);
  // The oldest event of the last page that overflowed: the windows that follow end at it or before it.
  let overflowAt: number | undefined;
  let hi = ceiling;
  const list = (before: number | undefined, max?: number) => {
    const window = { createdAfter: new Date(lo - MARGIN_MS), ...(before === undefined ? {} : { createdBefore: new Date(before) }) };
    // An item no event is (a string id, a null, one out of the listing's order) is passed as well: the listing goes on.
    return listAuditEvents(gitlab, source.source, window, { signal, passed: pass, ...(max === undefined ? {} : { maxItems: max }) });
  };
  try {
    for (let probe = 0; probe < MAX_PROBES; probe++) {
      // Newest first: the events past the cursor come before any at or below it.
      const page: AuditEvent[] = [];
      let overflow = false;
      for await (const event of list(hi, limit + 1)) {
        if (!usable(event)) continue;
        // Below, not at: the event the cursor stands on may be dated ahead of the time the cursor keeps (notAfter).
        if (event.id < from.id && page.length === 0 && hi === undefined && from.at !== undefined && Date.parse(event.created_at) > Date.parse(from.at) + IDS_WENT_BACK_MS) {
          // Read again from the cursor's time by it alone: what the instance recorded since (a restored one: since its restore).
          return { ...(await readSource(gitlab, source, { id: 0, at: from.at }, limit, signal)), idsWentBack: { cursorId: from.id, newestId: event.id } };
        }
        if (event.id <= from.id) break;
        if ((overflow = page.length === limit)) break;
        page.push(event);
      }
      if (!overflow) {
        const at = hi ?? Math.max(lo, ...page.map((e) => Date.parse(e.created_at)));
        if (page.length > 0 || hi === undefined) return { events: page.reverse(), to: { id: Math.max(from.id, ...page.map((e) => e.id)), at: notAfter(at, now) }, caughtUp: hi === undefined, ...(passed.size && { unusable: passed.size }) };
        // Nothing past the cursor up to `hi`: start there. Then try up to the last overflowing page's oldest
        // event, its own millisecond left out: a burst at it (a page all in one millisecond sizes the window
        // above at 1 ms) would overflow again and again, a millisecond gained each time; what comes before
        // it is read, or the window found empty brings the start to it. With no overflow yet, the next span.
        lo = hi;
        ceiling = overflowAt ?? spanEnd(lo);
        hi = overflowAt !== undefined && overflowAt - 1 > lo ? overflowAt - 1 : ceiling;
        continue;
      }
      // The rest is older than the page's oldest; at the page's rate, a window holding some 80% of the bound.
      const [newest, oldest] = [Date.parse(page[0]!.created_at), Date.parse(page.at(-1)!.created_at)];
      ceiling = overflowAt = Math.min(ceiling ?? Infinity, oldest);
      if (ceiling - lo < 2) return { ...(await oldestOf(list(ceiling, BURST_EVENTS + 1), from, limit, usable)), ...(passed.size && { unusable: passed.size }) };
      hi = lo + Math.max(1, Math.min(ceiling - lo, Math.floor((0.8 * Math.max(1, newest - oldest) * limit) / page.length)));
    }
  } catch (err) {
    auditRefusal(err, source);
  }
  return { events: [], to: { id: from.id, at: new Date(lo).toISOString() }, caughtUp: false, ...(passed.size && { unusable: passed.size }) };
}

/**
 * More than `limit` events within a millisecond or two: the window is read to the cursor, keeping
 * only the oldest `limit` (newest first, so the last seen); the time stays, the id moves. A burst of
 * more than BURST_EVENTS above the cursor is not read to its end: the oldest `limit` of those read are
 * taken and the id moves past them, so the ones unread below them are passed (`passedBurst`), left to
 * the sweep; the newer ones read are read again at the next poll, within the bound.
 */
async function oldestOf(events: AsyncIterable<AuditEvent>, from: SourcePosition, limit: number, usable: (event: AuditEvent) => boolean): Promise<SourceRead> {
  const kept: AuditEvent[] = [];
  let read = 0;
  for await (const event of events) {
    if (!usable(event)) continue;
    if (event.id <= from.id) break;
    if (++read > BURST_EVENTS) break;
    kept.push(event);
    if (kept.length > limit) kept.shift();
  }
  kept.reverse();
  return { events: kept, to: { ...from, id: Math.max(from.id, ...kept.map((e) => e.id)) }, caughtUp: false, ...(read > BURST_EVENTS && { passedBurst: true as const }) };
}
