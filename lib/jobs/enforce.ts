/**
 * The enforce job: list the projects in scope with their shares, judge each share with the pure
 * policy, plan the removal of every stray one, and (only when asked, and only if the guard holds)
 * remove them. Memory grows with the strays found, not with the projects listed.
 */
import pMap from "p-map";
import { HttpError } from "../http/index.ts";
import { isTrue, type GitLabClient, type Project } from "../gitlab/index.ts";
import type { Listing, Page } from "../paging/index.ts";
import { accessLevelName, evaluateShare, maxRemovals, scopeGroups, type Policy } from "../policy/index.ts";
import type { JobView } from "./view.ts";
import { countStatus, errorText, jobStats, type AuditSink, type GuardedSummary, type JobOptions, type Report } from "./report.ts";

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

export interface EnforceOptions extends JobOptions {
  gitlab: GitLabClient;
  /** Listings in flight at once (scope groups, or the partitions of a large one). */
  listConcurrency?: number;
  now?: Date;
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
    const concurrency = opts.listConcurrency ?? 4;
    const judgePage = (items: Project[]) => {
      items.forEach(judge);
      opts.onProgress?.({ projects: tally.projects, strays: actions.length });
    };
    const groups = await scopeGroupIds(gitlab, policy, warnings, signal);
    const sources = await pMap(
      groups,
      (group) => (group === undefined ? instanceRanges(gitlab, concurrency * 2, signal) : startGroupListing(gitlab, group, judgePage, signal)),
      { concurrency },
    );
    await pMap(sources.flat(), async (pages) => {
      for await (const page of pages) judgePage(page.items);
    }, { concurrency });
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
    action.status = "failed";
    // Stopped mid-request, the DELETE may have reached GitLab: say so rather than call it planned.
    action.error = signal?.aborted ? `stopped while removing (${errorText(signal.reason)}): the share may or may not be gone; the next run converges` : errorText(err);
  }
  const { project, projectId, group, groupId, accessLevel, reason, status: outcome, error } = action;
  audit?.info("remove-share", { project, projectId, group, groupId, accessLevel, rule: reason, outcome, error });
}

/** Above this many projects, a scope group (or the instance) is listed in partitions that run in parallel. */
export const PARTITION_ABOVE = 2_000;

type Pages = AsyncIterable<Page<Project>>;

/**
 * Starts listing one scope group and judges the first page. Its x-total decides the rest: a small
 * group's listing simply goes on; a large one (or one above 10,000, which GitLab will not count) is
 * split into its own projects and each direct subgroup's tree, every partition following its own
 * links. /groups/:id/projects has no id filter to split on, so subgroups are the seams; each costs at
 * most one partial page, and the first page's projects, listed again by their partition, are not
 * judged twice.
 */
async function startGroupListing(gitlab: GitLabClient, group: number, judgePage: (items: Project[]) => void, signal?: AbortSignal): Promise<Pages[]> {
  const whole = gitlab.listGroupProjects(group, { signal }).pages();
  const first = await whole.next();
  if (first.done) return [];
  judgePage(first.value.items);
  const { meta, checkpoint } = first.value;
  if (checkpoint.next === null || isSmall(meta.total)) return [{ [Symbol.asyncIterator]: () => whole }];
  await whole.return(undefined);
  const judged = new Set(first.value.items.map((p) => p.id));
  const unjudged = async function* (listing: Listing<Project>): AsyncGenerator<Page<Project>> {
    for await (const page of listing.pages()) yield { ...page, items: page.items.filter((p) => !judged.has(p.id)) };
  };
  const children = await gitlab.listSubgroups(group, { signal }).collect();
  return [gitlab.listGroupProjects(group, { signal }, false), ...children.map((child) => gitlab.listGroupProjects(child.id, { signal }))].map(unjudged);
}

/**
 * The whole instance, by keyset on id: one listing for a small instance; otherwise `ranges` id ranges
 * listed side by side (id_after/id_before), each following its own links, the last one open-ended so a
 * project created meanwhile is still seen. One tiny request finds the newest id and the count.
 */
async function instanceRanges(gitlab: GitLabClient, ranges: number, signal?: AbortSignal): Promise<Pages[]> {
  const pages = (idAfter?: number, idBefore?: number) => gitlab.listProjects({ idAfter, idBefore, list: { signal } }).pages();
  const newest = await gitlab.newestProject(signal);
  if (!newest || isSmall(newest.total)) return [pages()];
  const step = Math.ceil(newest.id / ranges);
  return Array.from({ length: ranges }, (_, i) => pages(i === 0 ? undefined : i * step, i === ranges - 1 ? undefined : (i + 1) * step + 1));
}

function isSmall(total: number | "unknown" | undefined): boolean {
  return typeof total === "number" && total <= PARTITION_ABOVE;
}

/**
 * The namespace id of each scope group (a group's namespace id is its group id), or `undefined` for
 * the whole instance when the policy names no scope. Groups inside another scope group are skipped so
 * no project is listed twice.
 */
async function scopeGroupIds(gitlab: GitLabClient, policy: Policy, warnings: string[], signal?: AbortSignal): Promise<(number | undefined)[]> {
  const groups = scopeGroups(policy);
  if (groups === undefined) return [undefined];
  if (groups.length === 0) warnings.push("the policy has no gitlab section: no project is governed");
  // GitLab paths are case-insensitive: acme and ACME are one group, and acme/mobile is inside acme.
  const paths = [...new Map(groups.map((g) => [g.toLowerCase(), g])).values()];
  const outermost = paths.filter((g) => !paths.some((other) => g.toLowerCase().startsWith(`${other.toLowerCase()}/`)));
  const ids = await Promise.all(
    outermost.map(async (path) => {
      const namespace = await gitlab.getNamespace(path, signal).catch((err: unknown) => {
        throw err instanceof HttpError && err.status === 404
          ? new ScopeError(`gitlab.scope.groups: group "${path}" was not found, or the token cannot see it`)
          : err;
      });
      if (namespace.kind !== "group") throw new ScopeError(`gitlab.scope.groups: "${path}" is a user namespace, not a group`);
      return namespace.id;
    }),
  );
  // Two paths can still name one group (an old path GitLab redirects): list it once.
  return [...new Set(ids)];
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
