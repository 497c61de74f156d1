/**
 * The enforce job: list the projects in scope with their shares, judge each share with the pure
 * policy, plan the removal of every stray one, and (only when asked, and only if the guard holds)
 * remove them. Memory grows with the strays found, not with the projects listed.
 */
import pMap from "p-map";
import { HttpError } from "../http/index.ts";
import { isTrue, type GitLabClient, type Project } from "../gitlab/index.ts";
import type { Listing } from "../paging/index.ts";
import { accessLevelName, evaluateShare, maxRemovals, scopeGroups, type Policy } from "../policy/index.ts";
import type { JobView } from "./view.ts";
import { countStatus, errorText, jobStats, type AuditSink, type GuardedSummary, type Report } from "./report.ts";

export interface RemoveShareAction {
  type: "remove-share";
  projectId: number;
  project: string;
  groupId: number;
  group: string;
  accessLevel: number;
  reason: string;
  status: "planned" | "done" | "already-gone" | "failed";
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
  failed: number;
  maxRemovals: number;
}

export type EnforceReport = Report<RemoveShareAction, EnforceSummary>;

export interface EnforceOptions {
  gitlab: GitLabClient;
  policy: Policy;
  /** Dry run unless true. */
  apply?: boolean;
  /** Removals in flight at once. */
  concurrency?: number;
  /** Listings (one per scope group) in flight at once. */
  listConcurrency?: number;
  /** Stops new work; the report then says what was done and where it stopped. */
  signal?: AbortSignal;
  now?: Date;
  audit?: AuditSink;
  onProgress?: (p: { projects: number; strays: number }) => void;
}

export class ScopeError extends Error {
  override name = "ScopeError";
}

export async function enforce(opts: EnforceOptions): Promise<EnforceReport> {
  const { gitlab, policy, signal } = opts;
  const startedAt = Date.now();
  const now = opts.now ?? new Date();
  const warnings: string[] = [];
  const actions: RemoveShareAction[] = [];
  const tally = { projects: 0, shares: 0, allowed: 0, exempt: 0 };
  const limit = maxRemovals(policy);

  const judge = (project: Project) => {
    tally.projects++;
    for (const share of project.shared_with_groups ?? []) {
      tally.shares++;
      const verdict = evaluateShare(policy, { projectPath: project.path_with_namespace, groupPath: share.group_full_path, accessLevel: share.group_access_level }, now);
      if (verdict.kind === "allowed") tally.allowed++;
      else if (verdict.kind === "exempt") tally.exempt++;
      else if (verdict.kind === "stray") {
        actions.push({
          type: "remove-share",
          projectId: project.id,
          project: project.path_with_namespace,
          groupId: share.group_id,
          group: share.group_full_path,
          accessLevel: share.group_access_level,
          reason: verdict.reason,
          status: "planned",
        });
      }
    }
  };

  const user = await gitlab.currentUser(signal);
  if (!isTrue(user.is_admin) && !isTrue(user.is_auditor)) {
    warnings.push(
      `the token (${user.username}) is not an administrator or auditor: GitLab lists only the shares with groups it can see, so shares with other groups were neither checked nor removed`,
    );
  }

  let complete = true;
  try {
    const listings = await scopeListings(gitlab, policy, warnings, signal);
    await pMap(
      listings,
      async (listing) => {
        for await (const page of listing.pages()) {
          page.items.forEach(judge);
          opts.onProgress?.({ projects: tally.projects, strays: actions.length });
        }
      },
      { concurrency: opts.listConcurrency ?? 4 },
    );
  } catch (err) {
    if (!signal?.aborted) throw err;
    complete = false;
    warnings.push(`stopped while listing after ${tally.projects} projects (${errorText(signal.reason)}): the plan is incomplete and nothing was removed`);
  }

  const tripped = actions.length > limit;
  if (tripped) {
    warnings.push(`guard: ${actions.length} removals planned, more than gitlab.guard.maxRemovals (${limit}); nothing was removed`);
  } else if (opts.apply && complete) {
    await pMap(actions, (action) => (signal?.aborted ? undefined : remove(gitlab, action, opts.audit, signal)), { concurrency: opts.concurrency ?? 4 });
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

/** A failed removal is recorded on its action and the others go on: the next run converges. */
async function remove(gitlab: GitLabClient, action: RemoveShareAction, audit?: AuditSink, signal?: AbortSignal): Promise<void> {
  try {
    action.status = (await gitlab.unshareProject(action.projectId, action.groupId, signal)) === "removed" ? "done" : "already-gone";
  } catch (err) {
    if (signal?.aborted) return;
    action.status = "failed";
    action.error = errorText(err);
  }
  const { project, projectId, group, groupId, accessLevel, reason, status: outcome, error } = action;
  audit?.info("remove-share", { project, projectId, group, groupId, accessLevel, rule: reason, outcome, error });
}

/**
 * One listing per scope group (its projects, subgroups included, not those shared into it), or the
 * whole instance by keyset when the policy names no scope. Groups inside another scope group are
 * skipped so no project is listed twice.
 */
async function scopeListings(gitlab: GitLabClient, policy: Policy, warnings: string[], signal?: AbortSignal): Promise<Listing<Project>[]> {
  const groups = scopeGroups(policy);
  if (groups === undefined) return [gitlab.listProjects({ list: { signal } })];
  if (groups.length === 0) warnings.push("the policy has no gitlab section: no project is governed");
  const outermost = groups.filter((g) => !groups.some((other) => other !== g && g.toLowerCase().startsWith(`${other.toLowerCase()}/`)));
  return Promise.all(
    outermost.map(async (path) => {
      const namespace = await gitlab.getNamespace(path, signal).catch((err: unknown) => {
        throw err instanceof HttpError && err.status === 404
          ? new ScopeError(`gitlab.scope.groups: group "${path}" was not found, or the token cannot see it`)
          : err;
      });
      if (namespace.kind !== "group") throw new ScopeError(`gitlab.scope.groups: "${path}" is a user namespace, not a group`);
      return gitlab.listGroupProjects(namespace.id, { signal });
    }),
  );
}

export const enforceView: JobView<RemoveShareAction, EnforceReport> = {
  title: "Warden enforce",
  noun: "stray project shares",
  group: (a: RemoveShareAction) => `${a.project} (#${a.projectId})`,
  columns: (a: RemoveShareAction) => [a.group, accessLevelName(a.accessLevel), a.reason],
  summary: ({ summary: s }: EnforceReport) =>
    `${s.projects} projects, ${s.shares} shares: ${s.allowed} allowed, ${s.exempt} exempt, ${s.strays} stray; ` +
    `${s.removed} removed, ${s.alreadyGone} already gone, ${s.failed} failed; guard ${s.guard} (max ${s.maxRemovals})`,
};
