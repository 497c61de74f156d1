/**
 * A run from start to end, the one way every Lambda trigger has it (the schedule and the console,
 * plain or durable; a chat command; the watch; GitLab's events):
 *
 * 1. the start, written here once: the policy (read as the trigger says: the durable run pins it in a
 *    step), then, for a trigger that notifies (triggers.ts), where the summary goes, by one rule: read
 *    with the policy, before the run, from the caches the run reads too. So the end, which has only the
 *    time the invocation has left, reads nothing; a run failed by a refused token, which drops the
 *    cached secret, is not the reason for another read; and a durable run never records the secret
 *    (it is read outside its steps, in each invocation). A run that fails before these are read (its
 *    policy unreadable, the durable lease held by another execution) has no summary setting, so posts
 *    no summary: its failure is in the log and its metrics, which the alarms watch;
 * 2. the run, given that policy;
 * 3. the end, whether it finished or threw: its report logged (`job finished`) or its error (`job
 *    failed`) and its metrics emitted (both log lines, before any wait), then what it owes operations
 *    (after-run.ts: run history, the sweep's record, then the durable lease given back, then the summary).
 *
 * A run failed by a refused credential (a 401) drops the cached secret first, whatever its trigger. A
 * run's error is thrown on once its end is done. A run refused before it started (RunRefused), or
 * one that found nothing to do (idle), owes nothing. A run that fails in its start (the secret, the
 * policy) has its end run directly, never through `endIn`: a durable invocation that replays has not
 * reached the end of its recorded steps then, and a step there would not be the one recorded (the
 * execution failed as non-deterministic, with no `job failed` line and its lease kept).
 */
import { errorText } from "../../../lib/jobs/report/index.ts";
import { slackNotifyLevel, type Policy } from "../../../lib/policy/index.ts";
import { isRefusedCredential } from "../config/clients.ts";
import { loadPolicy } from "../config/policy.ts";
import { secrets } from "../config/secrets.ts";
import { logger, logReport } from "../lambda/logger.ts";
import type { TimeLeft } from "../lambda/time-left.ts";
import { afterRun } from "./after-run.ts";
import { recordRun } from "./metrics.ts";
import type { NotifyOptions } from "./notify.ts";
import type { AnyReport, RunLabels, RunOutcome } from "./outcome.ts";
import { TRIGGER_RECORDS } from "./triggers.ts";

/** Thrown by a run that may not start (a chat command the policy refuses): nothing ran, nothing follows. */
export class RunRefused extends Error {
  override name = "RunRefused";
}

/** What a run that found nothing to do gives back (a watch poll with no new event): nothing ran, nothing is owed. */
export interface Idle<Q> {
  idle: Q;
}

export const idle = <Q>(value: Q): Idle<Q> => ({ idle: value });

/** What the run is given: the start the lifecycle read for it. */
export interface RunStart {
  policy: Policy;
}

export interface RunLife {
  /** The run's name; its trigger's record (triggers.ts) says what else differs. */
  labels: RunLabels;
  /** The invocation's time left; read only when the run has ended. */
  timeLeft: TimeLeft;
  /** The invocation's deadline: it cuts the policy's read (a GitLab holding it off), which fails the run with time left for its end. */
  signal: AbortSignal;
  /** Fields the `job finished` and `job failed` lines carry besides the trigger (the chat command and user; the event's subject). */
  asked?: Record<string, unknown>;
  /**
   * How this run reads a setting outside any step (default: once); a durable run's later invocations read
   * the secret again after its removals, and try again a read that fails (durable/job.ts readAgain).
   */
  readSetting?: <T>(what: string, read: () => Promise<T>) => Promise<T>;
  /** Whether the run, failed by `error`, may have changed something first (a durable enforce run's earlier invocations): its end then says no report was stored. */
  mayHaveChanged?: (error: unknown) => boolean;
  /** How this run reads its policy (default: loadPolicy); the durable run checks its lease first, then pins the policy in a step. */
  readPolicy?: () => Promise<Policy>;
  /** Given back once the report is stored and the sweep's record written, before the posts (the durable lease; after-run.ts's `kept`). */
  giveBack?: () => Promise<void>;
  /**
   * Runs the end (default: directly); the durable path runs it in a step, so that replay does not repeat it,
   * telling it `again` on an attempt after one cut off: the metrics that one emitted before its first wait
   * are not counted twice, nor the Slack summary it may have posted posted twice (its stored report is
   * written again under the same key).
   */
  endIn?: (end: (again?: boolean) => Promise<string | undefined>) => Promise<string | undefined>;
}

/** A run that ran: its report, and where it was kept for restore, if it was. */
export interface Ran<R> {
  report: R;
  stored: string | undefined;
}

export async function runLifecycle<R extends AnyReport, Q = never>(
  life: RunLife,
  run: (start: RunStart) => Promise<R | Idle<Q>>,
): Promise<Ran<R> | ([Q] extends [never] ? never : Idle<Q>)> {
  let notify: NotifyOptions | undefined;
  let result: R | Idle<Q>;
  let started = false;
  try {
    // The jobs' secrets are read first, and so registered with lib/redact: a policy's error quotes what it
    // finds wrong, and a credential pasted into the policy must be masked there too (not every one has
    // a shape lib/redact knows). Every run reads it anyway; it is kept for the container.
    await (life.readSetting ?? once)("the jobs' secret", () => secrets.get());
    const policy = await (life.readPolicy ?? (() => loadPolicy(life.signal)))();
    if (TRIGGER_RECORDS[life.labels.trigger].notifies) notify = await summaryTo(policy);
    started = true;
    result = await run({ policy });
  } catch (error) {
    if (error instanceof RunRefused) throw error;
    // A refused credential is not kept for the rest of the cache's time, whichever trigger met it: the
    // next run in this container reads the secret anew (run-job.ts and durable/rotation.ts also try a
    // new one at once; the watch's next poll, a minute on, is its retry).
    if (isRefusedCredential(error)) secrets.invalidate();
    await endRun({ error }, started ? life : { ...life, endIn: undefined }, notify);
    throw error;
  }
  if ("idle" in result) return result as never;
  return { report: result, stored: await endRun({ report: result }, life, notify) };
}

/** A setting read as most runs read it: once (a failure is the run's, and the next run reads it again). */
const once = <T>(_what: string, read: () => Promise<T>): Promise<T> => read();

/** Where the run's Slack summary goes, and when: the secret's webhook, the policy's `notify` setting. */
async function summaryTo(policy: Policy): Promise<NotifyOptions> {
  return { webhookUrl: (await secrets.get()).slackWebhookUrl, setting: slackNotifyLevel(policy) };
}

function endRun(outcome: RunOutcome, life: RunLife, notify: NotifyOptions | undefined): Promise<string | undefined> {
  const end = async (again = false) => {
    const fields = { trigger: life.labels.trigger, ...life.asked };
    if ("report" in outcome) logReport(outcome.report, fields);
    // The cause too, for the log alone: an error said in the Slack summary may leave out what only operations may read (S3's refusal names the account and the role).
    else logger.error("job failed", { job: life.labels.job, ...fields, error: errorText(outcome.error), ...(outcome.error instanceof Error && outcome.error.cause !== undefined && { cause: errorText(outcome.error.cause) }) });
    // Before any wait: an attempt cut off (at a wait) has emitted them, and an attempt again must not count the run twice.
    if (!again) emitMetrics(outcome, life.labels);
    if (again) logger.warn(`the run's end is attempted again after one cut off, which emitted its metrics${notify ? " and may have posted its Slack summary" : ""}: not again`);
    const mayHaveChanged = "error" in outcome && life.mayHaveChanged?.(outcome.error) === true;
    const { stored } = await afterRun(outcome, life.labels, { ...(notify && !again ? { notify } : {}), timeLeft: life.timeLeft, mayHaveChanged, ...(life.giveBack && { kept: life.giveBack }) });
    return stored;
  };
  return life.endIn ? life.endIn(end) : end();
}

/** The run's EMF record; one that cannot be written is logged, and changes nothing of the run. */
function emitMetrics(outcome: RunOutcome, labels: RunLabels): void {
  try {
    recordRun(outcome, labels);
  } catch (err) {
    logger.error("emitting the run's metrics failed", { error: errorText(err) });
  }
}
