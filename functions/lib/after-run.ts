/**
 * Everything a finished run owes operations, in one call for the handlers: its metrics (EMF), its
 * report kept for restore when it changed something, and (for scheduled and console runs) a Slack summary. None
 * of it may change the run's outcome: each part that fails is logged, and the rest still happens.
 */
import { errorText } from "../../lib/jobs/report.ts";
import { logger } from "./logger.ts";
import { recordRun } from "./metrics.ts";
import { notifyRun, type NotifyOptions } from "./notify.ts";
import { processRunHistory, type RunHistory } from "./run-history.ts";
import { verdict, type RunLabels, type RunOutcome } from "./run-outcome.ts";

/** The stage sst.config.ts deployed this function to. */
export function runStage(): string {
  return process.env["WARDEN_STAGE"] || "unknown";
}

export interface AfterRunOptions {
  /** Where to post a summary, and when; left out for chat runs (they answer in their thread), or when the settings could not be read. */
  notify?: NotifyOptions;
  history?: RunHistory;
}

export async function afterRun(outcome: RunOutcome, labels: RunLabels, opts: AfterRunOptions = {}): Promise<{ stored?: string }> {
  const result: { stored?: string } = {};
  try {
    recordRun(outcome, labels);
  } catch (err) {
    logger.error("emitting the run's metrics failed", { error: errorText(err) });
  }
  // Kept for restore: a run that changed nothing has nothing to undo, and would only hide the last
  // run that did from "latest".
  if ("report" in outcome && verdict(outcome).changed > 0) {
    try {
      const stored = await (opts.history ?? processRunHistory).store(outcome.report, labels);
      if (stored) {
        result.stored = stored;
        logger.info("run report stored for restore", { location: stored });
      }
    } catch (err) {
      // The audit lines in the log still hold every removal: restore reads those too.
      logger.error("storing the run's report for restore failed; its audit lines are in the log", { error: errorText(err) });
    }
  }
  if (opts.notify) await notifyRun(outcome, labels, opts.notify);
  return result;
}
