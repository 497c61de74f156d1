/** What restore reports, and its options: shared by the job and its view. */
import type { GitLabClient } from "../../gitlab/index.ts";
import type { Policy } from "../../policy/index.ts";
import type { GuardedSummary, JobOptions, Report } from "../report/index.ts";
import type { RemovedShare } from "../shares/plan.ts";
import type { RestoreInput } from "./input.ts";

/**
 * "planned": would be re-created (a dry run, or a run stopped before it); "already-present": a share
 * with that group exists (its level or expiry may differ, and is left as it is); "skipped": its expiry
 * has passed, so GitLab would delete it again that night, or the current policy does not allow it.
 */
export type RestoreStatus = "planned" | "done" | "already-present" | "skipped" | "failed";

/**
 * What the current policy says of the share as it would be re-created, judged by the paths GitLab
 * gives for the ids (never the names the input gives, which whoever wrote it chose): "allowed" or
 * "exempt" by `rule`; "stray" or "out-of-scope" with `reason` (the next sweep would remove it again).
 */
export type PolicyCheck =
  | { verdict: "allowed" | "exempt"; rule: string; /** An exemption of every share of the subject that no allow rule backs: why none allows it. */ unallowed?: string }
  | { verdict: "stray" | "out-of-scope"; reason: string };

/** A removal from the input, with the same identifying fields, and what became of its restore. */
export type RestoreAction = RemovedShare & {
  type: "restore-share" | "restore-group-share";
  status: RestoreStatus;
  /** Set once the share has been judged (a share present, expired or unreadable is not). */
  policy?: PolicyCheck;
  /** Why it is already-present, skipped or done after a check, or re-created though the policy does not allow it. */
  note?: string;
  error?: string;
};

export interface RestoreSummary extends GuardedSummary {
  /** Where the removals came from: a stored run's s3:// name (and which run "latest" chose), or the input's kind. */
  from: string;
  /** Shares to re-create once read (planned before any was created). */
  restores: number;
  restored: number;
  alreadyPresent: number;
  skipped: number;
  failed: number;
  /** Shares the current policy does not allow (stray or out of its scope): skipped, or re-created when includeStray. */
  notAllowed: number;
  includeStray: boolean;
  maxRestores: number;
}

export type RestoreReport = Report<RestoreAction, RestoreSummary>;

export interface RestoreOptions extends Omit<JobOptions, "policy"> {
  /** The current policy: each share is judged by it, and it sets the guard (gitlab.guard.maxRemovals). */
  policy: Policy;
  gitlab: GitLabClient;
  input: RestoreInput;
  /**
   * Re-create shares the policy does not allow too (a warning says the next sweep removes them again).
   * Without it such a share is skipped: whoever wrote the input chose every share and level in it, and
   * the policy bounds what a restore may bring back.
   */
  includeStray?: boolean;
  /** The guard; default the policy's gitlab.guard.maxRemovals. */
  maxRestores?: number;
  now?: Date;
}
