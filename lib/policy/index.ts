export { ACCESS_LEVEL_NAMES, ACCESS_LEVELS, accessLevelName } from "./access-levels.ts";
export type { AccessLevelName } from "./access-levels.ts";
export { authorizeSlack } from "./chatops.ts";
export { checkPolicy } from "./check.ts";
export type { ChatAuthz } from "./chatops.ts";
export { PolicyError } from "./errors.ts";
export type { PolicyIssue } from "./errors.ts";
export { compileGlob, globProblem, groupPathProblem, isProjectId, plainPathProblem } from "./glob.ts";
export type { GlobKind } from "./glob.ts";
export { formatBytes, MAX_POLICY_BYTES, parsePolicy, POLICY_PARSE_OPTIONS, policySha256 } from "./parse.ts";
export { evaluatePipeline } from "./pipelines.ts";
export type { PipelineRequest, PipelineVerdict } from "./pipelines.ts";
export { DEFAULT_EVENTS_MAX_REQUESTS_PER_HOUR, DEFAULT_MAX_REMOVALS, DEFAULT_MAX_WORKFLOW_CHANGES, DEFAULT_NOTIFY_LEVEL, NOTIFY_LEVELS, slackNotifyLevel } from "./policy.ts";
export type {
  ChatopsPolicy,
  GitlabPolicy,
  Glob,
  Grace,
  N8nPolicy,
  NotifyLevel,
  NoticesPolicy,
  NotifyPolicy,
  OnStray,
  PipelineRule,
  PipelinesPolicy,
  Policy,
  PolicyOrigin,
  PolicySource,
  ScopeOverride,
  ShareAllowRule,
  UnmatchedRules,
  ShareExemption,
  WorkflowSelector,
} from "./policy.ts";
export { addRuleCounts, emptyRuleCounts, forEveryInvitedGroup, isLiteral, lapsed, literalPaths, MAX_REASON_CHARS, reasonProblem, ruleSubject, ruleText, unmatchedRules } from "./rules.ts";
export type { LiteralPath, RuleCounts, RuleList, RuleRef } from "./rules.ts";
export { evaluateShare, inScope, maxRemovals, scopeGroups } from "./shares.ts";
export { DEFAULT_ON_STRAY, longestGraceHours, MAX_GRACE_DAYS, ON_STRAY, onStrayModes, parseGrace, strayHandling, unsupportedOnStray, within } from "./stray.ts";
export type { StrayHandling } from "./stray.ts";
export type { ShareInput, ShareKind, ShareVerdict } from "./shares.ts";
export { decideWorkflow, matchingSelectors, maxWorkflowChanges } from "./workflows.ts";
export type { WorkflowDecision, WorkflowInput } from "./workflows.ts";
export { checkExemptRequest, ExemptInputError, exemptRequestProblems, type ExemptProblem, type ExemptRequest } from "./exemption-request.ts";
