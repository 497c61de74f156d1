/**
 * What a finished run amounts to, for the metrics, the Slack summary and the run history alike: the
 * job's report, or the error that stopped it before there was one. Read once here, so a run that the
 * metrics count as failed is the run the channel is told failed.
 */
import { errorText, exitCode, FAILED_STATUSES, type JobName, type Report } from "../../../lib/jobs/report/index.ts";
import type { Trigger } from "../../../lib/jobs/index.ts";

export type AnyReport = Report<{ status: string }, object>;

/** Who started a run (lib/jobs/restore/run-history.ts: a stored run's key names it): the schedule, a person in the console, a chat command or GitLab's events (both through the worker), or the Watch function. */
export type { Trigger };

export type RunOutcome = { report: AnyReport } | { error: unknown };

/** The run's name, in every summary and history record. */
export interface RunLabels {
  job: JobName;
  trigger: Trigger;
  /** The SST stage (WARDEN_STAGE). */
  stage: string;
  /** The Lambda request id its log lines carry. */
  correlationId: string;
}

export interface RunVerdict {
  /** The run threw, failed an action, or left work undone (exit code 1). */
  failed: boolean;
  guardTripped: boolean;
  /** The listing stopped early: the run judged part of what it should have. */
  incomplete: boolean;
  /** Actions that failed, or whose outcome is unknown, or that the service refused. */
  actionsFailed: number;
  /** Actions applied (a share removed, a workflow switched, a pipeline started). */
  changed: number;
  /** A dry run found work to do (exit code 2). */
  foundWork: boolean;
  /** The error text of a run that threw. */
  error?: string;
}

const CHANGED = new Set(["done", "created", "noticed"]);

export function verdict(outcome: RunOutcome): RunVerdict {
  if (!("report" in outcome)) {
    return { failed: true, guardTripped: false, incomplete: false, actionsFailed: 0, changed: 0, foundWork: false, error: errorText(outcome.error) };
  }
  const { report } = outcome;
  const code = exitCode(report);
  const summary = report.summary as { guard?: string; complete?: boolean };
  return {
    failed: code === 1,
    guardTripped: summary.guard === "tripped",
    incomplete: summary.complete === false,
    actionsFailed: report.actions.filter((a) => FAILED_STATUSES.has(a.status)).length,
    changed: report.dryRun ? 0 : report.actions.filter((a) => CHANGED.has(a.status)).length,
    foundWork: code === 2,
  };
}

/** What an operator must look at: a failure, work left undone, or a tripped guard. */
export function isProblem(v: RunVerdict): boolean {
  return v.failed || v.guardTripped || v.incomplete || v.actionsFailed > 0;
}
