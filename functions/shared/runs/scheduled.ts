/**
 * The enforce and workflows Lambdas run two ways, told apart by their event:
 *
 * - On schedule: SST's CronV2 (EventBridge Scheduler) delivers the fixed input sst.config.ts sets,
 *   `{ "source": "schedule" }`, as the whole event (not an EventBridge "Scheduled Event" envelope).
 *   A scheduled run applies, unless the stage is report-only (WARDEN_REPORT_ONLY anything but "false",
 *   unset included): then it is a dry run. The event names the schedule alone: `"source"` with any other
 *   field is refused, since the trigger is taken from it (a dry run labelled the schedule's would move the
 *   Watch's cursor, and count as a successful run for Enforce's Heartbeat alarm and record a sweep).
 * - Anything else is a person invoking the function (console, `aws lambda invoke`): `{}` is a dry
 *   run, `{ "dryRun": false }` applies. A report-only stage refuses `"dryRun": false`.
 *
 * The Enforce function also takes `{ "restore": … }` from a person: it re-creates the shares an
 * applying enforce run removed (lib/jobs/restore/), dry unless `"dryRun": false` too. The value is
 * that run's JSON report, `{ "lines": [...] }` with its audit lines (the log lines as strings, or as
 * objects), the lines as one string, or a run the run-history bucket keeps: `"s3://bucket/key"`,
 * `"latest"` for the latest sweep, `"latest:watch"`, `"latest:event"` (lib/jobs/restore/run-history.ts). Each share is
 * judged by the policy this run reads: one it does not allow is skipped unless `"includeStray": true`.
 *
 * Any other field, a field of the wrong type, or a restore input that is not one of those fails the
 * invocation naming it, before anything runs. The function returns the job's report. Every run,
 * finished or failed, then owes operations its stored report, its metrics and, when the policy's
 * `notify` asks, a Slack summary (lifecycle.ts), each in the time the invocation has left; none of
 * that changes what the invocation returns.
 */
import { z } from "zod";
import { type EnforceReport, isStoredRun, restoreInputFrom, RestoreInputError, type RestoreInput, checkRunRef, RunHistoryError, storedRestoreInput } from "../../../lib/jobs/index.ts";
import { ConfigError, isReportOnly, reportOnlySetting } from "../config/settings.ts";
import { judgeSweep } from "./event-coverage.ts";
import { jobLambda } from "../lambda/handler.ts";
import type { RunRequest } from "./job-request.ts";
import { runLifecycle } from "./lifecycle.ts";
import type { RunLabels } from "./outcome.ts";
import { processRunHistory } from "./run-history.ts";
import { dynamoLastSweep, lastSweepForSweep } from "../state/last-sweep.ts";
import { dynamoRefusals, keepsRefusals, refusalsForRun } from "../state/workflows-refusals.ts";
import { runJob, type JobReport } from "./run-job.ts";
import { isSweep, runLabels } from "./triggers.ts";

const ScheduledFields = z.strictObject({
  source: z.literal("schedule").optional(),
  dryRun: z.boolean().optional(),
});

/** Whoever writes `"dryRun"` is a person: the schedule never sends it. */
const SCHEDULE_SENDS_NO_DRY_RUN: [(e: z.infer<typeof ScheduledFields>) => boolean, { message: string; path: string[] }] = [
  (e) => !(e.source && e.dryRun !== undefined),
  { message: 'the schedule sends { "source": "schedule" } alone: leave out source for a person\'s run ({} is a dry run, { "dryRun": false } applies)', path: ["dryRun"] },
];

const ScheduledEventSchema = ScheduledFields.refine(...SCHEDULE_SENDS_NO_DRY_RUN);

/**
 * The restore input, checked and read here, so that a wrong one fails the invocation before anything
 * runs. A stored run is only named here (its form checked): it is read when the run starts.
 */
const RestoreField = z.unknown().transform((value, ctx): { input: RestoreInput } | { stored: string } => {
  try {
    if (!isStoredRun(value)) return { input: restoreInputFrom(value) };
    checkRunRef(value);
    return { stored: value };
  } catch (err) {
    if (!(err instanceof RestoreInputError || err instanceof RunHistoryError)) throw err;
    ctx.addIssue({ code: "custom", message: err.message });
    return z.NEVER;
  }
});

const EnforceEventSchema = ScheduledFields.extend({ restore: RestoreField.optional(), includeStray: z.boolean().optional() })
  .refine(...SCHEDULE_SENDS_NO_DRY_RUN)
  .refine((e) => !(e.source && e.restore), { message: "a restore is asked by a person, not by the schedule: leave out source", path: ["restore"] })
  .refine((e) => e.includeStray === undefined || e.restore !== undefined, { message: "includeStray is for a restore: it goes with restore", path: ["includeStray"] });

export type ScheduledEvent = z.infer<typeof EnforceEventSchema>;

export function scheduledEventSchema(job: "enforce" | "workflows"): z.ZodType<ScheduledEvent, unknown> {
  return job === "enforce" ? EnforceEventSchema : ScheduledEventSchema;
}

/** What a scheduled or console event asks for: the run's labels and what to run. */
export interface ScheduledRun {
  trigger: "schedule" | "console";
  apply: boolean;
  job: RunLabels["job"];
}

/** Reads a checked event; a report-only stage refuses `"dryRun": false` here, before anything runs. */
export function scheduledRun(job: "enforce" | "workflows", event: ScheduledEvent): ScheduledRun {
  return { trigger: event.source === "schedule" ? "schedule" : "console", apply: shouldApply(event), job: event.restore ? "restore" : job };
}

const lastSweeps = dynamoLastSweep();
const refusals = dynamoRefusals();

export function scheduledJob(job: "enforce" | "workflows") {
  return jobLambda(scheduledEventSchema(job), async (event, context): Promise<JobReport> => {
    const run = scheduledRun(job, event);
    const labels = runLabels(run.job, run.trigger, context.awsRequestId);
    const timeLeft = () => context.getRemainingTimeInMillis();
    const { report } = await runLifecycle({ labels, timeLeft, signal: context.signal }, async ({ policy }) => {
      // A sweep's guard does not count the removals GitLab refused the last one (state/last-sweep.ts), nor the
      // Workflows function's the changes n8n refused its last run (state/workflows-refusals.ts).
      const last = isSweep(labels) ? await lastSweepForSweep(lastSweeps, timeLeft) : undefined;
      const refused = keepsRefusals(labels) ? await refusalsForRun(refusals, timeLeft) : undefined;
      const request = { ...(await runRequest(job, event, run.apply)), ...(last && { lastSweep: last }), ...(refused && { lastRefusals: refused }) };
      const report = await runJob(request, context.signal, policy);
      // A sweep judges the event-driven paths beside it (runs/event-coverage.ts).
      return isSweep(labels) ? judgeSweep(report as EnforceReport) : report;
    });
    return report;
  });
}

/** The job an event asks for; a restore of a stored run reads that run here. */
/** `located`: the stored run event.restore names, looked up already (a durable restore records it once). */
export async function runRequest(job: "enforce" | "workflows", event: ScheduledEvent, apply: boolean, located?: { location: string; chosen?: string }): Promise<RunRequest> {
  if (!event.restore) return { job, apply };
  const input = "stored" in event.restore ? await storedRestoreInput(processRunHistory, located?.location ?? event.restore.stored, located?.chosen) : event.restore.input;
  return { job: "restore", apply, input, includeStray: event.includeStray === true };
}

function shouldApply(event: ScheduledEvent): boolean {
  const wanted = event.dryRun === undefined ? event.source === "schedule" : !event.dryRun;
  if (!wanted || !isReportOnly()) return wanted;
  if (event.dryRun === false) throw new ConfigError(`this stage is report-only (${reportOnlySetting()}): "dryRun": false is refused`);
  return false;
}
