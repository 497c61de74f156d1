/**
 * lib/jobs' Steps as a durable execution treats them, in-process: every result goes through JSON as
 * a checkpoint does, each step gets a slice of `sliceMs`, and a step named in `crash` is cut off
 * after doing its work — its result lost — and attempted again, as Lambda does with a step whose
 * invocation died. functions/shared/durable/steps.ts is the real thing; test/functions/durable/durable.test.ts runs it.
 */
import { expect } from "vitest";
import type { EnforceReport } from "../../lib/jobs/index.ts";
import type { Steps } from "../../lib/jobs/steps.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import type { TreeShape } from "../../sim/gitlab/generate-tree.ts";

export interface RecordingSteps extends Steps {
  names: string[];
  /** The pauses a job asked for and took (the invocation would have ended there), by name. */
  paused: string[];
  /** Steps attempted again after a crash. */
  crashed: string[];
}

export function recordingSteps(opts: { sliceMs: number; perStep: number; perStepBytes?: number; crash?: readonly string[] }): RecordingSteps {
  let sliceEnd = Infinity;
  const steps: RecordingSteps = {
    names: [],
    paused: [],
    crashed: [],
    perStep: opts.perStep,
    ...(opts.perStepBytes === undefined ? {} : { perStepBytes: opts.perStepBytes }),
    sliceEnd: () => sliceEnd,
    async step(name, run) {
      steps.names.push(name);
      sliceEnd = Date.now() + opts.sliceMs;
      let attempt = 1;
      if (opts.crash?.includes(name)) {
        await run(attempt++);
        steps.crashed.push(name);
        sliceEnd = Date.now() + opts.sliceMs;
      }
      return JSON.parse(JSON.stringify(await run(attempt)));
    },
    async pause(name, due) {
      if (due) steps.paused.push(name);
    },
  };
  return steps;
}

/** What must not depend on how a run was cut: the plan, each outcome, every count (errors' wording aside). */
export function outcome(report: EnforceReport) {
  const { summary, actions, warnings, dryRun } = report;
  return { summary, dryRun, warnings, actions: actions.map(({ error: _error, ...action }) => action) };
}

/**
 * What a run in steps must share with one in one go. Where attribution stopped at its budget, which groups
 * it read depends on the order the examination found their strays (lib/jobs/enforce/attribution-early.ts), so
 * who added each share is left out then; both runs must have stopped there, within it.
 */
export function expectAlike(sliced: EnforceReport, whole: EnforceReport): void {
  const bound = whole.stats.attribution?.stoppedAtBudget === true;
  expect(sliced.stats.attribution?.stoppedAtBudget === true).toBe(bound);
  if (bound) expect(sliced.stats.attribution!.requests).toBeLessThanOrEqual(sliced.stats.attribution!.budget);
  // A group share's removal is confirmed by reading its group again, once a batch (shares/remove.ts): an apply in batches
  // reads a group once more for each further batch its shares fall in.
  expect(sliced.summary.groupReads).toBeGreaterThanOrEqual(whole.summary.groupReads);
  if (whole.dryRun) expect(sliced.summary.groupReads).toBe(whole.summary.groupReads);
  const shared = (report: EnforceReport) => {
    const { warnings, actions, summary: { groupReads: _reads, ...summary }, ...rest } = outcome(report);
    if (!bound) return { warnings, actions, summary, ...rest };
    return { ...rest, summary, warnings: warnings.filter((w) => !w.startsWith("attribution stopped at its budget")), actions: actions.map(({ addedBy: _by, attribution: _why, ...action }) => action) };
  };
  expect(shared(sliced)).toEqual(shared(whole));
}

/** Share removals (of both kinds) the simulator received. */
export function removals(sim: GitLabSim): number {
  return (sim.counters.byRoute["DELETE /projects/:id/share/:group_id"] ?? 0) + (sim.counters.byRoute["DELETE /groups/:id/share/:group_id"] ?? 0);
}

/**
 * Two simulators of one organisation with group shares: one for a run in one go, one for the run in
 * steps. Each is pushed to `started` for the test's clean-up.
 */
export async function twinSims(started: GitLabSim[], opts: { projects: number; seed: number; tree?: TreeShape; latencyMs?: number; now?: Date; shareHistory?: boolean }) {
  const world = () => generateOrganisation({ projects: opts.projects, seed: opts.seed, tree: opts.tree, groupShares: true, now: opts.now, shareHistory: opts.shareHistory });
  const strays = world().intents.filter((i) => i.intent === "stray").length;
  const [whole, stepped] = await Promise.all([startGitLabSim({ dataset: world().dataset, latencyMs: opts.latencyMs }), startGitLabSim({ dataset: world().dataset, latencyMs: opts.latencyMs })]);
  started.push(whole, stepped);
  return { whole, stepped, strays };
}
