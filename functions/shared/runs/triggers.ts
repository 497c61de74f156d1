/**
 * What differs between the triggers of a run, as data: everything else about a run (its policy, where
 * its summary goes, its report, metrics, run history and summary) is the one lifecycle's (lifecycle.ts).
 * What a trigger does besides is code in its own front end: the watch's lease and cursor age
 * (functions/watch.ts), the durable run's lease and steps (durable/job.ts), a chat command's refusal
 * (functions/worker.ts), an event subject's time to enforcement (events/subject-run.ts).
 */
import type { RunLabels, Trigger } from "./outcome.ts";

export interface TriggerRecord {
  /**
   * The run tells the deployment's Slack channel, as the policy's `notify` asks. A chat command does
   * not: it answers in its own thread (functions/worker.ts).
   */
  notifies: boolean;
  /**
   * An enforce run it starts is a sweep of record: it judges the event-driven paths beside it
   * (event-coverage.ts) and the rules it found matching nothing are remembered for them
   * (state/last-sweep.ts). The Enforce function's runs, over the whole scope; the watch and the stream
   * enforce a few subjects each, and a chat command's run is a person's, not the deployment's sweep.
   */
  recordsSweep: boolean;
}

export const TRIGGER_RECORDS: Readonly<Record<Trigger, TriggerRecord>> = {
  schedule: { notifies: true, recordsSweep: true },
  console: { notifies: true, recordsSweep: true },
  chat: { notifies: false, recordsSweep: false },
  watch: { notifies: true, recordsSweep: false },
  event: { notifies: true, recordsSweep: false },
};

/** The stage sst.config.ts deployed this function to. */
export function runStage(): string {
  return process.env["WARDEN_STAGE"] || "unknown";
}

export function runLabels(job: RunLabels["job"], trigger: RunLabels["trigger"], correlationId: string): RunLabels {
  return { job, trigger, stage: runStage(), correlationId };
}

/** Whether the run so named is a sweep of record (above). */
export function isSweep(labels: Pick<RunLabels, "job" | "trigger">): boolean {
  return labels.job === "enforce" && TRIGGER_RECORDS[labels.trigger].recordsSweep;
}
