/**
 * A delivery's events handed on: each event claimed once (the claims table: GitLab may deliver an
 * event twice), the new ones grouped by the subject they name, and one asynchronous invoke of the
 * worker per subject, so several events about one project make one run, and one subject outside the
 * scope fails alone. Nothing here waits for a run: GitLab gives a destination 8 seconds.
 *
 * An event only names where to look: the Worker's run reads the subject's shares from GitLab and
 * judges them by the policy, so a forged event can at most start a run that finds what is there.
 * What it must not do is keep a real event from being handled: a claim is the whole event's hash
 * (delivery.ts), and an event dated after now (a system hook, less than HOOK_CLAIM_AFTER_MS before
 * now) is handled without one, so nobody can claim GitLab's event before it happens (a run then could
 * not yet see the change the event records).
 */
import pMap from "p-map";
import { eventSubjectKey, type EventSubject } from "../../../lib/jobs/events/index.ts";
import { errorText } from "../../../lib/jobs/report/index.ts";
import { logger } from "../lambda/logger.ts";
import type { SubjectWorkerEvent } from "../runs/job-request.ts";
import type { Claims } from "../state/claims.ts";
import { LOGGED_EVENTS, type DeliveredEvent } from "./delivery.ts";

/** Long past any repeat GitLab makes of a delivery; DynamoDB's TTL deletes the claims after. */
export const EVENT_CLAIM_SECONDS = 7 * 24 * 3600;
/**
 * Claim writes, and then Worker invokes, in flight at once. A delivery has at most 1,000 events and
 * 100 subjects (delivery.ts): at a few milliseconds a call, ten at a time is well inside GitLab's 8
 * seconds, and far inside the SDK's 50 sockets and what DynamoDB and Lambda take in a burst.
 */
export const EVENT_DISPATCH_CONCURRENCY = 10;

export interface DispatchOptions {
  claims: Claims;
  /** Starts the subject's worker; `signal` cuts the invoke. */
  start: (event: SubjectWorkerEvent, signal?: AbortSignal) => Promise<void>;
  /** The Events request's id: each subject's worker event is named by it. */
  requestId: string;
  /** Cuts the claim writes: a claim cut off is taken as new, as when the table cannot be reached. */
  claimsSignal?: AbortSignal;
  /** Cuts the invokes; later than claimsSignal, so a subject whose claims were cut is still started. */
  startSignal?: AbortSignal;
  now?: () => number;
}

/** What became of a delivery's events: the answer's body, and the log line's fields. */
export interface DispatchTally {
  events: number;
  /** Events naming no project or group Warden governs shares of (a login, a removal…). */
  ignored: number;
  duplicates: number;
  /** Subjects whose run was started, and those whose start failed. */
  started: string[];
  failed: string[];
}

export async function dispatch(events: readonly DeliveredEvent[], opts: DispatchOptions): Promise<DispatchTally> {
  const now = opts.now ?? Date.now;
  const named = events.filter((e): e is DeliveredEvent & { subject: EventSubject } => e.subject !== undefined);
  const tally: DispatchTally = { events: events.length, ignored: events.length - named.length, duplicates: 0, started: [], failed: [] };
  // A repeat within one delivery counts as one event.
  const unique = [...new Map(named.map((e) => [e.claim, e])).values()];
  tally.duplicates = named.length - unique.length;
  const at = now();
  const expiresAt = Math.floor(at / 1000) + EVENT_CLAIM_SECONDS;
  const ahead = unique.filter((e) => !happenedBy(e, at));
  if (ahead.length) logger.warn("events dated after now, or not dated, are handled but not claimed (a GitLab clock ahead of this one, or events sent before they happened)", { events: ahead.slice(0, LOGGED_EVENTS).map((e) => e.id), eventCount: ahead.length });
  const fresh = await pMap(unique, (e) => !happenedBy(e, at - (e.claimAfterMs ?? 0)) || firstDelivery(opts, e, expiresAt), { concurrency: EVENT_DISPATCH_CONCURRENCY });
  const bySubject = new Map<string, { subject: EventSubject; events: DeliveredEvent[] }>();
  for (const [i, e] of unique.entries()) {
    if (!fresh[i]) {
      tally.duplicates++;
      continue;
    }
    const key = eventSubjectKey(e.subject);
    const entry = bySubject.get(key) ?? { subject: e.subject, events: [] };
    entry.events.push(e);
    bySubject.set(key, entry);
  }
  await pMap(
    bySubject,
    async ([key, { subject, events: about }]) => {
      const worker: SubjectWorkerEvent = {
        kind: "subject",
        subject,
        events: about.map((e) => ({ id: e.id, name: e.name, ...(e.createdAt ? { createdAt: e.createdAt } : {}) })),
        correlationId: `${opts.requestId}:${key}`,
      };
      try {
        await opts.start(worker, opts.startSignal);
        tally.started.push(key);
      } catch (err) {
        // Its events stay claimed: the scheduled sweep is what finds their strays now.
        logger.error("starting the worker for a subject failed; the scheduled run will find its strays", { subject: key, events: worker.events.slice(0, LOGGED_EVENTS).map((e) => e.id), eventCount: worker.events.length, error: causeOf(err, opts.startSignal) });
        tally.failed.push(key);
      }
    },
    { concurrency: EVENT_DISPATCH_CONCURRENCY },
  );
  return tally;
}

/** What failed a call: the deadline, once it has passed (the SDK's error says only "Request aborted"), else the error. */
function causeOf(err: unknown, signal: AbortSignal | undefined): string {
  return errorText(signal?.aborted ? signal.reason : err);
}

/** Whether the event says it happened by `at`: only then can a run started now see what it records. */
function happenedBy(event: DeliveredEvent, at: number): boolean {
  return event.createdAt !== undefined && Date.parse(event.createdAt) <= at;
}

/**
 * Whether the event is new. When the claims table cannot tell, it is taken as new: a second run for
 * a subject removes nothing the first did not, and a missed one leaves a stray until the sweep.
 */
async function firstDelivery(opts: DispatchOptions, event: DeliveredEvent, expiresAt: number): Promise<boolean> {
  try {
    return await opts.claims.claim(event.claim, expiresAt, undefined, opts.claimsSignal);
  } catch (err) {
    logger.warn("the claims table could not be reached: the event is handled as new", { event: event.id, error: causeOf(err, opts.claimsSignal) });
    return true;
  }
}
