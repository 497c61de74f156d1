/**
 * Enforce's notices phase (lib/jobs/notices/): strays the policy does not remove at once (onStray
 * notify, report) are sorted by their notices before the guard, which then counts only what is
 * removed now; an applying run writes the notices after its removals (remove.ts).
 */
import type { ShareRemoval } from "../../shares/plan.ts";
import { sortStrays, type NoticePhase, type Sorted } from "../../notices/index.ts";
import type { Begun } from "./begin.ts";
import type { Examined } from "./examine.ts";
import type { Run } from "./run.ts";

/** What the notices' steps are given, over `plan` (the plan as it stands when they run). */
export function noticing(run: Run, begun: Begun, plan: ShareRemoval[]): NoticePhase {
  return { gitlab: run.opts.gitlab, policy: run.policy, now: begun.now, plan, max: run.limit, concurrency: run.listConcurrency, userId: begun.userId, admin: begun.admin, signal: run.inStep, measured: run.measured };
}

/**
 * Sorts the plan's strays by their notices (setting each one's status), or undefined when notices are
 * not in play or the run compares policies. Only an examination of the whole scope to its end may
 * close the notice of a share it did not find.
 */
export async function notices(run: Run, begun: Begun, examined: Examined): Promise<Sorted | undefined> {
  if (run.base) return undefined;
  return sortStrays({ ...noticing(run, begun, examined.plan), whole: examined.complete && !run.targets }, run.steps);
}
