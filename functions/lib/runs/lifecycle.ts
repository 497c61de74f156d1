/**
 * A run from start to end, the one way the scheduled, durable and chat (worker) paths have it: the run,
 * its report logged (`job finished`), then what it owes operations (after-run.ts), whether it finished
 * or threw. Each path's differences are the options: who asked, where a summary goes, what is given
 * back first (the durable lease), where the end runs (the durable "finish" step). A run's error is
 * thrown on once its end is done; a run refused before it started (RunRefused) owes nothing.
 */
import { logReport } from "../lambda/logger.ts";
import type { TimeLeft } from "../lambda/time-left.ts";
import { afterRun } from "./after-run.ts";
import type { NotifyOptions } from "./notify.ts";
import type { AnyReport, RunLabels, RunOutcome } from "./outcome.ts";

/** Thrown by a run that may not start (a chat command the policy refuses): nothing ran, nothing follows. */
export class RunRefused extends Error {
  override name = "RunRefused";
}

/** The stage sst.config.ts deployed this function to. */
export function runStage(): string {
  return process.env["WARDEN_STAGE"] || "unknown";
}

export function runLabels(job: RunLabels["job"], trigger: RunLabels["trigger"], correlationId: string): RunLabels {
  return { job, trigger, stage: runStage(), correlationId };
}

export interface RunLife {
  labels: RunLabels;
  /** The invocation's time left; read only when the run has ended. */
  timeLeft: TimeLeft;
  /** Fields the `job finished` line carries besides the trigger (the chat user and channel). */
  asked?: Record<string, unknown>;
  /** Where the Slack summary goes and when, read at the end; none for a chat run, which answers in its thread. */
  notify?: () => Promise<NotifyOptions | undefined>;
  /** Called first with a run's error (the worker logs it before anything else is said about the run). */
  failed?: (error: unknown) => void;
  /** Given back after the report is logged, before the store and the posts (the durable lease). */
  giveBack?: () => Promise<void>;
  /** Runs the end (default: directly); the durable path runs it in a step, so that replay does not repeat it. */
  endIn?: (end: () => Promise<string | undefined>) => Promise<string | undefined>;
}

/** Runs `run`, then its end: the report and where it was kept for restore, if it was. */
export async function runLifecycle<R extends AnyReport>(run: () => Promise<R>, life: RunLife): Promise<{ report: R; stored: string | undefined }> {
  let report: R;
  try {
    report = await run();
  } catch (error) {
    if (error instanceof RunRefused) throw error;
    life.failed?.(error);
    await endRun({ error }, life);
    throw error;
  }
  return { report, stored: await endRun({ report }, life) };
}

function endRun(outcome: RunOutcome, life: RunLife): Promise<string | undefined> {
  const end = async () => {
    if ("report" in outcome) logReport(outcome.report, { trigger: life.labels.trigger, ...life.asked });
    await life.giveBack?.();
    const { stored } = await afterRun(outcome, life.labels, { notify: await life.notify?.(), timeLeft: life.timeLeft });
    return stored;
  };
  return life.endIn ? life.endIn(end) : end();
}
