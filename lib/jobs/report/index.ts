/** The one report shape every job returns and every front end renders (CLI, Lambda, Slack). */
import type { Policy, PolicySource } from "../../policy/index.ts";

export type JobName = "enforce" | "apply" | "workflows" | "pipeline" | "restore" | "review";

export interface JobStats {
  requests: number;
  retries: number;
  rateLimited: number;
  pages: number;
  durationMs: number;
  /** enforce: requests to GitLab's audit event endpoints, to attribute removals (lib/jobs/enforce/attribution.ts). */
  auditRequests?: number;
  /** enforce: attribution's own budget of audit-event requests, those it sent, and whether it stopped there; absent when nothing was attributed. */
  attribution?: { requests: number; budget: number; stoppedAtBudget: boolean };
  /** The lowest limit of requests in flight to a service, once it pushed back with 429s (lib/http/concurrency.ts); absent if none did. */
  lowestConcurrency?: number;
  /** A durable execution's: the invocations that did its work, and its steps (functions/shared/durable/steps.ts). */
  invocations?: number;
  steps?: number;
}

/** The version of the report's JSON form (docs/report.schema.json): raised when a field changes meaning or goes. */
export const REPORT_SCHEMA_VERSION = 1;

/** What every report says of its run, besides its results (lib/jobs/envelope.ts fills it in). */
export interface RunRecord {
  schemaVersion: typeof REPORT_SCHEMA_VERSION;
  job: JobName;
  /** Warden's version (lib/jobs/version.ts). */
  version: string;
  /** The GitLab instance's origin (scheme, host, port), for a job that talks to GitLab. */
  gitlabUrl?: string;
  /** The policy the run was judged by: where it came from and the SHA-256 of its text; null in a restore's report written before restores were judged by the policy. */
  policy: PolicySource | null;
  /** ISO 8601. */
  startedAt: string;
  finishedAt: string;
  dryRun: boolean;
}

export interface Report<Action, Summary> extends RunRecord {
  summary: Summary;
  actions: Action[];
  stats: JobStats;
  warnings: string[];
}

/** Summaries of jobs with a plan carry the guard's verdict and whether the listing was complete. */
export interface GuardedSummary {
  guard: "ok" | "tripped";
  complete: boolean;
}

/** Statuses of an action that went wrong: failed, outcome unknown (a pipeline), or refused. */
export const FAILED_STATUSES: ReadonlySet<string> = new Set(["failed", "unknown", "refused"]);

/**
 * An action of an applying run that may have changed something though it is not reported done: its
 * answer was lost (`unknown`: a pipeline GitLab may have started), or a pipeline started and then failed
 * (it ran another commit than the one checked: cancelled, or still running with Warden's identity if the
 * cancel failed). Whoever is told of changes is told of these.
 */
export function mayHaveChanged(action: { status: string; pipelineId?: unknown }): boolean {
  return action.status === "unknown" || action.pipelineId !== undefined;
}

/**
 * Exit codes shared by every front end: 0 in policy or all applied, 1 error (or work left undone),
 * 2 a dry run found work, 3 the guard tripped and nothing changed.
 */
export function exitCode(report: Report<{ status: string }, object>): 0 | 1 | 2 | 3 {
  const summary: Partial<GuardedSummary> = report.summary;
  // A comparison of policies (enforce --compare-policy-ref) is judged by the difference alone: it never applies.
  const { comparison } = report as { comparison?: Record<string, unknown> };
  if (comparison) return summary.complete === false ? 1 : Object.values(comparison).some((v) => Array.isArray(v) && v.length > 0) ? 2 : 0;
  if (summary.guard === "tripped") return 3;
  // A target GitLab failed to read (enforce's unreadTargets), a notice it would not let the run close
  // (notices.closed), or notices it would not let the run read, is work left undone, as a failed removal is.
  const { unreadTargets, notices } = report as { unreadTargets?: unknown[]; notices?: { closed?: { status: string }[]; unreadable?: true } };
  const failedClosure = notices?.closed?.some((closure) => FAILED_STATUSES.has(closure.status));
  if (summary.complete === false || unreadTargets?.length || failedClosure || notices?.unreadable || report.actions.some((a) => FAILED_STATUSES.has(a.status))) return 1;
  // "notify": a notice to open (enforce under onStray notify), work as a removal planned is.
  if (report.actions.some((a) => a.status === "planned" || a.status === "notify")) return report.dryRun ? 2 : 1;
  return 0;
}

/** How many actions have this status: summaries count their actions by status. */
export function countStatus<S extends string>(actions: readonly { status: S }[], status: NoInfer<S>): number {
  return actions.filter((a) => a.status === status).length;
}

/** Anything with lib/http's per-run counters: a GitLab or n8n client's `http`. */
interface Counted {
  stats: { snapshot(): { requests: number; retries: number; rateLimited: number; pages: number; lowestConcurrency?: number } };
}

export function jobStats(clients: Counted[], startedAt: number): JobStats {
  const stats = { requests: 0, retries: 0, rateLimited: 0, pages: 0, durationMs: Date.now() - startedAt };
  for (const { stats: recorder } of clients) {
    const s = recorder.snapshot();
    stats.requests += s.requests;
    stats.retries += s.retries;
    stats.rateLimited += s.rateLimited;
    stats.pages += s.pages;
  }
  return { ...stats, ...concurrencyStat(clients) };
}

/** `lowestConcurrency` of the clients that met pushback, as a field to spread into stats (none if none did). */
export function concurrencyStat(clients: Counted[]): Pick<JobStats, "lowestConcurrency"> {
  const lowest = Math.min(...clients.map(({ stats }) => stats.snapshot().lowestConcurrency ?? Infinity));
  return Number.isFinite(lowest) ? { lowestConcurrency: lowest } : {};
}

/** What every job that plans and applies takes, besides its client. */
export interface JobOptions {
  policy: Policy;
  /** Dry run unless true. */
  apply?: boolean;
  /** Changes in flight at once. */
  concurrency?: number;
  /** Stops new work; the report then says what was done and where it stopped. */
  signal?: AbortSignal;
  /** One line per change made. */
  audit?: AuditSink;
}

/** Where each action is written as one structured line (Powertools Logger in Lambda, JSON lines in the CLI). */
export interface AuditSink {
  info(message: string, fields: Record<string, unknown>): void;
}

/** The sink with every line naming the policy its change was judged by (source and SHA-256, the commit for GitLab). */
export function auditedUnder(sink: AuditSink | undefined, policy: Policy | undefined): AuditSink | undefined {
  if (!sink || !policy) return sink;
  return { info: (message, fields) => sink.info(message, { ...fields, policy: policy.source }) };
}

/** For an action stopped mid-request: the request may have reached the service, so its outcome is unknown. */
export function stoppedMidRequest(signal: AbortSignal, doing: string): string {
  return `stopped while ${doing} (${errorText(signal.reason)}): it may or may not have happened; the next run converges`;
}

/** Errors in reports carry only their message: lib/http has already redacted it, and stacks are noise there. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
