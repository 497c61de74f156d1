/**
 * Watch: every minute (sst.config.ts's WatchSchedule) one poll of GitLab's audit events newer than the
 * cursor, enforcing only the subjects they name (lib/jobs/watch's watchOnce): a stray share is gone a minute or two
 * after it was made, not at the next daily run. Applies on the schedule unless the stage is report-only,
 * as Enforce's schedule decides (functions/shared/runs/scheduled.ts); a console invocation is dry unless it says
 * "dryRun": false, and a dry one leaves the cursor as it found it. The cursor is an item of the claims table written only if no other invocation wrote
 * it since it was read (functions/shared/state/watch-cursor.ts); a lease there keeps overlapping invocations from
 * polling at once. What the last full run found matching nothing (functions/shared/state/last-sweep.ts) is refused
 * here as there, under the same policy; under a policy no full run has judged yet, a batch's removals come out of the
 * budget the EventsWorker's runs take from too (functions/shared/state/removal-budget.ts). A batch owes what any run owes (lifecycle.ts): its report logged and kept if it
 * removed something, metrics (with the seconds from each share's event to its removal), a Slack summary.
 */
import type { Context } from "aws-lambda";
import { readOnlyStore, secondsToRemoval, watchOnce, watchSources, type WatchOnceResult, type WatchReport, type WatchSources } from "../lib/jobs/watch/index.ts";
import { gitlabClient } from "./shared/config/clients.ts";
import type { Policy } from "../lib/policy/index.ts";
import { secrets } from "./shared/config/secrets.ts";
import type { DeadlineContext } from "./shared/lambda/deadline.ts";
import { jobLambda } from "./shared/lambda/handler.ts";
import { audit, logger } from "./shared/lambda/logger.ts";
import { idle, runLifecycle } from "./shared/runs/lifecycle.ts";
import { recordCursorAge, recordSecondsToRemoval } from "./shared/runs/metrics.ts";
import { scheduledEventSchema, scheduledRun, type ScheduledEvent } from "./shared/runs/scheduled.ts";
import { runLabels } from "./shared/runs/triggers.ts";
import { dynamoClaims } from "./shared/state/claims.ts";
import { dynamoLastSweep } from "./shared/state/last-sweep.ts";
import { dynamoRemovalBudget } from "./shared/state/removal-budget.ts";
import { dynamoWatchCursor } from "./shared/state/watch-cursor.ts";

/** The schedule's period: the cost the policy's limit is checked against. */
const INTERVAL_MS = 60_000;
/** The sources (the scope's groups) are listed again after this long: a new subgroup is watched within the hour. */
const SOURCES_TTL_MS = 3_600_000;
const LEASE_KEY = "watch:lease";
/** The least a poll's reading gets, however late it starts (the invocation's deadline still ends it). */
const READ_AT_LEAST_MS = 5_000;

const claims = dynamoClaims();
const store = dynamoWatchCursor();
const lastSweep = dynamoLastSweep();
const removalBudget = dynamoRemovalBudget();
let known: { sources: WatchSources; at: number; policy: string } | undefined;

/** What an invocation did: a batch's report, or why there was none. */
export type WatchResult = WatchReport | { polled: "started" | "nothing new" | "busy"; events: number };

export const handler = jobLambda(scheduledEventSchema("workflows"), (event: ScheduledEvent, context: Context & DeadlineContext): Promise<WatchResult> => watch(event, context));

async function watch(event: ScheduledEvent, context: Context & DeadlineContext): Promise<WatchResult> {
  const { apply, trigger } = scheduledRun("workflows", event);
  const labels = runLabels("enforce", "watch", context.awsRequestId);
  const timeLeft = () => context.getRemainingTimeInMillis();
  // The lease lasts the invocation at most; given back at the end.
  if (!(await claims.claim(LEASE_KEY, Math.ceil((Date.now() + timeLeft()) / 1000), context.awsRequestId))) {
    logger.info("another Watch invocation is polling: this one stops");
    return { polled: "busy", events: 0 };
  }
  try {
    // A poll with no batch (the first, or nothing new) is idle: it owes no report, metrics or summary. A
    // failed poll (GitLab Free, a refused token) owes what any failed run does.
    const ran = await runLifecycle<WatchReport, Exclude<WatchResult, WatchReport>>({ labels, timeLeft, signal: context.signal }, async ({ policy }) => {
      // The cursor moves with the schedule's polls and an applying one's: a console dry run on a stage whose
      // schedule applies only looks, or the schedule would never see the events it read (nor retry what waits).
      // An event naming the schedule is the schedule's own: with "dryRun" it is refused (runs/scheduled.ts).
      const polled = await poll(policy, apply, trigger === "schedule" || apply, context.signal, timeLeft);
      recordCursorAge(polled.started ? 0 : polled.behindSeconds, labels);
      if (polled.started) return idle({ polled: "started", events: 0 });
      for (const line of polled.ignored) logger.info(line);
      // Said whether or not there is a batch (its report's warnings have them too): the cursor age metric shows how long.
      for (const line of polled.failedSources) logger.warn(line);
      return polled.report ?? idle({ polled: "nothing new", events: polled.read });
    });
    if ("idle" in ran) return ran.idle;
    recordSecondsToRemoval(secondsToRemoval(ran.report), labels);
    return ran.report;
  } finally {
    await claims.release(LEASE_KEY, context.awsRequestId).catch((err: unknown) => logger.warn("the Watch lease was not given back (it expires with the invocation)", { error: String(err) }));
  }
}

/**
 * One poll from the stored cursor (lib/jobs/watch's watchOnce); the first invocation only stores the newest events.
 * Reading the sources gets half the time the invocation has left: the other half enforces what was read
 * and stores the cursor, however slowly GitLab lists its audit events (a source not read waits for the next poll).
 * Looking up the subjects they name gets half of what is left then, so that one subject GitLab hangs on
 * (tried again at the next poll) does not hold up the others of its batch.
 */
async function poll(policy: Policy, apply: boolean, moves: boolean, signal: AbortSignal, timeLeft: () => number): Promise<WatchOnceResult> {
  const gitlab = gitlabClient(await secrets.get());
  const sha = policy.source.sha256;
  if (!known || known.policy !== sha || Date.now() - known.at > SOURCES_TTL_MS) {
    known = { sources: await watchSources(gitlab, policy, INTERVAL_MS, signal), at: Date.now(), policy: sha };
    // Said at each refresh (hourly): a partial watch (more groups than the limit allows) is a warning.
    if (known.sources.partial) logger.warn(known.sources.statement);
    else logger.info(known.sources.statement);
  }
  // The rules the last full run found matching nothing, refused here too (lib/jobs/enforce/rules.ts).
  const sweep = await lastSweep.read(signal);
  // Half of what is left, each time: for the sources, then for looking up the subjects they name (a subject GitLab hangs on waits for the next poll).
  const halfLeft = () => AbortSignal.timeout(Math.max(READ_AT_LEAST_MS, Math.floor(timeLeft() / 2)));
  // Each poll's guard sees only its batch: under a policy no full run has judged, the polls and the stream's runs share gitlab.guard.maxRemovals.
  const polled = await watchOnce({ gitlab, policy, sources: known.sources.sources, store: moves ? store : readOnlyStore(store), apply, signal, readDeadline: halfLeft(), lookupDeadline: halfLeft, audit, removalBudget, ...(sweep ? { lastSweep: sweep } : {}) });
  if (polled.started) logger.info("first poll: the cursor starts at the newest audit event (earlier ones are the scheduled Enforce run's)", { cursor: polled.cursor });
  else if (polled.lost) logger.warn("another Watch invocation moved the cursor first: this one's is dropped (its removals were idempotent)");
  return polled;
}
