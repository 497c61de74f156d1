export { GitLabClient } from "./client.ts";
export { sharesAnswer } from "./answer-shapes.ts";
export { developerTagRule } from "./protected-tags.ts";
export { tokenUser, type TokenUser } from "./token-user.ts";
export { instanceUrl } from "./api.ts";
export type { GitLabClientOptions, ListCall } from "./api.ts";
export type { NewShare, ShareOutcome, UnshareOutcome } from "./shares.ts";
export { SHARE_ACCESS_LEVELS } from "./shares.ts";
export { fillPath, isTrue, serializeQuery, type Query } from "./encode.ts";
export type * from "./types.ts";
// Jobs handle the errors of the calls they make through this client, not lib/http's directly.
export { HttpError, NetworkError } from "../http/index.ts";
export { AUDIT_EVENT_ROUTES, AUDIT_WINDOW_DAYS, auditWindows, getUser, listAuditEvents, newerThan } from "./audit-events.ts";
export type { AuditEntityType, AuditEvent, AuditEventDetails, AuditSource, AuditWindow } from "./audit-events.ts";
export { commitIsOn, DEFAULT_BRANCH_REF, FileContentError, readRepositoryFile, type FileAtRef } from "./files.ts";
export { createIssue, createIssueNote, listIssues, updateIssue, userByUsername } from "./issues.ts";
export type { IssueChange, IssueNote, NewIssue, ProjectIssue } from "./issues.ts";
export { createCommit, createMergeRequest } from "./commits.ts";
export type { Commit, CommitAction, MergeRequest, NewCommit, NewMergeRequest } from "./commits.ts";
