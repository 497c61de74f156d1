/**
 * The Enforce function as a Lambda durable execution (sst.config.ts deploys it as an
 * sst.aws.Workflow): the schedule and a person's console run start an execution, which runs the job
 * in checkpointed steps (lib/jobs/enforce/ over steps.ts) across as many invocations as it needs, up
 * to the execution's own time limit. The event is the one a plain invocation takes
 * (runs/scheduled.ts): `{ "source": "schedule" }`, `{}`, `{ "dryRun": false }`, `{ "restore": … }`.
 *
 * One execution runs the job at a time: the first step takes a lease in the claims table, held by the
 * execution's ARN until it finishes (or its time limit passes, should it die); an execution started
 * meanwhile fails at once, naming the holder, and does nothing else. The run's start and end are the
 * one lifecycle's of every trigger (runs/lifecycle.ts), told how this run differs: its policy is read
 * after the lease, and pinned (its identity recorded in the "policy" step, read again at that very
 * version in later invocations); the end runs in the last step, "finish", which logs `job finished`
 * (once per execution, not per invocation), records the metrics, keeps the report and a sweep's record,
 * gives the lease back and posts the Slack summary, each in what is left of that invocation (lambda/time-left.ts).
 * The execution's result is the job's report, its `stats` with the invocations and steps it took.
 */
import type { DurableContext } from "@aws/durable-execution-sdk-js";
import { setTimeout as sleep } from "node:timers/promises";
import middy, { type MiddlewareObj } from "@middy/core";
import { executionModeDurableContext } from "@middy/core/executionModeDurableContext";
import { enforce, errorText } from "../../../lib/jobs/index.ts";
import { PolicyError, type Policy } from "../../../lib/policy/index.ts";
import { loadPolicy, loadPolicyAgain } from "../config/policy.ts";
import { ConfigError } from "../config/settings.ts";
import { judgeSweep } from "../runs/event-coverage.ts";
import { lambdaContextLogged, redacted } from "../lambda/handler.ts";
import { audit, logger } from "../lambda/logger.ts";
import { validateEvent } from "../lambda/validate-event.ts";
import { sliceSignal } from "../lambda/time-left.ts";
import { runLifecycle, type RunLife } from "../runs/lifecycle.ts";
import { runJob, type JobReport } from "../runs/run-job.ts";
import { processRunHistory } from "../runs/run-history.ts";
import { runRequest, scheduledEventSchema, scheduledRun, type ScheduledEvent } from "../runs/scheduled.ts";
import { runLabels } from "../runs/triggers.ts";
import { dynamoClaims, type Claims } from "../state/claims.ts";
import { dynamoLastSweep, lastSweepForSweep } from "../state/last-sweep.ts";
import { rotatingGitlab } from "./rotation.ts";
import { beginInvocation, CHECKPOINT_LIMIT, checkpointBytes, durableSteps } from "./steps.ts";

/** The execution's time limit when WARDEN_EXECUTION_TIMEOUT_SECONDS is not set (sst.config.ts sets it). */
const DEFAULT_EXECUTION_SECONDS = 24 * 3600;
/** Kept at the end of the execution's time for its last invocation: the report, the removals' end. */
const FINISH_MARGIN_MS = 20 * 60_000;
/** The longest giving the lease back may take (one conditional delete, with the client's retries). */
const RELEASE_TIMEOUT_MS = 10_000;
/** Taking the lease likewise: a claim and at most one read of the table. */
const LEASE_TIMEOUT_MS = 10_000;
const lastSweeps = dynamoLastSweep();

export class LeaseError extends Error {
  override name = "LeaseError";
}

/** Tries of a read each later invocation repeats outside its steps (the secret, the policy again), and the wait before the second. */
const READ_AGAIN_TRIES = 3;
const READ_AGAIN_WAIT_MS = 1_000;

/**
 * A read each later invocation repeats, outside its steps: a failure there (Secrets Manager throttled,
 * GitLab restarting, a connection dropped) fails the whole execution after its removals, so one that is
 * not a refusal of the settings themselves is tried again, a second and then two later, before it
 * counts. Never past the invocation's deadline: a read GitLab holds off (a long Retry-After) would
 * otherwise hold the invocation until Lambda ends it, with no line saying why, in every invocation again
 * until the execution's time limit, its lease held all along. Cut there, the run fails with its end.
 */
function readAgainUntil(deadline: AbortSignal) {
  return async <T>(what: string, read: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    for (let tries = 1; ; tries++) {
      try {
        return await read(deadline);
      } catch (err) {
        if (tries >= READ_AGAIN_TRIES || deadline.aborted || err instanceof ConfigError || err instanceof PolicyError) throw err;
        logger.warn(`reading ${what} again failed; trying again`, { tries, error: errorText(err) });
        await sleep(READ_AGAIN_WAIT_MS * tries, undefined, { signal: deadline }).catch(() => {
          throw err;
        });
      }
    }
  };
}

/** Whether a Lambda event is a durable execution's invocation rather than a plain one. */
export function isDurableInvocation(event: unknown): boolean {
  return typeof event === "object" && event !== null && "DurableExecutionArn" in event && "CheckpointToken" in event;
}

export interface DurableJobOptions {
  claims?: Claims;
  env?: NodeJS.ProcessEnv;
}

/** Log lines carry the execution's ARN as correlation id: the same in every invocation of the execution. */
const executionCorrelated: MiddlewareObj<unknown, JobReport, Error, DurableContext> = {
  before: ({ context }) => logger.setCorrelationId(context.executionContext.durableExecutionArn),
};

/**
 * Built with middy's durable execution mode, like the other Lambdas: the same logging, and the event
 * checked by the same middleware, in every invocation. No early timeout (middy's default is 5 ms): a
 * durable invocation cut off by Lambda is invoked again and replays, where middy's timeout response
 * would fail the whole execution.
 */
export function durableJob(job: "enforce", opts: DurableJobOptions = {}) {
  const deps = { claims: opts.claims ?? dynamoClaims(), env: opts.env ?? process.env };
  return middy<unknown, JobReport, Error, DurableContext>({ executionMode: executionModeDurableContext, timeoutEarlyInMillis: 0 })
    .use(lambdaContextLogged)
    .use(executionCorrelated)
    .use(validateEvent(scheduledEventSchema(job)))
    // The result (or the error) is kept in the execution's history, for whoever may read it: it passes lib/redact as the log lines do.
    .handler((event, ctx) => redacted(execution(job, event as ScheduledEvent, ctx, deps)));
}

/** One invocation of the execution: the recorded steps replayed, then on from the first one not recorded. */
async function execution(job: "enforce", event: ScheduledEvent, ctx: DurableContext, { claims, env }: Required<DurableJobOptions>): Promise<JobReport> {
  const invocation = beginInvocation(ctx, env);
  const arn = ctx.executionContext.durableExecutionArn;
  const run = scheduledRun(job, event);
  const executionMs = executionSeconds(env) * 1000;
  const gitlabClients = rotatingGitlab();
  const steps = durableSteps(ctx, invocation, gitlabClients.renewed);
  const leaseKey = `lease:${job}`;
  // Time is read inside the finish step only, as replay requires.
  const timeLeft = () => ctx.lambdaContext.getRemainingTimeInMillis();
  let runEndAt: number | undefined;
  const readAgain = readAgainUntil(invocation.deadline);
  const life: RunLife = {
    labels: runLabels(run.job, run.trigger, arn),
    timeLeft,
    signal: invocation.deadline,
    readSetting: readAgain,
    // An applying run failed in a later invocation's start cannot tell, before its replay, whether an earlier one removed shares: it may have, unless another held the lease.
    mayHaveChanged: (error) => run.job === "enforce" && run.apply && !(error instanceof LeaseError),
    async readPolicy() {
      // The run's first step, within its lifecycle: a claims table that fails (gone, refused, throttled) fails the
      // run as any failure does (its `job failed` line and RunFailed metric), and one that never answers is given
      // up on within the invocation, not waited on until Lambda ends it.
      const lease = await steps.step("lease", async () => {
        const signal = sliceSignal("taking the lease", LEASE_TIMEOUT_MS, timeLeft) ?? invocation.deadline;
        if (await claims.claim(leaseKey, Math.floor((Date.now() + executionMs) / 1000), arn, signal)) return { holder: arn, until: null, startedAt: Date.now() };
        const held = await claims.holder(leaseKey, signal);
        return { holder: held?.holder ?? "another execution", until: held ? new Date(held.expiresAt * 1000).toISOString() : null };
      });
      // Another's lease ends the run before it starts; giving it back leaves it alone (the delete is conditional on its holder).
      if (lease.holder !== arn) throw new LeaseError(`${lease.holder} is running ${job}${lease.until ? ` (its lease lasts until ${lease.until} at most)` : ""}: this execution did nothing`);
      // Recorded with the lease (absent in an execution recorded before it was kept): the run's time limit, counted
      // from the execution's start as Lambda counts its timeout, for the steps' retries and the work alike.
      if ("startedAt" in lease && lease.startedAt !== undefined) steps.limitRetries((runEndAt = lease.startedAt + runLimit(executionMs)));
      // The policy's identity is recorded once; later invocations judge by that very policy, not a newer one.
      let read: Policy | undefined;
      const begunWith = await steps.step("policy", async () => ({ source: (read = await loadPolicy(invocation.deadline)).source }));
      return read ?? (await readAgain("the policy", (signal) => loadPolicyAgain(begunWith.source, signal)));
    },
    // Given back once the report is stored and rules:last-sweep written (a restore latest or a sweep that takes
    // the lease next finds this run's), before the posts, which could otherwise take the time it needs. One not
    // given back expires with the execution's time limit: no reason to attempt this step again, which would
    // repeat the metrics and the Slack summary.
    async giveBack() {
      const signal = sliceSignal("giving the lease back", RELEASE_TIMEOUT_MS, timeLeft);
      if (!signal) return;
      await claims
        .release(leaseKey, arn, signal)
        .catch((err: unknown) => logger.error("giving the lease back failed; it expires with the execution's time limit", { error: errorText(signal.reason ?? err) }));
    },
    // Begun before it runs (changes: an invocation cut off in it counts as an attempt), so that an attempt again knows.
    endIn: async (end) => (await steps.step("finish", async (attempt) => ({ stored: (await end(attempt > 1)) ?? null }), { changes: true })).stored ?? undefined,
  };
  const { report, stored } = await runLifecycle(life, async ({ policy }) => {
    let report: JobReport;
    if (run.job === "restore") {
      // "latest" is looked up once, in a step of its own: an attempt again (a whole invocation later) restores
      // the run the first chose, not whichever run is latest by then (a watch batch, a chat sweep).
      const stored = event.restore && "stored" in event.restore ? event.restore.stored : undefined;
      const located = stored === undefined ? undefined : await steps.step("restore source", () => processRunHistory.locate(stored, "enforce"));
      // A restore re-creates one run's removals: small enough for one step, within the invocation's deadline (a
      // POST GitLab holds off must not outlast it: Lambda would end the invocation mid-step, with no report). One
      // cut off there is attempted again in the next invocation, which reads each share again before any POST.
      report = await steps.step(
        "restore",
        async (attempt) => {
          const restored = await runJob(await runRequest(job, event, run.apply, located), invocation.deadline, policy);
          if (invocation.deadline.aborted && "complete" in restored.summary && !restored.summary.complete) throw new Error(`the restore was cut off: ${restored.warnings.at(-1) ?? "incomplete"}`);
          // An attempt's POSTs are not recorded: what an earlier one created, this one finds present.
          if (attempt > 1 && run.apply) restored.warnings.push(`this restore was attempted ${attempt} times, the earlier cut off by the invocation's deadline: a share reported already present may be one an earlier attempt re-created (its restore-share audit line says so)`);
          // Recorded whole, the report of a restore of some 7,000 removals or more is past what a checkpoint holds.
          return fitted(restored, null, { limit: CHECKPOINT_LIMIT * 0.9, size: checkpointBytes, why: "a durable step records at most 256 KB" });
        },
        { changes: run.apply },
      );
    } else {
      // What the last full run left (state/last-sweep.ts): the removals GitLab refused it, which this run's guard
      // does not count (lib/jobs/enforce/rules.ts). Unread, every removal is counted: the guard's safe side.
      const last = await steps.step("last sweep", async () => ({ sweep: (await lastSweepForSweep(lastSweeps, timeLeft)) ?? null }));
      // Settings, not state: read in every invocation and never recorded (the token must not enter the history).
      const gitlab = await readAgain("the jobs' secret", () => gitlabClients.client());
      // A sweep judges the event-driven paths beside it (runs/event-coverage.ts), in a step of its own.
      report = await judgeSweep(await enforce({ gitlab, policy, apply: run.apply, audit, runLimitMs: runLimit(executionMs), ...(runEndAt !== undefined && { runEndAt }), ...(last.sweep && { lastSweep: last.sweep }) }, steps), steps);
    }
    report.stats = { ...report.stats, ...steps.counts() };
    return report;
  });
  return fitted(report, stored ?? null);
}

export interface Fit {
  /** The most bytes the report may take, as `size` counts them. */
  limit: number;
  size: (report: JobReport) => number;
  /** What holds it to the limit, for the warning. */
  why: string;
}

export const EXECUTION_RESULT: Fit = { limit: 5 * 1024 * 1024, size: (report) => Buffer.byteLength(JSON.stringify(report)), why: "Lambda returns at most 6 MB of an execution's result" };

/**
 * The report as the execution's result (or as a step records it: `fit`): whole when it fits, else with
 * as many actions as fit and a warning saying where the rest are (the audit lines, and the stored report
 * of a run that changed something), rather than an execution that fails at its very end. The execution's
 * result: Lambda returns at most 6 MB of it; 5 MB leaves room for its envelope.
 */
export function fitted(report: JobReport, stored: string | null, fit: Fit = EXECUTION_RESULT): JobReport {
  const size = fit.size(report);
  if (size <= fit.limit) return report;
  const kept = Math.floor(report.actions.length * (fit.limit / size) * 0.9);
  const where = stored
    ? `the whole report is kept at ${stored}`
    : report.dryRun
      ? `a dry run's whole plan is in no result: \`warden ${report.job} --json\` prints it`
      : "each change made has its audit line in the log";
  const warning = `this result holds ${kept} of the report's ${report.actions.length} actions (${fit.why}): ${where}`;
  return { ...report, actions: report.actions.slice(0, kept), warnings: [...report.warnings, warning] } as JobReport;
}

function executionSeconds(env: NodeJS.ProcessEnv): number {
  const set = env["WARDEN_EXECUTION_TIMEOUT_SECONDS"];
  if (set === undefined || set === "") return DEFAULT_EXECUTION_SECONDS;
  const seconds = Number(set);
  if (!Number.isInteger(seconds) || seconds <= 0) throw new ConfigError(`WARDEN_EXECUTION_TIMEOUT_SECONDS must be a positive whole number of seconds, not "${set}"`);
  return seconds;
}

/** How long the job may run: its execution's limit, less time to finish (half of a short limit). */
function runLimit(executionMs: number): number {
  return executionMs > 2 * FINISH_MARGIN_MS ? executionMs - FINISH_MARGIN_MS : executionMs / 2;
}
