export { enforce, ScopeError, type EnforceOptions, type EnforceReport, type EnforceSummary, type RemoveGroupShareAction, type RemoveShareAction, type ShareRemoval, type ShareStatus } from "./enforce.ts";
export { runPipeline, type PipelineAction, type PipelineOptions, type PipelineReport } from "./pipeline.ts";
export { N8nAccessError, reconcileWorkflows, type WorkflowAction, type WorkflowsOptions, type WorkflowsReport, type WorkflowsSummary } from "./workflows.ts";
export { parseRestoreText, restore, restoreInputFrom, RestoreInputError, type RestoreAction, type RestoreInput, type RestoreOptions, type RestoreReport, type RestoreSummary } from "./restore.ts";
export { renderSlack, renderText, type SlackMessage } from "./render.ts";
export { errorText, exitCode, type AuditSink, type JobStats, type Report } from "./report.ts";
