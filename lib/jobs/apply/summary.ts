/** What apply reports and takes: shared by the job and its view. */
import type { GitLabClient } from "../../gitlab/index.ts";
import type { GuardedSummary, JobOptions, Report } from "../report/index.ts";
import type { RemovalCounts, ShareRemoval } from "../shares/plan.ts";
import type { PlanFile } from "../shares/plan-file.ts";

/** Enforce's counts of removals, by the same names; the examination's are not the apply's to give. */
export type ApplySummary = RemovalCounts & GuardedSummary;
export type ApplyReport = Report<ShareRemoval, ApplySummary>;

export interface ApplyOptions extends JobOptions {
  gitlab: GitLabClient;
  /** A plan readPlanFile checked; `policy` is its policy, parsed again from the text it records. */
  plan: PlanFile;
  /**
   * Its signature was verified with WARDEN_PLAN_KEY: what it says of who added each share is Warden's own.
   * Otherwise whoever may edit the artifact wrote it, and the report and audit lines do not repeat it.
   */
  signed?: boolean;
  now?: Date;
}
