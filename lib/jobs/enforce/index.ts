/**
 * The enforce job: examine what is in scope — the projects with their shares, the groups with the
 * shares they make — judge each share with the pure policy, plan the removal of every stray one, and
 * (only when asked, and only if the one guard over both kinds holds) remove them. Memory grows with the
 * strays found, not with the projects or groups examined.
 */
import { direct, type Steps } from "../steps.ts";
import { attribute } from "./phases/attribute.ts";
import { begin } from "./phases/begin.ts";
import { examine } from "./phases/examine.ts";
import { guard } from "./phases/guard.ts";
import { notices } from "./phases/notices.ts";
import { remove } from "./phases/remove.ts";
import { runOf } from "./phases/run.ts";
import { summarise } from "./phases/summarise.ts";
import type { EnforceOptions, EnforceReport } from "./summary.ts";

/**
 * The job as its phases (phases/), each over its own steps (lib/jobs/steps.ts), in the order they
 * run; each hands the next only what it returns, and nothing is kept between steps but what they
 * return, so a durable execution resumes it. Run directly it is one slice and one batch.
 */
export async function enforce(opts: EnforceOptions, steps: Steps = direct): Promise<EnforceReport> {
  // The options checked before any request: a bad combination is refused here.
  const run = runOf(opts, steps);
  // "begin": the token check and the scope, ending on the examination's first frontier.
  const begun = await begin(run);
  // From the step's result, so a durable execution's replay tells it as the first invocation did.
  opts.onTokenChecked?.({ admin: begun.admin });
  // "examine N": slices of the listing, each ending on where it stands and the strays found; the plan.
  const examined = await examine(run, begun);
  // "notices": strays the policy does not remove at once are sorted by their notices (reads only).
  const sorted = await notices(run, begun, examined);
  // "rules", "literal rules": the guard, judged on the whole plan.
  const guarded = await guard(run, begun, examined);
  // "attribute": who added each stray, only where the run may remove it.
  const attributed = await attribute(run, begun, examined, guarded);
  // The removal batches and "write notices", in an applying run the guard let through.
  const removed = await remove(run, begun, examined, guarded, sorted);
  // "ended", and the report.
  return summarise(run, { begun, examined, sorted, guarded, attributed, removed });
}

// Enforce's face for the other jobs, beside the run itself: the review attributes as enforce does, the watch reads enforce's scope.
export { attributeRemovals, attributionBudget } from "./attribution.ts";
export { ScopeError, scopeRoots } from "./examine/scope.ts";
