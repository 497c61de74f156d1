/**
 * Enforce's examination: the steps "examine 1", "examine 2", … each one slice (slice.ts) from where
 * the last left the listing, with a pause between them where an invocation may end. Nothing is
 * carried from slice to slice but what a step returns, so a durable execution resumes it.
 */
import { addRuleCounts, emptyRuleCounts, type RuleCounts } from "../../../policy/index.ts";
import { byKindAndPath, MAX_PLANNED, shareKey, type ShareRemoval } from "../../shares/plan.ts";
import { count } from "../../view.ts";
import { emptyAttributionState, type AttributionState } from "../attribution-reads.ts";
import type { Difference } from "../compare.ts";
import { addUnexamined, noneUnexamined, unexaminedWarnings, type Unexamined } from "../examine/unexamined.ts";
import { examineSlice, type Slice } from "../slice.ts";
import { addCounts, emptyTally, type Tally } from "../summary.ts";
import type { Begun } from "./begin.ts";
import type { Run, Said } from "./run.ts";

export interface Examined extends Said {
  tally: Tally;
  /** The strays, each with when it was judged, in the plan's order. */
  found: Slice["strays"];
  /** Their actions (the same objects), in that order: the plan the later phases sort, attribute and remove. */
  plan: ShareRemoval[];
  /** Comparing with a base policy: the shares judged otherwise under it. */
  differences: Difference[];
  /** Unknown (undefined) once a step recorded by code that did not count them is replayed. */
  matched: RuleCounts | undefined;
  /**
   * Everything in scope was examined: the listing went to its end, and no part was left unexamined.
   * What needs the whole scope goes by it (a rule that matched nothing in it, closing other notices).
   */
  complete: boolean;
  /** The listing was stopped by the run's signal or time limit, or at MAX_PLANNED strays: the plan is cut short, and nothing is removed. */
  stopped: boolean;
  /**
   * Parts GitLab failed to answer for (examine/unexamined.ts): the run is not complete, but each stray
   * found elsewhere is judged on its own, so the removals go ahead; the report names them.
   */
  unexamined: Unexamined;
  /** Where the reads of audit events begun during the examination stand (attribution-early.ts). */
  attribution: AttributionState;
}

/** Why the examination stops at `n` strays or differences (`what`, plural) found, if it does (summary.ts's MAX_PLANNED). */
const tooMany = (n: number, what: string): string | null =>
  n > MAX_PLANNED ? `more than ${MAX_PLANNED} ${what} found, more than one run plans: narrow gitlab.scope, or correct the policy's rules` : null;

export async function examine(run: Run, begun: Begun): Promise<Examined> {
  const { opts, steps, policy, base } = run;
  const tally: Tally = emptyTally();
  const found: Slice["strays"] = [];
  const differences: Difference[] = [];
  const warnings: string[] = [];
  const stats: Said["stats"] = [];
  // A project moved between partitions mid-listing is listed twice; its strays are planned once.
  const planned = new Set<string>();
  let matched: RuleCounts | undefined = emptyRuleCounts(policy);
  let stopped = false;
  // Scope groups the run could not look up (begin.ts), named first.
  const unexamined = addUnexamined(noneUnexamined(), { parts: begun.unexamined, count: begun.unexamined.length });
  let attribution = emptyAttributionState();

  let frontier = begun.frontier;
  for (let n = 1; frontier.length; n++) {
    const slice = await steps.step(`examine ${n}`, () =>
      run.measured(() =>
        examineSlice({
          gitlab: opts.gitlab, policy, ...(base ? { base } : {}), seesAllGroups: begun.seesAllGroups, concurrency: run.listConcurrency, signal: opts.signal, now: begun.now, frontier, steps, runEnd: begun.runEnd, onJudged: opts.onJudged, held: run.held,
          attribution: { state: attribution, admin: begun.admin, before: { projects: tally.projects, groups: tally.groups, strays: found.length } },
          // Counts so far, as pages arrive (run directly, this is the whole examination).
          progress: (t, strays) => opts.onProgress?.({ phase: "examining", projects: tally.projects + t.projects, groups: tally.groups + t.groups, strays: found.length + strays }),
        }),
      ),
    );
    addCounts(tally, slice.tally);
    matched = matched && slice.matched && addRuleCounts(matched, slice.matched);
    for (const stray of slice.strays) {
      const key = shareKey(stray.action);
      if (planned.has(key)) continue;
      planned.add(key);
      found.push(stray);
    }
    // One by one: spread into push, 150,000 arguments overflow the stack.
    for (const difference of slice.differences ?? []) differences.push(difference);
    warnings.push(...slice.warnings);
    stats.push(slice.stats);
    frontier = slice.frontier;
    attribution = slice.attribution ?? attribution;
    addUnexamined(unexamined, slice.unexamined);
    const why = slice.stopped ?? tooMany(found.length, "stray shares") ?? tooMany(differences.length, "differences between the policies");
    if (why !== null) {
      stopped = true;
      found.length = Math.min(found.length, MAX_PLANNED);
      differences.length = Math.min(differences.length, MAX_PLANNED);
      warnings.push(`stopped while listing after ${count(tally.projects, "project")} (${why}), with ${count(tally.groups, "group")} read: the plan is incomplete and nothing was removed`);
      break;
    }
    if (frontier.length) await steps.pause(`examined ${n}`, slice.spent);
  }
  // Found in whatever order the listings answered; reported (and removed) in a stable one.
  found.sort((a, b) => byKindAndPath(a.action, b.action));
  if (tally.outOfScope) {
    warnings.push(`${count(tally.outOfScope, "share")} of examined projects or groups ${tally.outOfScope === 1 ? "is" : "are"} outside the policy's scope (a path not under a scope group): they were left alone`);
  }
  warnings.push(...unexaminedWarnings(unexamined));
  const complete = !stopped && unexamined.count === 0;
  return { tally, found, plan: found.map((stray) => stray.action), differences, matched, complete, stopped, unexamined, attribution, warnings, stats };
}
