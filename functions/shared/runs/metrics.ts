/**
 * One CloudWatch EMF record per run (Powertools Metrics, written to stdout, which Lambda ships to
 * CloudWatch Logs, where the metrics are extracted: no API call, nothing to fail the run). Every
 * metric is published twice: per job (what the alarms watch, whoever started the run) and per job
 * and trigger (the heartbeat watches scheduled runs alone). The stage is a dimension too, so two
 * stages in one account keep apart.
 */
import { Metrics, MetricUnit } from "@aws-lambda-powertools/metrics";
import type { EnforceReport, EnforceSummary } from "../../../lib/jobs/index.ts";
import type { JobName } from "../../../lib/jobs/report/index.ts";
import type { WorkflowsSummary } from "../../../lib/jobs/workflows/index.ts";
import { METRIC, METRICS_NAMESPACE, METRICS_SERVICE } from "./metric-names.ts";
import { verdict, type RunLabels, type RunOutcome } from "./outcome.ts";

type MetricName = (typeof METRIC)[keyof typeof METRIC];
type Unit = (typeof MetricUnit)[keyof typeof MetricUnit];

type SummaryMetric = { name: MetricName } & ({ job: "enforce"; field: keyof EnforceSummary } | { job: "workflows"; field: keyof WorkflowsSummary });

/** Counts only one job's summary has, read from it by field. */
const SUMMARY_METRICS: SummaryMetric[] = [
  { name: METRIC.straysFound, job: "enforce", field: "strays" },
  { name: METRIC.sharesRemoved, job: "enforce", field: "removed" },
  { name: METRIC.removalsFailed, job: "enforce", field: "failed" },
  { name: METRIC.workflowsChanged, job: "workflows", field: "applied" },
];

/** Emits the run's metrics as one EMF line; `labels` name it (job, trigger, stage). */
export function recordRun(outcome: RunOutcome, labels: Pick<RunLabels, "job" | "trigger" | "stage">): void {
  publish(values(outcome, labels.job), labels);
}

/**
 * A run that changed something whose report could not be stored for restore: `restore latest` would take
 * the run before it. Its own record, after the run's (emitted before the store, so that an attempt again
 * does not count the run twice), for its alarm.
 */
export function recordNotStored(labels: Pick<RunLabels, "job" | "trigger" | "stage">): void {
  publish([[METRIC.reportNotStored, 1]], labels);
}

function publish(values: [MetricName, number, Unit?][], labels: Pick<RunLabels, "job" | "trigger" | "stage">): void {
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE, defaultDimensions: { stage: labels.stage, job: labels.job } });
  // Two dimension sets: the defaults alone (service, stage, job), and with the trigger.
  metrics.addDimensions({});
  metrics.addDimensions({ trigger: labels.trigger });
  for (const [name, value, unit] of values) metrics.addMetric(name, unit ?? MetricUnit.Count, value);
  metrics.publishStoredMetrics();
}

function values(outcome: RunOutcome, job: JobName): [MetricName, number, Unit?][] {
  const v = verdict(outcome);
  const common: [MetricName, number][] = [
    [METRIC.runSucceeded, v.failed || v.guardTripped ? 0 : 1],
    [METRIC.runFailed, v.failed ? 1 : 0],
  ];
  // A run that threw has no report: what it found, changed or sent is unknown, so it is not counted as zero.
  if (!("report" in outcome)) return common;
  const { summary, stats } = outcome.report;
  const counts = SUMMARY_METRICS.filter((m) => m.job === job).map((m): [MetricName, number] => [m.name, Number((summary as Record<string, unknown>)[m.field] ?? 0)]);
  return [
    ...common,
    [METRIC.guardTripped, v.guardTripped ? 1 : 0],
    [METRIC.runIncomplete, v.incomplete ? 1 : 0],
    [METRIC.actionsFailed, v.actionsFailed],
    ...counts,
    [METRIC.requests, stats.requests],
    [METRIC.retries, stats.retries],
    [METRIC.rateLimited, stats.rateLimited],
    [METRIC.duration, stats.durationMs, MetricUnit.Milliseconds],
    ...coverage(outcome.report),
  ];
}

/** A sweep's judgement of the event-driven paths, when it made one (functions/shared/runs/event-coverage.ts). */
function coverage(report: object): [MetricName, number][] {
  const { missedByEvents, eventDelivery } = report as Partial<EnforceReport>;
  return [...(missedByEvents ? [[METRIC.missedByEvents, missedByEvents.count] as [MetricName, number]] : []), ...(eventDelivery ? [[METRIC.eventsSilent, eventDelivery.silent ? 1 : 0] as [MetricName, number]] : [])];
}

/** How far behind the watch's cursor is after a poll (lib/jobs/watch): a backlog that does not drain, or a watch that no longer polls, is alarmed on. */
export function recordCursorAge(seconds: number, labels: Pick<RunLabels, "job" | "trigger" | "stage">): void {
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE, defaultDimensions: { stage: labels.stage, job: labels.job, trigger: labels.trigger } });
  metrics.addMetric(METRIC.watchCursorAge, MetricUnit.Seconds, seconds);
  metrics.publishStoredMetrics();
}

/** Time to enforcement: seconds from audit events to the removals they led to (the Watch function, lib/jobs/watch; the stream, functions/shared/events/latency.ts). */
export function recordSecondsToRemoval(seconds: readonly number[], labels: Pick<RunLabels, "job" | "trigger" | "stage">): void {
  if (seconds.length === 0) return;
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE, defaultDimensions: { stage: labels.stage, job: labels.job, trigger: labels.trigger } });
  for (const value of seconds) metrics.addMetric(METRIC.secondsToRemoval, MetricUnit.Seconds, value);
  metrics.publishStoredMetrics();
}
