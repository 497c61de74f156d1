/**
 * Every job's report is made here: its results in the one envelope (lib/jobs/report/'s RunRecord)
 * — schema version, Warden's version, the GitLab origin, the policy, when — and each access level
 * named beside its number, so a reader of the JSON needs no table.
 */
import { accessLevelName, type Policy } from "../policy/index.ts";
import { WARDEN_VERSION } from "./version.ts";
import { REPORT_SCHEMA_VERSION, type JobName, type JobStats, type Report } from "./report/index.ts";

export interface RunFacts {
  job: JobName;
  dryRun: boolean;
  /** Every job now runs under a policy; undefined is kept for the reports' null (older restores had none). */
  policy: Policy | undefined;
  /** The GitLab client's HTTP layer, for a job that talks to GitLab. */
  /** The GitLab the run read (its instanceUrl: origin and path prefix), recorded as the report's gitlabUrl. */
  gitlab?: { instanceUrl: string };
  /** Epoch milliseconds. */
  startedAt: number;
  finishedAt?: number;
}

export interface RunResults<Action, Summary> {
  summary: Summary;
  actions: Action[];
  stats: JobStats;
  warnings: string[];
}

export function makeReport<Action extends object, Summary>(run: RunFacts, results: RunResults<Action, Summary>): Report<Action, Summary> {
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    job: run.job,
    version: WARDEN_VERSION,
    ...(run.gitlab ? { gitlabUrl: run.gitlab.instanceUrl } : {}),
    policy: run.policy?.source ?? null,
    startedAt: new Date(run.startedAt).toISOString(),
    finishedAt: new Date(run.finishedAt ?? Date.now()).toISOString(),
    dryRun: run.dryRun,
    summary: results.summary,
    actions: results.actions.map(withLevelName),
    stats: results.stats,
    warnings: results.warnings,
  };
}

/** A copy of the action with `accessLevelName` right after its `accessLevel` (if it has one). */
export function withLevelName<Action extends object>(action: Action): Action {
  const level = (action as { accessLevel?: unknown }).accessLevel;
  if (typeof level !== "number") return action;
  const entries = Object.entries(action).filter(([key]) => key !== "accessLevelName");
  return Object.fromEntries(entries.flatMap(([key, value]) => (key === "accessLevel" ? [[key, value], ["accessLevelName", accessLevelName(level)]] : [[key, value]]))) as Action;
}
