/** How a job's report reads to people; lib/jobs/render/ lays it out as text, Markdown or Slack blocks. */
export interface JobView<Action, JobReport> {
  title: string;
  /** What one action is, and several (when not the one plus "s"): ["stray share"], ["workflow out of policy", "workflows out of policy"]. */
  noun: readonly [one: string, many?: string];
  /** Actions are grouped under this heading (a project, say). */
  group(action: Action): string;
  /** Columns of one action's line, status excluded. */
  columns(action: Action): string[];
  /** Names of the heading and the columns, for a table's header (Markdown). */
  headings: { group: string; columns: readonly string[] };
  summary(report: JobReport): string;
  /** Actions counted by one field (strays per invited group), shown before them. */
  tally?: { title: string; of(action: Action): string };
  /** What a chat message names beside its summary (enforce: the shares whose notice is due within a day); Slack shows it. */
  highlight?(report: JobReport): { title: string; lines: string[] } | undefined;
  /** The last word, in terraform's manner: what the plan is and how to apply it, or what was applied. */
  closing?(report: JobReport): string;
}

/** "1 request", "2 requests", "0 retries": the one place a count meets its noun. */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The first `shown` of a list, and how many more: a warning or a line names a few, however many there are. */
export function firstOf(items: readonly (string | number)[], shown = 10): string {
  return `${items.slice(0, shown).join(", ")}${items.length > shown ? `, and ${items.length - shown} more` : ""}`;
}

/** What a closing line says, in the job's words. */
export interface ClosingWords {
  /** Actions planned (a dry run) or that were planned (an applying run). */
  planned: number;
  /** "every share in scope is allowed or exempt". */
  inPolicy: string;
  /** "94 shares to remove (68 project, 26 group)". */
  plan: string;
  /** "warden enforce --apply". */
  applyWith: string;
  /** "90 removed, 2 already gone, 1 skipped, 1 failed". */
  applied: string;
  /** Planned actions an applying run did not begin. */
  notBegun: number;
}

/** The closing line of a job with a guarded plan, in terraform's manner: "Plan: …. Apply with: …", "Applied: …", "No changes. …". */
export function closingLine(report: { dryRun: boolean; summary: { guard: "ok" | "tripped"; complete: boolean; unexamined?: number } }, words: ClosingWords): string {
  const { dryRun, summary } = report;
  if (words.planned === 0 && summary.complete) return `No changes: ${words.inPolicy}.`;
  const plan = `Plan${incompleteNote(summary)}: ${words.plan}.`;
  if (summary.guard === "tripped") return dryRun ? `${plan} An applying run would change nothing: the guard tripped (see the warnings).` : "Applied: nothing, the guard tripped (see the warnings).";
  if (dryRun) return summary.complete ? `${plan} Apply with: ${words.applyWith}` : plan;
  return `Applied: ${words.applied}${words.notBegun ? `; ${words.notBegun} not begun (see the warnings)` : ""}.`;
}

/** " (incomplete: …, see the warnings)" for a run that is not complete, else "". */
export function incompleteNote(summary: { complete: boolean; unexamined?: number }): string {
  if (summary.complete) return "";
  // Parts GitLab failed to answer for (enforce's unexamined) leave a run incomplete that went to its end.
  return ` (incomplete: ${summary.unexamined ? `${count(summary.unexamined, "part")} of the scope could not be examined` : "the run stopped early"}, see the warnings)`;
}
