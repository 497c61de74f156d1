/**
 * The enforce and workflows Lambdas run two ways, told apart by their event:
 *
 * - On schedule: SST's CronV2 (EventBridge Scheduler) delivers the fixed input sst.config.ts sets,
 *   `{ "source": "schedule" }`, as the whole event (not an EventBridge "Scheduled Event" envelope).
 *   A scheduled run applies, unless the stage is report-only (WARDEN_REPORT_ONLY anything but "false",
 *   unset included): then it is a dry run.
 * - Anything else is a person invoking the function (console, `aws lambda invoke`): `{}` is a dry
 *   run, `{ "dryRun": false }` applies. A report-only stage refuses `"dryRun": false`.
 *
 * The Enforce function also takes `{ "restore": … }` from a person: it re-creates the shares an
 * applying enforce run removed (lib/jobs/restore.ts), dry unless `"dryRun": false` too. The value is
 * that run's JSON report, `{ "lines": [...] }` with its audit lines (the log lines as strings, or as
 * objects), or the lines as one string.
 *
 * Any other field, a field of the wrong type, or a restore input that is not one of those fails the
 * invocation naming it, before anything runs. The function returns the job's report.
 */
import { z } from "zod";
import { restoreInputFrom, RestoreInputError } from "../../lib/jobs/restore-input.ts";
import { ConfigError, isReportOnly, reportOnlySetting } from "./config.ts";
import type { RunRequest } from "./job-request.ts";
import { jobLambda } from "./lambda.ts";
import { logReport } from "./logger.ts";
import { runJob, type JobReport } from "./run-job.ts";

const ScheduledEventSchema = z.strictObject({
  source: z.literal("schedule").optional(),
  dryRun: z.boolean().optional(),
});

/** The restore input, checked and read here, so that a wrong one fails the invocation before anything runs. */
const RestoreField = z.unknown().transform((value, ctx) => {
  try {
    return restoreInputFrom(value);
  } catch (err) {
    if (!(err instanceof RestoreInputError)) throw err;
    ctx.addIssue({ code: "custom", message: err.message });
    return z.NEVER;
  }
});

const EnforceEventSchema = ScheduledEventSchema.extend({ restore: RestoreField.optional() }).refine((e) => !(e.source && e.restore), {
  message: "a restore is asked by a person, not by the schedule: leave out source",
  path: ["restore"],
});

type ScheduledEvent = z.infer<typeof EnforceEventSchema>;

export function scheduledJob(job: "enforce" | "workflows") {
  const schema: z.ZodType<ScheduledEvent, unknown> = job === "enforce" ? EnforceEventSchema : ScheduledEventSchema;
  return jobLambda(schema, async (event, context): Promise<JobReport> => {
    const trigger = event.source === "schedule" ? "schedule" : "console";
    const apply = shouldApply(event);
    const request: RunRequest = event.restore ? { job: "restore", apply, input: event.restore } : { job, apply };
    const report = await runJob(request, context.signal);
    logReport(report, { trigger });
    return report;
  });
}

function shouldApply(event: ScheduledEvent): boolean {
  const wanted = event.dryRun === undefined ? event.source === "schedule" : !event.dryRun;
  if (!wanted || !isReportOnly()) return wanted;
  if (event.dryRun === false) throw new ConfigError(`this stage is report-only (${reportOnlySetting()}): "dryRun": false is refused`);
  return false;
}
