/**
 * Enforce's attribution, the step "attribute": who added each stray, only where the run may remove it
 * (after the guard, never for a plan it refused or an applying run's incomplete one), within a budget
 * of requests, reading on from where the examination's idle slots left the reads (attribution-early.ts).
 */
import { applyAttribution, attributeWithin, attributionBudget, type AttributionResult } from "../attribution.ts";
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
  if (!(plan.length && !guarded.tripped && (examined.complete || !opts.apply) && !opts.signal?.aborted)) return undefined;
  const budget = attributionBudget({ projects: tally.projects, groups: tally.groups, removals: plan.length });
  const { attributed, stats, ...found } = await run.steps.step("attribute", () =>
    run.measured(() => attributeWithin({ gitlab: opts.gitlab, policy, admin: begun.admin, now: begun.now, actions: plan, concurrency: run.listConcurrency, signal: run.inStep, state: examined.attribution, budget })),
  );
  applyAttribution(plan, attributed);
  return { ...found, stats: [stats] };
}
