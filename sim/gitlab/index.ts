/** GitLab REST v4 loopback simulator: start it, point a client at `url`, inspect `dataset` and `counters`. */
export type { AuditEntityType, GitLabDataset, SimAuditEvent, Tier, SimGroup, SimGroupShare, SimMergeRequest, SimProject, SimShare, SimUser, Visibility } from "./dataset.ts";
export type { SimNote } from "./notes-store.ts";
export { ACCESS } from "./dataset.ts";
export type { Fault } from "./faults.ts";
export { generateOrganisation } from "./generate.ts";
export type { GenerateOptions, GroupShareIntent, ProjectShareIntent, ShareIntent } from "./generate.ts";
export type { ShareHistory } from "./generate-audit-events.ts";
export type { RateLimitRule } from "./rate-limit.ts";
export { startGitLabSim } from "./server.ts";
export type { AnswerHook, AnswerHookRequest, GitLabSim, GitLabSimOptions, RecordedRequest, SimCounters } from "./server.ts";
export type { Pipeline } from "./store.ts";
