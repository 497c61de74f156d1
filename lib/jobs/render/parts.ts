/** The parts every rendering shares: a report's view, its title, policy line, tally and request statistics. */
import { applyView } from "../apply/view.ts";
import { enforceView } from "../enforce/view.ts";
import { pipelineView } from "../pipeline/view.ts";
import type { JobName, Report } from "../report/index.ts";
import { restoreView } from "../restore/view.ts";
import { reviewView } from "../review/view.ts";
import { count, type JobView } from "../view.ts";
import { workflowsView } from "../workflows/view.ts";

export type AnyReport = Report<{ status: string }, object>;

const VIEWS: Partial<Record<JobName, JobView<never, never>>> = { enforce: enforceView, apply: applyView, pipeline: pipelineView, restore: restoreView, review: reviewView, workflows: workflowsView };

export function viewOf(report: AnyReport): JobView<never, never> {
  const view = VIEWS[report.job];
  if (!view) throw new Error(`no view for job ${report.job}`);
  return view;
}

export function titleOf(view: JobView<never, never>, report: AnyReport): string {
  return `${view.title}${report.dryRun ? " (dry run)" : ""}: ${count(report.actions.length, ...view.noun)}`;
}

/**
 * What the run was judged by, and where: "policy warden.yaml (sha256 1a2b3c4d), GitLab https://…", or
 * "policy acme/policies:warden.yaml@main (commit 89abcdef, sha256 1a2b3c4d), …". Unescaped.
 */
export function policyLine({ policy, gitlabUrl }: AnyReport): string {
  const where = gitlabUrl === undefined ? "" : `, GitLab ${gitlabUrl}`;
  if (policy === null) return `no policy file${where}`;
  const sha = `sha256 ${policy.sha256.slice(0, 8)}`;
  const from = policy.source === "file" ? `${policy.path} (${sha})` : `${policy.project}:${policy.path}@${policy.ref} (commit ${policy.commitId.slice(0, 8)}, ${sha})`;
  return `policy ${from}${where}`;
}

/** The view's tally of the actions (strays per invited group), most first; none if the view keeps none. */
export function tallyOf(view: JobView<never, never>, report: AnyReport): { title: string; rows: [name: string, n: number][] } | undefined {
  if (!view.tally || report.actions.length === 0) return undefined;
  const counts = new Map<string, number>();
  for (const action of report.actions) {
    const key = view.tally.of(action as never);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const rows = [...counts].sort(([a, m], [b, n]) => n - m || (a < b ? -1 : a > b ? 1 : 0));
  return { title: view.tally.title, rows };
}

export function statsLine({ stats }: AnyReport): string {
  // The adaptive limit shows only once a service pushed back (lib/http/concurrency.ts).
  const pushedBack = stats.lowestConcurrency === undefined ? "" : `, down to ${stats.lowestConcurrency} in flight`;
  const counts = `${count(stats.pages, "page")}, ${count(stats.retries, "retry", "retries")}, ${stats.rateLimited} rate-limited${pushedBack}`;
  return `${count(stats.requests, "request")} (${counts}) in ${(stats.durationMs / 1000).toFixed(1)} s`;
}
