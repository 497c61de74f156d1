/**
 * Time to enforcement, the stream's whole point: the seconds from the earliest event naming a subject
 * (its created_at, GitLab's clock) to the end of the run that removed its strays, as the one
 * SecondsToRemoval metric the Watch function emits too (trigger "event" here, "watch" there). Only a
 * run that removed something has one: a dry run or a subject in policy enforced nothing. Events dated
 * before the claim window (EVENT_CLAIM_SECONDS) are not counted.
 */
import type { EnforceReport } from "../../../lib/jobs/index.ts";
import { errorText } from "../../../lib/jobs/report/index.ts";
import { logger } from "../lambda/logger.ts";
import { runStage } from "../runs/triggers.ts";
import { recordSecondsToRemoval } from "../runs/metrics.ts";
import { EVENT_CLAIM_SECONDS } from "./dispatch.ts";

export function secondsToEnforcement(report: EnforceReport, events: readonly { createdAt?: string | undefined }[]): number | undefined {
  if (report.summary.removed === 0) return undefined;
  const finished = Date.parse(report.finishedAt);
  // The times are the sender's: one older than an event is claimed for (a replay, or a holder of the
  // streaming token writing 1970) would be taken as the stream's delay and swamp the metric's maximum.
  const times = events.flatMap((e) => (e.createdAt ? [Date.parse(e.createdAt)] : [])).filter((t) => Number.isFinite(t) && finished - t <= EVENT_CLAIM_SECONDS * 1000);
  if (!times.length) return undefined;
  return Math.max(0, (finished - Math.min(...times)) / 1000);
}

/** Never throws: the run's outcome is not the metric's to change. */
export function recordSecondsToEnforcement(report: EnforceReport, events: readonly { createdAt?: string | undefined }[]): void {
  const seconds = secondsToEnforcement(report, events);
  if (seconds === undefined) return;
  try {
    recordSecondsToRemoval([seconds], { stage: runStage(), job: "enforce", trigger: "event" });
  } catch (err) {
    logger.error("emitting the time to enforcement failed", { error: errorText(err) });
  }
}
