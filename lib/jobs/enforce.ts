/**
 * The enforce job: list the projects in scope with their shares, judge each share with the pure
 * policy, plan the removal of every stray one, and (only when asked, and only if the guard holds)
 * remove them. Memory grows with the strays found, not with the projects listed.
 */
import pMap from "p-map";
import { isTrue, type GitLabClient, type Project } from "../gitlab/index.ts";
import { accessLevelName, evaluateShare, maxRemovals, type Policy } from "../policy/index.ts";
import { instanceRanges, scopeGroupIds, startGroupListing } from "./enforce-listing.ts";
import { removeShares } from "./enforce-removal.ts";
import type { JobView } from "./view.ts";
import { countStatus, errorText, jobStats, type GuardedSummary, type JobOptions, type Report } from "./report.ts";

export { PARTITION_ABOVE, ScopeError } from "./enforce-listing.ts";

export interface RemoveShareAction {
  type: "remove-share";
  projectId: number;
  project: string;
  groupId: number;
  group: string;
  accessLevel: number;
  reason: string;
  /** "skipped": judged again before removal (the plan had grown old) and no longer stray. */
  status: "planned" | "done" | "already-gone" | "skipped" | "failed";
  error?: string;
}

export interface EnforceSummary extends GuardedSummary {
  projects: number;
  shares: number;
  allowed: number;
  exempt: number;
  strays: number;
  removed: number;
  alreadyGone: number;
  skipped: number;
  failed: number;
  maxRemovals: number;
}

export type EnforceReport = Report<RemoveShareAction, EnforceSummary>;

export interface EnforceOptions extends JobOptions {
  gitlab: GitLabClient;
  /** Listings in flight at once (scope groups, or the partitions of a large one). */
  listConcurrency?: number;
  /** A removal planned longer ago than this is judged again on its project's current state first (default 60 s). */
  maxPlanAgeMs?: number;
  now?: Date;
  onProgress?: (p: { projects: number; strays: number }) => void;
}

export async function enforce(opts: EnforceOptions): Promise<EnforceReport> {
  const { gitlab, policy, signal } = opts;
  const startedAt = Date.now();
  const now = opts.now ?? new Date();
  const warnings: string[] = [];
  const actions: RemoveShareAction[] = [];
  const judgedAt = new Map<RemoveShareAction, number>();
  // A project moved between partitions mid-listing is listed twice; its strays are planned once.
  const planned = new Set<string>();
  const tally = { projects: 0, shares: 0, allowed: 0, exempt: 0 };
  let outOfScope = 0;
  const limit = maxRemovals(policy);

  const judge = (project: Project) => {
    tally.projects++;
    for (const share of project.shared_with_groups ?? []) {
      tally.shares++;
      const verdict = evaluateShare(policy, { projectPath: project.path_with_namespace, groupPath: share.group_full_path, accessLevel: share.group_access_level }, now);
      if (verdict.kind === "out-of-scope") outOfScope++;
      else if (verdict.kind !== "stray") tally[verdict.kind]++;
      if (verdict.kind !== "stray") continue;
      const key = `${project.id}:${share.group_id}`;
      if (planned.has(key)) continue;
      planned.add(key);
      const action: RemoveShareAction = {
        type: "remove-share",
        projectId: project.id,
        project: project.path_with_namespace,
        groupId: share.group_id,
        group: share.group_full_path,
        accessLevel: share.group_access_level,
        reason: verdict.reason,
        status: "planned",
      };
      actions.push(action);
      judgedAt.set(action, Date.now());
    }
  };

  const user = await gitlab.currentUser(signal);
  const seesAllGroups = isTrue(user.is_admin) || isTrue(user.is_auditor);
  if (!seesAllGroups) {
    warnings.push(
      `the token (${user.username}) is not an administrator or auditor: GitLab lists only the shares with groups it can see, so shares with other groups were neither checked nor removed`,
    );
  }

  let complete = true;
  // One listing failing stops the others: p-map cannot cancel mappers already running.
  const listing = new AbortController();
  const listSignal = signal ? AbortSignal.any([signal, listing.signal]) : listing.signal;
  try {
    const concurrency = opts.listConcurrency ?? 4;
    const judgePage = (items: Project[]) => {
      items.forEach(judge);
      opts.onProgress?.({ projects: tally.projects, strays: actions.length });
    };
    const groups = await scopeGroupIds(gitlab, policy, warnings, signal);
    const sources = await pMap(
      groups,
      (group) => (group === undefined ? instanceRanges(gitlab, concurrency * 2, listSignal) : startGroupListing(gitlab, group, judgePage, { seesAllGroups, signal: listSignal })),
      { concurrency },
    );
    await pMap(sources.flat(), async (pages) => {
      for await (const page of pages) judgePage(page.items);
    }, { concurrency });
  } catch (err) {
    listing.abort(err);
    if (!signal?.aborted) throw err;
    complete = false;
    warnings.push(`stopped while listing after ${tally.projects} projects (${errorText(signal.reason)}): the plan is incomplete and nothing was removed`);
  }
  if (outOfScope) {
    warnings.push(`${outOfScope} shares of listed projects are outside the policy's scope (a project path not under a scope group): they were left alone`);
  }

  const tripped = actions.length > limit;
  if (tripped) {
    warnings.push(`guard: ${actions.length} removals planned, more than gitlab.guard.maxRemovals (${limit}); nothing was removed`);
  } else if (opts.apply && complete) {
    await removeShares(actions, { gitlab, policy, now, judgedAt, concurrency: opts.concurrency ?? 4, maxPlanAgeMs: opts.maxPlanAgeMs ?? 60_000, signal, audit: opts.audit });
    const left = countStatus(actions, "planned");
    if (left) warnings.push(`stopped before ${left} of ${actions.length} removals (${errorText(signal?.reason)}); the next run picks them up`);
  }

  return {
    job: "enforce",
    dryRun: !opts.apply,
    summary: {
      ...tally,
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

export const enforceView: JobView<RemoveShareAction, EnforceReport> = {
  title: "Warden enforce",
  noun: "stray project shares",
  group: (a: RemoveShareAction) => `${a.project} (#${a.projectId})`,
  columns: (a: RemoveShareAction) => [a.group, accessLevelName(a.accessLevel), a.reason],
  summary: ({ summary: s }: EnforceReport) =>
    `${s.projects} projects, ${s.shares} shares: ${s.allowed} allowed, ${s.exempt} exempt, ${s.strays} stray; ` +
    `${s.removed} removed, ${s.alreadyGone} already gone, ${s.skipped} skipped, ${s.failed} failed; guard ${s.guard} (max ${s.maxRemovals})`,
};
