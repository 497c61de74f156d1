/**
 * The removals of enforce in steps (lib/jobs/steps.ts): batches of the plan, each one step. In a
 * durable execution a batch may be cut short twice over, and neither loses a removal from the record:
 *
 * - by its invocation's deadline (steps.deadline): the DELETEs still waiting (a 429 with a long
 *   Retry-After) are dropped, the step returns what it did, with the shares whose DELETE it had sent
 *   without an answer (`sent`), and a further step of the same batch (`remove N part M`) goes on in the
 *   next invocation: a share of `sent` it finds gone was removed by this run ("done"), one still there is
 *   removed again (a DELETE is idempotent). Once the run's time limit has come, that part only reads the
 *   shares of `sent` again: the gone ones are "done", the others "failed" (a slow DELETE is applied all
 *   the same: it may or may not have happened), each with its audit line;
 * - by the invocation dying mid-step (no return): the step is attempted again, and any share of its
 *   batch that attempt finds gone is counted "done", as the lost attempt may have sent its DELETE. A
 *   share removed by someone else in those minutes is counted so too: a batch is at most
 *   steps.perStep shares (fewer where their names take steps.perStepBytes), and the next part re-reads
 *   each subject before removing.
 *
 * Either way every removal made has its audit line (written as its DELETE is answered, shares/remove.ts), and
 * the report, which `warden restore` reads, lists it "done".
 */
import type { GitLabClient } from "../../gitlab/index.ts";
import type { Policy } from "../../policy/index.ts";
import type { AuditSink } from "../report/index.ts";
import { shareKey, type ShareRemoval } from "../shares/plan.ts";
import { partEnds, stepSignal, type Steps } from "../steps.ts";
import { removeShares } from "../shares/remove.ts";
import type { StepStats } from "./summary.ts";

/** What one step of removals did: the batch as it ended. */
interface Removals {
  actions: ShareRemoval[];
  warnings: string[];
  stats: StepStats;
  stopped: boolean;
  spent: boolean;
  /** Cut short by the invocation's deadline: the shares whose DELETE was sent without an answer. */
  sent?: string[];
}

export interface RemovalStepsInput {
  gitlab: GitLabClient;
  policy: Policy;
  now: Date;
  /** The plan's strays, in order: each action with when it was judged. */
  found: readonly { action: ShareRemoval; judgedAt: number }[];
  concurrency: number;
  maxPlanAgeMs: number;
  /** The run's own signal (a plain Lambda's deadline, a person's Ctrl-C): it stops the run. */
  signal?: AbortSignal;
  audit?: AuditSink;
  /** Past this (epoch ms) no batch begins. */
  runEnd: number;
  measured<T extends object>(run: () => Promise<T>): Promise<T & { stats: StepStats }>;
}

/** The plan as the removals left it, their warnings and stats, and whether they stopped before the end. */
export async function removeInSteps(input: RemovalStepsInput, steps: Steps): Promise<{ plan: ShareRemoval[]; warnings: string[]; stats: StepStats[]; stopped: boolean }> {
  const { found, signal } = input;
  const plan = found.map((stray) => stray.action);
  const warnings: string[] = [];
  const stats: StepStats[] = [];
  for (let from = 0, n = 1; from < plan.length; n++) {
    // perStep shares at most, and perStepBytes of them; where the batch ends is read back from what it recorded
    // (below), as one recorded before batches were cut by bytes too holds perStep of them.
    const size = partEnds(plan.slice(from, from + steps.perStep), steps)[0]!;
    const batch = found.slice(from, from + size);
    const judgedAt = new Map(batch.map((stray) => [shareKey(stray.action), stray.judgedAt]));
    let actions = batch.map((stray) => stray.action);
    let sentBefore: readonly string[] = [];
    let done: Removals;
    let confirmOnly = false;
    for (let part = 1; ; part++) {
      const given = actions;
      const earlierSent = sentBefore;
      const confirming = confirmOnly;
      done = await steps.step(part === 1 ? `remove ${n}` : `remove ${n} part ${part}`, (attempt) =>
        input.measured(async () => {
          const removalWarnings: string[] = [];
          // Each attempt starts from what the step was given, not from what an earlier attempt made of it.
          const actions = structuredClone(given);
          const todo = actions.filter((a) => a.status === "planned" && (!confirming || earlierSent.includes(shareKey(a))));
          // An attempt after one that failed or was cut off judges every share again before removing it,
          // and may have sent any of their DELETEs; a later part, those the part before sent.
          const judged = new Map(todo.map((action) => [action, attempt > 1 ? 0 : judgedAt.get(shareKey(action))!]));
          const mayHaveSent = new Set(attempt > 1 ? todo.map(shareKey) : earlierSent);
          const sent = new Set<string>();
          const removal = await removeShares(todo, {
            gitlab: input.gitlab, policy: input.policy, now: input.now, judgedAt: judged, concurrency: input.concurrency, maxPlanAgeMs: input.maxPlanAgeMs,
            signal: stepSignal(steps, signal), deadline: steps.deadline, audit: input.audit, warnings: removalWarnings, mayHaveSent, sent, confirmOnly: confirming,
          });
          if (confirming) return { actions, warnings: removalWarnings, stopped: true, spent: true };
          // Past the run's time limit no further part removes: a DELETE held off longer than an
          // invocation every time (a long Retry-After) would otherwise add parts until the execution's
          // own timeout ended it without a report. One more only reads the shares sent (below).
          if (steps.deadline?.aborted && !signal?.aborted) return { actions, warnings: removalWarnings, stopped: Date.now() >= input.runEnd, spent: true, sent: [...sent] };
          // Past the run's time limit the batches not begun are left: the report must come before the limit does.
          return { actions, warnings: removalWarnings, stopped: removal.stopped || Date.now() >= input.runEnd, spent: Date.now() >= steps.sliceEnd() };
        }),
        { changes: true },
      );
      actions = done.actions;
      warnings.push(...done.warnings);
      stats.push(done.stats);
      if (!done.sent || !actions.some((a) => a.status === "planned")) break;
      if (done.stopped && (confirmOnly || done.sent.length === 0)) break;
      confirmOnly = done.stopped;
      sentBefore = done.sent;
      await steps.pause(`removing ${n}, cut by the deadline after part ${part}`, true);
    }
    plan.splice(from, actions.length, ...actions);
    from += actions.length;
    // Stopped, but for a last part that found every share of the batch removed with none left after it.
    if (done.stopped) return { plan, warnings, stats, stopped: !confirmOnly || plan.some((a) => a.status === "planned") };
    if (from < plan.length) await steps.pause(`removed ${n}`, done.spent);
  }
  return { plan, warnings, stats, stopped: false };
}
