/**
 * The jobs' face: what the front ends (bin/, functions/) may import of lib/jobs, besides a folder's
 * own index.ts (render/, report/, events/, watch/, …). Everything else in lib/jobs is internal, and
 * test/architecture.test.ts holds it so.
 */
export { enforce } from "./enforce/index.ts";
export { noticesProjectWarning } from "./enforce/notices.ts";
export { publishMergeRequestNote } from "./enforce/mr-note.ts";
export { enforceProgressText } from "./enforce/view.ts";
export { missedByEvents, missedWarning, silenceWarning, type EventDelivery } from "./enforce/missed.ts";
export { applyPlan } from "./apply/index.ts";
export type { ApplyOptions, ApplyReport, ApplySummary } from "./apply/summary.ts";
export { checkPlanPolicy, type GivenPolicy, type TrustLocation } from "./apply/plan-policy.ts";
export { MIN_PLAN_KEY_LENGTH, planFile, PlanFileError, readPlanFile, writePlanFile, type PlanFile, type PlannedRemoval } from "./shares/plan-file.ts";
export { writeFileAtomically, writeWhole } from "./atomic-file.ts";
export { ScopeError } from "./enforce/examine/scope.ts";
export { DEFAULT_LIST_CONCURRENCY, DEFAULT_REMOVAL_CONCURRENCY, type EnforceOptions, type EnforceReport, type EnforceSummary, type RemovalBudget } from "./enforce/summary.ts";
export { sweepAfter, sweepOf, type LastSweep } from "./enforce/rules.ts";
export type { EnforceTarget } from "./enforce/summary.ts";
export type { RemoveGroupShareAction, RemoveShareAction, ShareRemoval, ShareStatus } from "./shares/plan.ts";
export { runPipeline, type PipelineAction, type PipelineOptions, type PipelineReport } from "./pipeline/index.ts";
export { N8nAccessError, reconcileWorkflows, type WorkflowAction, type WorkflowsOptions, type WorkflowsReport, type WorkflowsSummary } from "./workflows/index.ts";
export { restore } from "./restore/index.ts";
export { isStoredRun, parseRestoreText, parseRestoreTextFrom, restoreInputFrom, RestoreInputError, type RestoreInput } from "./restore/input.ts";
export { checkRunRef, RunHistoryError, runKey, runReader, storedRestoreInput, type RunReader, type Trigger } from "./restore/run-history.ts";
export type { RestoreAction, RestoreOptions, RestoreReport, RestoreSummary } from "./restore/summary.ts";
export { escapeMrkdwn, renderSlack, renderText, type SlackMessage } from "./render/index.ts";
export { errorText, exitCode, mayHaveChanged, type AuditSink, type JobStats, type Report } from "./report/index.ts";
export { DEADLINE_ATTEMPTS, direct, type Steps } from "./steps.ts";
export { count, firstOf } from "./view.ts";
export { WARDEN_VERSION } from "./version.ts";
