/**
 * Enforce's attribution, the step "attribute": who added each stray, only where the run may remove it
 * (after the guard, never for a plan it refused or an applying run's incomplete one), within a budget
 * of requests, reading on from where the examination left the reads (attribution-early.ts). The
 * authors are recorded 1,000 removals a step in a durable execution (stepInParts): "attribute",
 * "attribute 2", …
 */
import { applyAttribution, attributeWithin, attributionBudget, type Attributed as Author, type AttributionResult } from "../attribution.ts";
import { stepInParts } from "../../steps.ts";
import { count } from "../../view.ts";
import { auditRequests } from "../attribution-reads.ts";
import type { StepStats } from "../summary.ts";
import type { Begun } from "./begin.ts";
import type { Examined } from "./examine.ts";
import type { Guarded } from "./guard.ts";
import type { Run, Said } from "./run.ts";

export type Attributed = Omit<AttributionResult, "attributed"> & Said;

/** Writes the authors found into the plan's actions; undefined when the run attributes nothing. */
export async function attribute(run: Run, begun: Begun, examined: Examined, guarded: Guarded): Promise<Attributed | undefined> {
  const { opts, policy } = run;
  const { plan, tally } = examined;
  // A run stopped by its signal has no time for it.
  if (!(plan.length && !guarded.tripped && (!examined.stopped || !opts.apply) && !opts.signal?.aborted)) return undefined;
  const budget = attributionBudget({ projects: tally.projects, groups: tally.groups, removals: plan.length });
  const read = (attempt: number) =>
    run.measured(async () => {
      const before = auditRequests(opts.gitlab) - examined.attribution.requests;
      try {
        return await attributeWithin({ gitlab: opts.gitlab, policy, admin: begun.admin, now: begun.now, actions: plan, concurrency: run.listConcurrency, signal: run.inStep, state: examined.attribution, budget });
      } catch (err) {
        // Cut by the invocation's deadline again, after a whole invocation of its own (durable): each attempt reads
        // again from the same recorded state, so none would finish, and the execution would fail after its 10 with
        // nothing removed, every run. Attribution is never a reason for the run to fail (attributeWithin).
        if (attempt < 2 || opts.signal?.aborted || !run.steps.deadline?.aborted) throw err;
        const warning = `attribution cut short by the invocation's deadline in ${attempt} attempts (GitLab's audit events answered too slowly to be read within one): ${count(plan.length, "removal")} show no author; the run went on`;
        return { attributed: plan.map(() => ({ addedBy: null, attribution: "not visible" as const })), warnings: [warning], auditRequests: auditRequests(opts.gitlab) - before, budget, stoppedAtBudget: false };
      }
    });
  const { result, entries, again } = await stepInParts<AttributionResult & { stats: StepStats }, Author>(run.steps, "attribute", read, {
    of: (r) => r.attributed,
    with: (r, attributed) => ({ ...r, attributed }),
  });
  applyAttribution(plan, entries);
  const { attributed: _first, stats, ...found } = result;
  return { ...found, stats: [stats, ...again.map((r) => r.stats)] };
}
