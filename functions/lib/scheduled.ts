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
 * Any other field, or a field of the wrong type, fails the invocation naming it, before anything runs.
 * The function returns the job's report.
 */
import { z } from "zod";
import { ConfigError, isReportOnly, reportOnlySetting } from "./config.ts";
import { jobLambda } from "./lambda.ts";
import { logReport } from "./logger.ts";
import { runJob, type JobReport } from "./run-job.ts";

const ScheduledEventSchema = z.strictObject({
  source: z.literal("schedule").optional(),
  dryRun: z.boolean().optional(),
});

type ScheduledEvent = z.infer<typeof ScheduledEventSchema>;

export function scheduledJob(job: "enforce" | "workflows") {
  return jobLambda(ScheduledEventSchema, async (event, context): Promise<JobReport> => {
    const trigger = event.source === "schedule" ? "schedule" : "console";
    const report = await runJob({ job, apply: shouldApply(event) }, context.signal);
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
