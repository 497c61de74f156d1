/**
 * Removing the planned shares: bounded concurrency, idempotent, one audit line each. GitLab has no
 * conditional DELETE, and on a large instance minutes pass between judging a share and removing it:
 * an owner may meanwhile have lowered its access, removed it, or moved the project under an exemption.
 * So a removal planned longer ago than `maxPlanAgeMs` reads its project again (once per project) and
 * is judged again first; a share that is no longer stray is skipped, not removed.
 */
import pMap from "p-map";
import { HttpError, type GitLabClient, type Project } from "../gitlab/index.ts";
import { evaluateShare, type Policy } from "../policy/index.ts";
import type { RemoveShareAction } from "./enforce.ts";
import { errorText, stoppedMidRequest, type AuditSink } from "./report.ts";

export interface RemovalOptions {
  gitlab: GitLabClient;
  policy: Policy;
  now: Date;
  concurrency: number;
  maxPlanAgeMs: number;
  /** When each action was judged (Date.now()). */
  judgedAt: ReadonlyMap<RemoveShareAction, number>;
  signal?: AbortSignal;
  audit?: AuditSink;
}

export async function removeShares(actions: RemoveShareAction[], opts: RemovalOptions): Promise<void> {
  const projects = new Map<number, Promise<Project | undefined>>();
  const current = (id: number) => {
    let project = projects.get(id);
    if (!project) {
      project = opts.gitlab.getProject(id, opts.signal).catch((err: unknown) => {
        if (err instanceof HttpError && err.status === 404) return undefined;
        throw err;
      });
      projects.set(id, project);
    }
    return project;
  };
  await pMap(actions, (action) => (opts.signal?.aborted ? undefined : removeOne(action, opts, current)), { concurrency: opts.concurrency });
}

async function removeOne(action: RemoveShareAction, opts: RemovalOptions, current: (id: number) => Promise<Project | undefined>): Promise<void> {
  const { gitlab, signal } = opts;
  try {
    const stale = Date.now() - (opts.judgedAt.get(action) ?? 0) > opts.maxPlanAgeMs;
    const changed = stale ? await judgeAgain(action, opts, await current(action.projectId)) : undefined;
    if (changed) Object.assign(action, changed);
    else action.status = (await gitlab.unshareProject(action.projectId, action.groupId, signal)) === "removed" ? "done" : "already-gone";
  } catch (err) {
    action.status = "failed";
    action.error = signal?.aborted ? stoppedMidRequest(signal, "removing the share") : errorText(err);
  }
  const { project, projectId, group, groupId, accessLevel, reason, status: outcome, error } = action;
  opts.audit?.info("remove-share", { project, projectId, group, groupId, accessLevel, rule: reason, outcome, error });
}

/** Undefined when the share is still stray; otherwise what became of it. */
async function judgeAgain(action: RemoveShareAction, opts: RemovalOptions, project: Project | undefined): Promise<Partial<RemoveShareAction> | undefined> {
  if (!project) throw new Error("project not found (deleted, or the token can no longer see it): nothing removed");
  const share = project.shared_with_groups?.find((s) => s.group_id === action.groupId);
  if (!share) return { status: "already-gone" };
  const verdict = evaluateShare(opts.policy, { projectPath: project.path_with_namespace, groupPath: share.group_full_path, accessLevel: share.group_access_level }, opts.now);
  if (verdict.kind === "stray") return undefined;
  const why = verdict.kind === "out-of-scope" ? "the project is no longer in scope" : `now ${verdict.kind} by ${verdict.rule}`;
  return { status: "skipped", error: `changed since it was planned (${why}); not removed` };
}
