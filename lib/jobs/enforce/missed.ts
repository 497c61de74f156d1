/**
 * What a sweep (a full enforce run) says of the event-driven paths (the Watch function, GitLab's
 * audit event stream): the strays it finds that those paths should have removed and did not, and
 * whether the stream has gone quiet. Pure: the Lambda decides the window and reads the last delivery
 * (functions/shared/runs/event-coverage.ts); this judges the report's removals against them.
 *
 * A stray the sweep finds at all is one no event-driven run removed: had an event announced it, the
 * watch or the stream would have, within minutes. So a stray whose attributed creation (addedBy.at,
 * attribution.ts) falls inside the window (after the previous sweep's window, and at least a grace
 * period before this sweep began, the watch's own latency) was missed by the events. A removal this
 * sweep could not make either (failed), or found already made (already-gone) or no longer stray
 * (skipped) is not counted: failures are alarmed on their own, and those are not strays left standing.
 * A stray with no known creation time cannot be judged: it is counted apart (undated).
 */
import type { ShareRemoval } from "../shares/plan.ts";
import { count } from "../view.ts";

/** The strays named in a report; the count covers all of them. */
export const MAX_NAMED_MISSES = 50;

export interface MissedShare {
  kind: ShareRemoval["kind"];
  /** The project, or the sharing group. */
  subject: string;
  /** The invited group. */
  group: string;
  /** When its audit event says it was made, and by whom. */
  addedAt: string;
  addedBy: string;
}

export interface MissedByEvents {
  /** The window judged: strays made after `from` and before `to` (ISO 8601). */
  from: string;
  to: string;
  count: number;
  /** At most MAX_NAMED_MISSES of them, in the report's order. */
  shares: MissedShare[];
  /** Strays with no known creation time (attribution off, not recorded, not visible): not judged. */
  undated: number;
}

/** The stream's deliveries as the sweep found them (only with WARDEN_EVENTS=on). */
export interface EventDelivery {
  /** The last delivery GitLab made to the Events endpoint (ISO 8601); null: none recorded. */
  last: string | null;
  /** The silence that counts: WARDEN_EVENTS_SILENCE_HOURS. */
  silentHours: number;
  silent: boolean;
}

/** A stray the sweep removed or noticed (onStray notify): the watch or the stream should have, when made in the window. */
const LEFT_STANDING: ReadonlySet<string> = new Set(["planned", "done", "notify", "noticed"]);

export function missedByEvents(actions: readonly ShareRemoval[], window: { from: string; to: string }): MissedByEvents {
  const from = Date.parse(window.from);
  const to = Date.parse(window.to);
  const missed: MissedShare[] = [];
  let total = 0;
  let undated = 0;
  for (const action of actions) {
    if (!LEFT_STANDING.has(action.status)) continue;
    const at = action.addedBy ? Date.parse(action.addedBy.at) : NaN;
    if (!Number.isFinite(at)) {
      undated++;
      continue;
    }
    if (at <= from || at >= to) continue;
    total++;
    if (missed.length < MAX_NAMED_MISSES) {
      const subject = action.kind === "project" ? action.project : action.sharedGroup;
      missed.push({ kind: action.kind, subject, group: action.group, addedAt: action.addedBy!.at, addedBy: action.addedBy!.username ?? action.addedBy!.name });
    }
  }
  return { from: window.from, to: window.to, count: total, shares: missed, undated };
}

/** The report's warning naming the misses (every render shows warnings, escaped); none when there are none. */
export function missedWarning(m: MissedByEvents): string | undefined {
  if (m.count === 0) return undefined;
  const named = m.shares.map((s) => `${s.kind} ${s.subject} with ${s.group} (added by ${s.addedBy} at ${s.addedAt})`).join("; ");
  const more = m.count > m.shares.length ? `; and ${m.count - m.shares.length} more` : "";
  return (
    `missed by events: ${count(m.count, "stray share")} made between ${m.from} and ${m.to} ${m.count === 1 ? "was" : "were"} not removed by the watch or the event stream ` +
    `(is the stream's destination still on in GitLab, the watch polling?): ${named}${more}`
  );
}

export function silenceWarning(d: EventDelivery): string | undefined {
  if (!d.silent) return undefined;
  const since = d.last ? `since ${d.last}` : "ever";
  return `events silent: GitLab has delivered no event to the Events endpoint ${since}, more than ${count(d.silentHours, "hour")} (WARDEN_EVENTS_SILENCE_HOURS): check the streaming destination or system hook in GitLab; until it delivers, strays wait for the sweep`;
}
