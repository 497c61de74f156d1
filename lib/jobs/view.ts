/** How a job's report reads to people; lib/jobs/render.ts lays it out as text or Slack blocks. */
export interface JobView<Action, JobReport> {
  title: string;
  /** What the actions are, e.g. "stray project shares". */
  noun: string;
  /** Actions are grouped under this heading (a project, say). */
  group(action: Action): string;
  /** Columns of one action's line, status excluded. */
  columns(action: Action): string[];
  summary(report: JobReport): string;
}
