/**
 * Enforce's attribution, the step "attribute": who added each stray, only where the run may remove it
 * (after the guard, never for a plan it refused or an applying run's incomplete one), within a budget
 * of requests, reading on from where the examination left the reads (attribution-early.ts).
 *
 * A step records at most steps.perStep removals' authors, as every other step records a bounded part of the
 * plan (a checkpoint holds 256 KB: 29,737 strays' authors took 441 KB compressed). So the step
 * "attribute" reads for the whole plan and records the first part; "attribute 2", "attribute 3"… each
 * record the next part of what it read. A later part whose step finds nothing read in this invocation
 * (the execution resumed between the parts) reads again from where the examination left the reads:
 * more requests, the same authors.
 */
import { applyAttribution, attributeWithin, attributionBudget, type Attributed as Author, type AttributionResult } from "../attribution.ts";
import type { StepStats } from "../summary.ts";
import type { Begun } from "./begin.ts";
import type { Examined } from "./examine.ts";
import type { Guarded } from "./guard.ts";
import type { Run, Said } from "./run.ts";

export type Attributed = Omit<AttributionResult, "attributed"> & Said;

/** Writes the authors found into the plan's actions; undefined when the run attributes nothing. */
export async function attribute(run: Run, begun: Begun, examined: Examined, guarded: Guarded): Promise<Attributed | undefined> {
  const { opts, policy, steps } = run;
  const { plan, tally } = examined;
  // A run stopped by its signal has no time for it.
  if (!(plan.length && !guarded.tripped && (examined.complete || !opts.apply) && !opts.signal?.aborted)) return undefined;
  const budget = attributionBudget({ projects: tally.projects, groups: tally.groups, removals: plan.length });
  let read: Promise<AttributionResult & { stats: StepStats }> | undefined;
  const readAll = () =>
    (read ??= run.measured(() => attributeWithin({ gitlab: opts.gitlab, policy, admin: begun.admin, now: begun.now, actions: plan, concurrency: run.listConcurrency, signal: run.inStep, state: examined.attribution, budget })));
  const part = Math.min(plan.length, steps.perStep);
  const { attributed, stats, ...found } = await steps.step("attribute", async () => {
    const all = await readAll();
    return { ...all, attributed: all.attributed.slice(0, part) };
  });
  const authors: Author[] = [...attributed];
  const allStats = [stats];
  for (let from = part, n = 2; from < plan.length; from += part, n++) {
    const next = await steps.step(`attribute ${n}`, async (): Promise<{ attributed: Author[]; stats?: StepStats }> => {
      // Read in this invocation: its stats are the first part's. Read again here: this step's own.
      const again = !read;
      const all = await readAll();
      return { attributed: all.attributed.slice(from, from + part), ...(again ? { stats: all.stats } : {}) };
    });
    authors.push(...next.attributed);
    if (next.stats) allStats.push(next.stats);
  }
  applyAttribution(plan, authors);
  return { ...found, stats: allStats };
}
