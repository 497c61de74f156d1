export { GitLabClient, type GitLabClientOptions, type ListCall, type UnshareOutcome } from "./client.ts";
export { fillPath, isTrue, serializeQuery, type Query } from "./encode.ts";
export type * from "./types.ts";
