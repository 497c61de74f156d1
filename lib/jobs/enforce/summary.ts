/** What enforce counts and reports, its options and defaults: shared by the job, its slices and its view. */
import type { GitLabClient, GroupShare, RequestCounts } from "../../gitlab/index.ts";
import type { NoticesReport, NoticeSummary } from "../notices/index.ts";
import type { Policy, RuleCounts, ShareVerdict } from "../../policy/index.ts";
import type { PolicyComparison } from "../shares/comparison.ts";
import type { RemovalCounts, ShareKindName, ShareRemoval, Subject } from "../shares/plan.ts";
import type { EventDelivery, MissedByEvents } from "./missed.ts";
import type { LastSweep } from "./rules.ts";
import type { EnforceTarget, UnreadTarget } from "./examine/targets.ts";
import type { UnexaminedPart } from "./examine/unexamined.ts";
import type { GuardedSummary, JobOptions, Report } from "../report/index.ts";

/** A part of the scope a run may be limited to: the other jobs take it from here, with the options it is one of. */
export type { EnforceTarget };

/** Counters named for one kind count that kind; the others count both kinds. */
export interface EnforceSummary extends GuardedSummary, RemovalCounts {
  /** Projects examined, and their shares. */
  projects: number;
  shares: number;
  /** Groups examined (scope groups and their descendants), and the shares they make. */
  groups: number;
  groupShares: number;
  /** GET /groups/:id requests sent (the one GitLab.com limits to 400 a minute): what group shares cost. */
  groupReads: number;
  allowed: number;
  exempt: number;
  /** Shares each allow and exempt rule matched, by index (null: not known, a replayed step did not count them). */
  matched: RuleCounts | null;
  /** Only when the policy handles strays by notices (onStray notify or report) or names a notices project (lib/jobs/notices/). */
  notices?: NoticeSummary;
  /** Only when GitLab failed to answer for parts of the scope: how many were not examined (the report's `unexamined` names the first 100). */
  unexamined?: number;
  /** Only when the examination was stopped before the scope's end (the run's signal or time limit, or more strays than a run plans): the plan is cut short, and nothing was removed. */
  cutShort?: true;
}

/**
 * `comparison` only in a run comparing policies (compare.ts); `missedByEvents` and `eventDelivery`
 * only in a Lambda sweep with event-driven enforcement deployed (missed.ts, functions/shared/runs/event-coverage.ts).
 */
export type EnforceReport = Report<ShareRemoval, EnforceSummary> & {
  comparison?: PolicyComparison;
  missedByEvents?: MissedByEvents;
  eventDelivery?: EventDelivery;
  /** The notices project, and its notices this run closed (or would close) for a reason other than their share's removal. */
  notices?: NoticesReport;
  /** Only when a target by id (an event's subject) could not be read: each left out of the run (examine/targets.ts). */
  unreadTargets?: UnreadTarget[];
  /** Only when GitLab failed to answer for a part of the scope (examine/unexamined.ts): each not examined, while the rest was, and its strays removed. */
  unexamined?: UnexaminedPart[];
};


/**
 * Defaults, for a user who passes no flag. Time at latency is requests ÷ requests in flight, so the
 * defaults are as high as GitLab tolerates from one client: a self-managed instance has no API rate
 * limit by default and its smallest recommended size (4 vCPU) runs 4 Puma workers × 4 threads, so
 * 16 reads in flight take its capacity for the seconds a run lasts, no more; GitLab.com's budgets
 * (2,000 requests a minute per user, 400 a minute for GET /groups/:id and GET /projects/:id, 600 for
 * a group's projects) are bursts of a minute, which a run of this size fits in, and past them the
 * budget, not the concurrency, sets the pace: the rate limiter follows the RateLimit-* headers and
 * Retry-After GitLab sends, so a budget the server reports always wins over these numbers.
 */
export const DEFAULT_LIST_CONCURRENCY = 16;
// The removals' default, 16 for the same reasons: apply takes it too, so it lives with the removals.
export { DEFAULT_REMOVAL_CONCURRENCY } from "../shares/remove.ts";

export interface EnforceOptions extends JobOptions {
  gitlab: GitLabClient;
  /** Examination requests in flight at once, both kinds together (project pages, group pages and details). */
  listConcurrency?: number;
  /** A removal planned this long ago or longer is judged again on its subject's current state first (default 60 s; 0: always). */
  maxPlanAgeMs?: number;
  now?: Date;
  /** How long the whole run may take (ms); past it, the examination stops and the report says how far it got. */
  runLimitMs?: number;
  /**
   * When the run must end (epoch ms), where it began before its examination did: a durable execution's, whose
   * timeout counts from its start, not from an examination begun invocations later. Taken over runLimitMs.
   */
  runEndAt?: number;
  onProgress?: (p: EnforceProgress) => void;
  /** Told, once the token is checked, whether it acts as an administrator (the review attributes with it rather than asking again). */
  onTokenChecked?: (token: { admin: boolean }) => void;
  /** Limits the run to these parts of the scope (examine/targets.ts); absent: the whole scope. */
  targets?: readonly EnforceTarget[];
  /**
   * When reading targets by id must end (the watch's lookup deadline): one GitLab has not answered by then is
   * left out as a read that failed and may pass, so that a subject GitLab hangs on does not hold up the others.
   */
  targetsReadBy?: AbortSignal;
  /** The base policy (from a GitLab repository) to compare `policy` with: the report gains `comparison`; never with `apply`. */
  compareWith?: Policy;
  /**
   * Sees every share the examination judges, allowed, exempt, stray or out of scope, as it is judged
   * (the access review, lib/jobs/review/, lists them all). Called in a step's examination only: a step
   * a durable execution replays calls it no more, so only a run without durable steps may rely on it.
   */
  onJudged?: JudgedShareHook;
  /** What the last full run found (rules.ts): a targeted run refuses its unmatched rules too, under the same policy only. */
  lastSweep?: LastSweep;
  /**
   * The removals targeted runs share under a policy no full run has judged yet (rules.ts's unjudged):
   * a targeted run plans only its subjects, so the guard judged alone would let a stream of events, one
   * subject each, remove what a full run under the same policy would refuse.
   */
  removalBudget?: RemovalBudget;
}

/** A count of removals kept outside the run (the EventsWorker's and the Watch's, in the claims table). */
export interface RemovalBudget {
  /** Takes `removals` if what was taken under `policySha256` stays within `limit`; false (taking nothing) if not. */
  reserve(policySha256: string, removals: number, limit: number, signal?: AbortSignal): Promise<boolean>;
  /** Gives back `removals` taken and surely not made (refused, already gone, not attempted). */
  release(policySha256: string, removals: number, signal?: AbortSignal): Promise<void>;
}

/** One share as the examination judged it: its kind, its subject, the share as GitLab listed it, and the verdict. */
export interface JudgedShare {
  kind: ShareKindName;
  subject: Subject;
  share: GroupShare;
  verdict: ShareVerdict;
}

export type JudgedShareHook = (judged: JudgedShare) => void;

/** Where a run is: examining (counts so far; the projects in scope when known), or removing (settled of planned). */
export type EnforceProgress =
  | { phase: "examining"; projects: number; groups: number; strays: number; totalProjects?: number }
  | { phase: "removing"; done: number; total: number };

/** What examining counts, besides the strays. */
export interface Tally {
  projects: number;
  shares: number;
  groups: number;
  groupShares: number;
  allowed: number;
  exempt: number;
  outOfScope: number;
}

/** Requests one step sent, as lib/http counted them. */
export type StepStats = RequestCounts;

export function emptyTally(): Tally {
  return { projects: 0, shares: 0, groups: 0, groupShares: 0, allowed: 0, exempt: 0, outOfScope: 0 };
}

/** The requests `gitlab` sent since it counted `before`. */
export function statsSince(gitlab: GitLabClient, before: StepStats): StepStats {
  const after = gitlab.requestCounts();
  return { requests: after.requests - before.requests, retries: after.retries - before.retries, rateLimited: after.rateLimited - before.rateLimited, pages: after.pages - before.pages, groupReads: after.groupReads - before.groupReads };
}

/** The request counts of these steps together. */
export function sumStats(stats: readonly StepStats[]): StepStats {
  return stats.reduce<StepStats>(addCounts, { requests: 0, retries: 0, rateLimited: 0, pages: 0, groupReads: 0 });
}

/** The report's `stats.attribution`, for a run that attributed (an attribute step recorded by older code has no budget). */
export function attributionStat(attributed: { auditRequests: number; budget?: number; stoppedAtBudget?: boolean } | undefined): { attribution?: { requests: number; budget: number; stoppedAtBudget: boolean } } {
  if (attributed?.budget === undefined) return {};
  return { attribution: { requests: attributed.auditRequests, budget: attributed.budget, stoppedAtBudget: attributed.stoppedAtBudget === true } };
}

/** Adds each count of `more` to `into`'s (the tallies and the request counts of steps add up so). */
export function addCounts<T extends { [K in keyof T]: number }>(into: T, more: T): T {
  for (const key of Object.keys(into) as (keyof T)[]) (into[key] as number) += more[key];
  return into;
}
