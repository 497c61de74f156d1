/** What restore reports, and its options: shared by the job and its view. */
import type { GitLabClient } from "../../gitlab/index.ts";
import type { Policy } from "../../policy/index.ts";
import type { GuardedSummary, JobOptions, Report } from "../report.ts";
import type { RemovedShare } from "../shares/plan.ts";
import type { RestoreInput } from "./input.ts";

/**
 * "planned": would be re-created (a dry run, or a run stopped before it); "already-present": a share
 * with that group exists (its level or expiry may differ, and is left as it is); "skipped": its expiry
 * has passed, so GitLab would delete it again that night.
 */
export type RestoreStatus = "planned" | "done" | "already-present" | "skipped" | "failed";

/** A removal from the input, with the same identifying fields, and what became of its restore. */
export type RestoreAction = RemovedShare & {
  type: "restore-share" | "restore-group-share";
  status: RestoreStatus;
  /** Why it is already-present, skipped or done after a check. */
  note?: string;
  error?: string;
};

export interface RestoreSummary extends GuardedSummary {
  /** Shares to re-create once read (planned before any was created). */
  restores: number;
  restored: number;
  alreadyPresent: number;
  skipped: number;
  failed: number;
  maxRestores: number;
}

export type RestoreReport = Report<RestoreAction, RestoreSummary>;

/** The guard when neither --max-restores nor a policy sets one: restore needs no policy file. */
export const DEFAULT_MAX_RESTORES = 100;

export interface RestoreOptions extends Omit<JobOptions, "policy"> {
  /** Only for its guard (gitlab.guard.maxRemovals); without one the guard is DEFAULT_MAX_RESTORES. */
  policy?: Policy;
  gitlab: GitLabClient;
  input: RestoreInput;
  /** The guard; default the policy's gitlab.guard.maxRemovals, else DEFAULT_MAX_RESTORES. */
  maxRestores?: number;
  now?: Date;
}
