/** How a job's report reads to people; lib/jobs/render.ts lays it out as text or Slack blocks. */
export interface JobView<Action, JobReport> {
  title: string;
  /** What one action is, and several (when not the one plus "s"): ["stray share"], ["workflow out of policy", "workflows out of policy"]. */
  noun: readonly [one: string, many?: string];
  /** Actions are grouped under this heading (a project, say). */
  group(action: Action): string;
  /** Columns of one action's line, status excluded. */
  columns(action: Action): string[];
  summary(report: JobReport): string;
}

/** "1 request", "2 requests", "0 retries": the one place a count meets its noun. */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
