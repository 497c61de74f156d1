/**
 * The enforce job: examine what is in scope — the projects with their shares, the groups with the
 * shares they make — judge each share with the pure policy, plan the removal of every stray one, and
 * (only when asked, and only if the one guard over both kinds holds) remove them. Memory grows with the
 * strays found, not with the projects or groups examined.
 */
import pLimit from "p-limit";
import { isTrue, type GitLabClient } from "../gitlab/index.ts";
import { accessLevelName, evaluateShare, maxRemovals } from "../policy/index.ts";
import { kindOf, plannedRemoval, SHARE_KINDS, shareInput, type Examination, type ShareKindSpec, type ShareRemoval, type Subject } from "./enforce-kinds.ts";
import { scopeRoots, ScopeError } from "./enforce-listing.ts";
import { removeShares } from "./enforce-removal.ts";
import type { JobView } from "./view.ts";
import { countStatus, errorText, jobStats, type GuardedSummary, type JobOptions, type Report } from "./report.ts";

export { PARTITION_ABOVE, ScopeError } from "./enforce-listing.ts";
export type { RemoveGroupShareAction, RemoveShareAction, ShareRemoval, ShareStatus } from "./enforce-kinds.ts";

/** Counters named for one kind count that kind; the others count both kinds. */
export interface EnforceSummary extends GuardedSummary {
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
  strays: number;
  removed: number;
  alreadyGone: number;
  skipped: number;
  failed: number;
  maxRemovals: number;
}

export type EnforceReport = Report<ShareRemoval, EnforceSummary>;

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
export const DEFAULT_REMOVAL_CONCURRENCY = 16;

export interface EnforceOptions extends JobOptions {
  gitlab: GitLabClient;
  /** Examination requests in flight at once, both kinds together (project pages, group pages and details). */
  listConcurrency?: number;
  /** A removal planned longer ago than this is judged again on its subject's current state first (default 60 s). */
  maxPlanAgeMs?: number;
  now?: Date;
  onProgress?: (p: { projects: number; groups: number; strays: number }) => void;
}

export async function enforce(opts: EnforceOptions): Promise<EnforceReport> {
  const { gitlab, policy, signal } = opts;
  // Before any request: without the section there is nothing to govern, and an empty plan would read as "in policy".
  if (policy.gitlab === undefined) throw new ScopeError("the policy has no gitlab section: enforce has nothing to govern (add gitlab.shares, and gitlab.scope to limit it)");
  const startedAt = Date.now();
  const now = opts.now ?? new Date();
  const warnings: string[] = [];
  const actions: ShareRemoval[] = [];
  const judgedAt = new Map<ShareRemoval, number>();
  // A project moved between partitions mid-listing is listed twice; its strays are planned once.
  const planned = new Set<string>();
  const tally = { projects: 0, shares: 0, groups: 0, groupShares: 0, allowed: 0, exempt: 0 };
  let outOfScope = 0;
  const limit = maxRemovals(policy);

  const judge = (kind: ShareKindSpec) => (subjects: Subject[]) => {
    for (const subject of subjects) {
      tally[kind.counters.subjects]++;
      for (const share of subject.shares) {
        tally[kind.counters.shares]++;
        const verdict = evaluateShare(policy, shareInput(kind, subject, share), now);
        if (verdict.kind === "out-of-scope") outOfScope++;
        else if (verdict.kind !== "stray") tally[verdict.kind]++;
        const key = `${kind.kind}:${subject.id}:${share.group_id}`;
        if (verdict.kind !== "stray" || planned.has(key)) continue;
        planned.add(key);
        const action = plannedRemoval(kind, subject, share, verdict.reason);
        actions.push(action);
        judgedAt.set(action, Date.now());
      }
    }
    opts.onProgress?.({ projects: tally.projects, groups: tally.groups, strays: actions.length });
  };

  // The token check goes first and alone: a refused token must be the run's very first request, the
  // one after which the Lambda may read a rotated secret and run again (functions/lib/run-job.ts).
  const user = await gitlab.currentUser(signal);
  const seesAllGroups = isTrue(user.is_admin) || isTrue(user.is_auditor);
  if (!seesAllGroups) {
    warnings.push(
      `the token (${user.username}) is not an administrator or auditor: GitLab lists only the shares (of projects and of groups) with groups it can see, ` +
        "so shares with other groups were neither checked nor removed; and GitLab removes a group's share only for a token with Owner on that group " +
        "(it answers success all the same: Warden reads the group again to tell)",
    );
  }

  let complete = true;
  // One examination failing stops the others: p-map cannot cancel mappers already running.
  const listing = new AbortController();
  const listSignal = signal ? AbortSignal.any([signal, listing.signal]) : listing.signal;
  try {
    const roots = await scopeRoots(gitlab, policy, signal);
    const concurrency = opts.listConcurrency ?? DEFAULT_LIST_CONCURRENCY;
    const x: Examination = { gitlab, policy, roots, seesAllGroups, concurrency, slots: pLimit(concurrency), signal: listSignal, warnings };
    let failure: { err: unknown } | undefined;
    await Promise.allSettled(
      SHARE_KINDS.map((kind) =>
        kind.examine(x, judge(kind)).catch((err: unknown) => {
          failure ??= { err };
          listing.abort(err);
        }),
      ),
    );
    if (failure) throw failure.err;
  } catch (err) {
    if (!signal?.aborted) throw err;
    complete = false;
    warnings.push(`stopped while listing after ${tally.projects} projects (${errorText(signal.reason)}), with ${tally.groups} groups read: the plan is incomplete and nothing was removed`);
  }
  // Found in whatever order the listings answered; reported (and removed) in a stable one.
  actions.sort(byKindAndPath);
  if (outOfScope) {
    warnings.push(`${outOfScope} shares of examined projects or groups are outside the policy's scope (a path not under a scope group): they were left alone`);
  }

  const tripped = actions.length > limit;
  if (tripped) {
    warnings.push(`guard: ${actions.length} removals planned (project and group shares together), more than gitlab.guard.maxRemovals (${limit}); nothing was removed`);
  } else if (opts.apply && complete) {
    const removal = await removeShares(actions, {
      gitlab, policy, now, judgedAt, concurrency: opts.concurrency ?? DEFAULT_REMOVAL_CONCURRENCY, maxPlanAgeMs: opts.maxPlanAgeMs ?? 60_000, signal, audit: opts.audit, warnings,
    });
    const left = countStatus(actions, "planned");
    if (left) warnings.push(`stopped before ${left} of ${actions.length} removals (${errorText(signal?.reason)}); the next run picks them up`);
    if (removal.stopped) complete = false;
  }

  return {
    job: "enforce",
    dryRun: !opts.apply,
    summary: {
      ...tally,
      groupReads: gitlab.http.stats.snapshot().byRoute["GET /groups/:id"]?.requests ?? 0,
      strays: actions.length,
      removed: countStatus(actions, "done"),
      alreadyGone: countStatus(actions, "already-gone"),
      skipped: countStatus(actions, "skipped"),
      failed: countStatus(actions, "failed"),
      maxRemovals: limit,
      guard: tripped ? "tripped" : "ok",
      complete,
    },
    actions,
    stats: jobStats([gitlab.http], startedAt),
    warnings,
  };
}

function byKindAndPath(a: ShareRemoval, b: ShareRemoval): number {
  const [x, y] = [a, b].map((action) => kindOf(action).subject(action));
  return SHARE_KINDS.indexOf(kindOf(a)) - SHARE_KINDS.indexOf(kindOf(b)) || x!.path.localeCompare(y!.path) || x!.id - y!.id || a.group.localeCompare(b.group);
}

export const enforceView: JobView<ShareRemoval, EnforceReport> = {
  title: "Warden enforce",
  noun: "stray shares",
  group: (a) => (a.kind === "group" ? `${a.sharedGroup} (group #${a.sharedGroupId})` : `${a.project} (#${a.projectId})`),
  columns: (a) => [
    `${a.kind} share`,
    a.group,
    accessLevelName(a.accessLevel),
    a.expiresAt ? `until ${a.expiresAt}` : "no expiry",
    a.error ? `${a.reason} — ${a.error}` : a.reason,
  ],
  summary: ({ summary: s, actions }: EnforceReport) =>
    `${s.projects} projects with ${s.shares} shares, ${s.groups} groups with ${s.groupShares} group shares; ` +
    `of all shares ${s.allowed} allowed, ${s.exempt} exempt, ${s.strays} stray (${actions.filter((a) => a.kind === "group").length} group shares); ` +
    `${s.removed} removed, ${s.alreadyGone} already gone, ${s.skipped} skipped, ${s.failed} failed; guard ${s.guard} (max ${s.maxRemovals}); ` +
    `${s.groupReads} group reads (GET /groups/:id)`,
};
