/**
 * Everything a finished run owes operations after its log lines, in this order: its report kept for
 * restore when it changed something (an enforce run, when it removed something; a failed one that may
 * have, having no report, says so where an alarm sees it), for a full enforce run
 * the rules it found matching nothing (state/last-sweep.ts), for a run of the Workflows function the
 * changes n8n refused it for good (state/workflows-refusals.ts), then whatever the caller gives back once
 * those are kept (the durable run's lease: `kept`), and (for a trigger that notifies, triggers.ts) a Slack
 * summary, a stream run's or a Watch poll's only if none posted the same lately (told-once.ts).
 * The caller (lifecycle.ts) has logged the report and emitted the metrics first. None of it may change the run's outcome, nor
 * outlive the invocation: each part that fails is logged and the rest still happens, and each call
 * gets only a slice of the time left (lambda/time-left.ts).
 */
import { sweepOf, type EnforceReport, type WorkflowsReport } from "../../../lib/jobs/index.ts";
import { errorText } from "../../../lib/jobs/report/index.ts";
import { logger } from "../lambda/logger.ts";
import { MIN_SLICE_MS, RETURN_MARGIN_MS, sliceSignal, UNBOUNDED, type TimeLeft } from "../lambda/time-left.ts";
import { dynamoLastSweep, type LastSweepStore } from "../state/last-sweep.ts";
import { dynamoRefusals, keepsRefusals, rememberRefusals } from "../state/workflows-refusals.ts";
import { recordNotStored } from "./metrics.ts";
import { notifyRun, shouldNotify, type NotifyOptions } from "./notify.ts";
import { verdict, type RunLabels, type RunOutcome } from "./outcome.ts";
import { processRunHistory, type RunHistory } from "./run-history.ts";
import { firstTelling } from "./told-once.ts";
import { isSweep } from "./triggers.ts";

/** The longest the report's store may take: a report of a few MB, with the S3 client's own retries. */
export const STORE_TIMEOUT_MS = 30_000;
/** The longest remembering the sweep's unmatched rules may take: one small PutItem. */
const SWEEP_TIMEOUT_MS = 5_000;
/** The longest asking whether a summary was posted already may take: one conditional PutItem (and a GetItem). */
const TOLD_TIMEOUT_MS = 5_000;
/**
 * Kept for `kept` (a lease's conditional delete) out of the slices before it, so that a store S3 hangs on does not
 * leave it too little to be tried; only when there is time for both: else the store, which restore needs, has it.
 */
const KEPT_MS = 3_000;

const lastSweep = dynamoLastSweep();
const refusals = dynamoRefusals();

/** The triggers whose runs come in floods, each told once (told-once.ts), by whose claims they are. */
const TELLERS: Partial<Record<RunLabels["trigger"], "worker" | "watch">> = { event: "worker", watch: "watch" };

export interface AfterRunOptions {
  /** Where to post a summary, and when; left out for chat runs (they answer in their thread), or when the run failed before they were read. */
  notify?: NotifyOptions;
  history?: RunHistory;
  lastSweep?: LastSweepStore;
  /** The invocation's time left (its Lambda context's getRemainingTimeInMillis). */
  timeLeft?: TimeLeft;
  /** A failed run that may have changed something before it failed (lifecycle.ts): it has no report to store. */
  mayHaveChanged?: boolean;
  /**
   * Called once the report is stored and the sweep's record written, before the summary is posted (which may take long):
   * the durable run's lease given back then, so that a restore or a sweep that takes it next finds this run's.
   */
  kept?: () => Promise<void>;
}

/**
 * An enforce report that removed something, not stored: `restore latest` would take the run before it. Said
 * where an alarm sees it (ReportNotStored) and in the result (the execution's, the console's), not in one log
 * line alone. Another job's report is kept for the record, which no restore reads: its log line says so.
 */
function notStored(report: { job: string; warnings: string[] }, labels: RunLabels, why: string): void {
  if (report.job !== "enforce") return;
  report.warnings.push(`this run's report could not be stored for restore (${why}): restore latest would take the run before it; restore from this result, or from its audit lines`);
  notStoredMetric(labels);
}

/**
 * A failed enforce run that may have removed shares first (a durable execution failed in a later
 * invocation, its removals checkpointed in earlier ones): it has no report, so restore latest would take
 * the run before it. Said where the ReportNotStored alarm sees it, beside its `job failed` line.
 */
function failedNotStored(labels: RunLabels): void {
  if (labels.job !== "enforce") return;
  logger.error("the run failed after it may have removed shares, with no report to store for restore: restore latest would take the run before it; restore its removals from its audit lines");
  notStoredMetric(labels);
}

function notStoredMetric(labels: RunLabels): void {
  try {
    recordNotStored(labels);
  } catch (err) {
    logger.error("emitting the ReportNotStored metric failed", { error: errorText(err) });
  }
}

export async function afterRun(outcome: RunOutcome, labels: RunLabels, opts: AfterRunOptions = {}): Promise<{ stored?: string }> {
  const timeLeft = opts.timeLeft ?? UNBOUNDED;
  const beforeKept: TimeLeft = opts.kept && timeLeft() - KEPT_MS - RETURN_MARGIN_MS >= MIN_SLICE_MS ? () => timeLeft() - KEPT_MS : timeLeft;
  const result: { stored?: string } = {};
  if ("error" in outcome && opts.mayHaveChanged) failedNotStored(labels);
  // Kept for restore: a run that changed nothing has nothing to undo, and would only hide the last
  // run that did from "latest"; so would an enforce run that only opened notices (under onStray notify).
  if ("report" in outcome && (outcome.report.job === "enforce" ? outcome.report.actions.some((a) => a.status === "done") : verdict(outcome).changed > 0)) {
    const signal = sliceSignal("storing the run's report for restore", STORE_TIMEOUT_MS, beforeKept);
    try {
      const stored = signal && (await (opts.history ?? processRunHistory).store(outcome.report, labels, { signal }));
      if (stored) {
        result.stored = stored;
        logger.info("run report stored for restore", { location: stored });
      } else if (!signal) notStored(outcome.report, labels, "the invocation had too little time left");
    } catch (err) {
      // The audit lines in the log still hold every removal: restore reads those too. A store cut off by
      // its slice is named by the slice's reason: the SDK's own error says only "Request aborted".
      logger.error("storing the run's report for restore failed; its audit lines are in the log", { error: errorText(signal?.reason ?? err) });
      // Its name alone (AccessDenied, a timeout): S3's message names the account, the role and the bucket, and
      // a chat run's answer goes to its channel. The log line above has it whole.
      notStored(outcome.report, labels, `the store failed: ${((signal?.reason ?? err) as Error | undefined)?.name ?? "an error"}; the log says why`);
    }
  }
  // A sweep of record (triggers.ts) is always untargeted: the whole scope, so what matched nothing is
  // known (a targeted run's report says nothing of the rest).
  const sweep = "report" in outcome && isSweep(labels) ? sweepOf(outcome.report as EnforceReport) : undefined;
  const sweepSignal = sweep && sliceSignal("remembering the rules the run found matching nothing", SWEEP_TIMEOUT_MS, beforeKept);
  if (sweep && sweepSignal) {
    // Not remembered, the watch and the stream go on by the previous full run's (or none): logged as an error.
    await (opts.lastSweep ?? lastSweep).write(sweep, sweepSignal).catch((err: unknown) => logger.error("remembering the rules the run found matching nothing failed", { error: errorText(sweepSignal.reason ?? err) }));
  }
  // Not remembered, the next run counts them again (rememberRefusals logs why).
  if ("report" in outcome && keepsRefusals(labels)) await rememberRefusals(refusals, outcome.report as WorkflowsReport, beforeKept);
  await opts.kept?.();
  if (!opts.notify) return result;
  // A stream run's summary, or a Watch poll's, only if no run of its kind posted the same one lately (told-once.ts).
  const teller = TELLERS[labels.trigger];
  if (teller && shouldNotify(outcome, opts.notify.setting)) {
    const kind = teller === "watch" ? "Watch poll" : "stream run";
    if (!(await firstTelling(outcome, teller, sliceSignal(`asking whether a ${kind} posted this summary already`, TOLD_TIMEOUT_MS, timeLeft)))) {
      logger.info(`run summary not posted: a ${kind} posted the same one in the last 6 hours`);
      return result;
    }
  }
  await notifyRun(outcome, labels, opts.notify, timeLeft);
  return result;
}
