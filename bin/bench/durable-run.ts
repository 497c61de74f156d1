/**
 * Runs the Enforce function (functions/enforce.ts) as Lambda durable executions, through AWS's local
 * durable runner (@aws/durable-execution-sdk-js-testing: the SDK's checkpoints, replays and
 * re-invocations in this process, its checkpoint server on a worker thread), in a process of its own,
 * bundled: one execution per entry of `runs` ("dry,apply,dry"), started with `{}` (a dry run) or
 * `{ "dryRun": false }`, as a console run starts one. The environment is the deployed function's, set
 * by the benchmark (WARDEN_SLICE_SECONDS among it). Time is not skipped: each pause is the SDK's real
 * one-second wait before the next invocation. Between executions it waits `gapMs`, left out of the wall
 * time: the bench has the budgets' windows close, as runs started apart find them. Prints a
 * DurableRunResult. Args: runs gapMs.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { LocalDurableTestRunner } from "@aws/durable-execution-sdk-js-testing";
import { handler } from "../../functions/enforce.ts";
import type { EnforceReport } from "../../lib/jobs/index.ts";
import { invocationTimes } from "./durable-slices.ts";
import { peakRssKB, printResult, type RunResult } from "./run-result.ts";

/** One execution, as Lambda ran it. */
export interface Execution {
  run: "dry" | "apply";
  wallMs: number;
  /** Invocations Lambda made (the runner's count; the report's stats.invocations must agree). */
  invocations: number;
  steps: number;
  /** Between invocations: the one-second durable waits and the runner's start of the next invocation. */
  pausedMs: number;
  longestInvocationMs: number;
  /** The requests the report counts (every one sent, 429s included), and its 429s. */
  requests: number;
  rateLimited: number;
  strays: number;
  /** Projects with a stray share: the most plan-age re-reads the removals need (one per subject). */
  subjects: number;
  removed: number;
  /** The largest result one step checkpointed, its step's name, and all of them together (bytes of their serialized text). */
  largestStepBytes: number;
  largestStep: string;
  stepBytes: number;
}

export interface DurableRunResult extends RunResult {
  executions: Execution[];
}

const [runs, gapMs] = process.argv.slice(2) as [string, string];
await LocalDurableTestRunner.setupTestEnvironment({ skipTime: false });
const executions: Execution[] = [];
const errors: string[] = [];
for (const [i, run] of (runs.split(",") as Execution["run"][]).entries()) {
  if (i > 0) await sleep(Number(gapMs));
  const runner = new LocalDurableTestRunner<EnforceReport>({ handlerFunction: handler as never });
  const began = performance.now();
  const execution = await runner.run({ payload: run === "apply" ? { dryRun: false } : {} });
  const wallMs = performance.now() - began;
  const invocations = execution.getInvocations();
  const { pausedMs, longestMs } = invocationTimes(invocations);
  if (execution.getStatus() !== "SUCCEEDED") {
    errors.push(`${run}: ${execution.getStatus()}: ${execution.getError().errorMessage}`);
    continue;
  }
  const report = execution.getResult()!;
  const stepResults = execution.getOperations().map((op) => ({ name: op.getOperationData()?.Name ?? "?", bytes: Buffer.byteLength(op.getOperationData()?.StepDetails?.Result ?? "") }));
  const largest = stepResults.reduce((a, b) => (b.bytes > a.bytes ? b : a), { name: "", bytes: 0 });
  const { summary, stats } = report;
  if (stats.invocations !== invocations.length) errors.push(`${run}: the report counts ${stats.invocations} invocations, Lambda made ${invocations.length}`);
  if (!summary.complete || summary.failed) errors.push(`${run}: ${summary.complete ? `${summary.failed} removals failed` : "incomplete"}: ${report.warnings.join("; ")}`);
  executions.push({
    run,
    wallMs,
    invocations: invocations.length,
    steps: stats.steps ?? 0,
    pausedMs,
    longestInvocationMs: longestMs,
    requests: stats.requests,
    rateLimited: stats.rateLimited,
    strays: summary.strays,
    subjects: new Set(report.actions.flatMap((a) => (a.kind === "project" ? [a.projectId] : []))).size,
    removed: summary.removed + summary.alreadyGone,
    largestStepBytes: largest.bytes,
    largestStep: largest.name,
    stepBytes: stepResults.reduce((n, r) => n + r.bytes, 0),
  });
}
await LocalDurableTestRunner.teardownTestEnvironment();
const result: DurableRunResult = {
  wallMs: executions.reduce((n, e) => n + e.wallMs, 0),
  maxRssKB: peakRssKB(),
  removed: executions.reduce((n, e) => n + e.removed, 0),
  executions,
  ...(errors.length ? { error: errors.join(" | ") } : {}),
};
printResult(result);
