/**
 * What every phase of enforce (index.ts) is given: the run's options, checked once before any request
 * and never changed after; and what every phase hands back for the report (its warnings and the
 * requests its steps sent), so enforce() can list them in the order the phases ran.
 */
import { maxRemovals, type Policy } from "../../../policy/index.ts";
import { stepSignal, type Steps } from "../../steps.ts";
import { withinBaseScope } from "../compare.ts";
import type { HeldRead } from "../examine/context.ts";
import { ScopeError } from "../examine/scope.ts";
import { checkTargets } from "../examine/targets.ts";
import { DEFAULT_LIST_CONCURRENCY, statsSince, type EnforceOptions, type StepStats } from "../summary.ts";

/** A policy with a gitlab section: the only kind enforce runs under. */
export type GovernedPolicy = Policy & { gitlab: NonNullable<Policy["gitlab"]> };

export interface Run {
  opts: EnforceOptions;
  steps: Steps;
  policy: GovernedPolicy;
  /** The policy compared with (--compare-policy-ref): such a run never removes. */
  base: Policy | undefined;
  /** A run limited to part of the scope, each target checked against it. */
  targets: ReturnType<typeof checkTargets> | undefined;
  /** Project targets as their look-up read them, for the examination to take instead of reading again (Examination.held). */
  held: Map<number, HeldRead>;
  /** gitlab.guard.maxRemovals. */
  limit: number;
  listConcurrency: number;
  /** Inside a step, requests stop with the run's signal or the invocation's deadline (durable, lib/jobs/steps.ts). */
  inStep: AbortSignal | undefined;
  /** Runs a step's work and adds the requests it sent, so a replayed step reports what it cost. */
  measured<T extends object>(run: () => Promise<T>): Promise<T & { stats: StepStats }>;
}

/** What a phase hands to the report: its warnings, and the requests of each of its steps. */
export interface Said {
  warnings: string[];
  stats: StepStats[];
}

/** The run's fixed inputs; a bad combination is refused here, before any request. */
export function runOf(opts: EnforceOptions, steps: Steps): Run {
  const { gitlab, policy, signal, compareWith: base } = opts;
  if (base && opts.apply) throw new ScopeError("a comparison of policies (--compare-policy-ref) never removes: run it without --apply");
  // Before any request: without the section there is nothing to govern, and an empty plan would read as "in policy".
  if (policy.gitlab === undefined) throw new ScopeError("the policy has no gitlab section: enforce has nothing to govern (add gitlab.shares, and gitlab.scope to limit it)");
  return {
    opts,
    steps,
    // A comparison examines only what the base governs too: the proposed scope is a merge request author's.
    policy: (base ? withinBaseScope(policy, base) : policy) as GovernedPolicy,
    base,
    // A run limited to part of the scope: each target is checked against the scope before any request.
    targets: opts.targets && checkTargets(policy, opts.targets),
    held: new Map(),
    limit: maxRemovals(policy),
    listConcurrency: opts.listConcurrency ?? DEFAULT_LIST_CONCURRENCY,
    inStep: stepSignal(steps, signal),
    measured: async (run) => {
      const before = gitlab.requestCounts();
      const result = await run();
      return { ...result, stats: statsSince(gitlab, before) };
    },
  };
}
