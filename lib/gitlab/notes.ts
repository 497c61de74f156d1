/**
 * A merge request's notes (docs/api-contract.md, "Repository files and merge request
 * notes"): listed newest first by offset pages, written with POST (never retried once it may have
 * arrived: lib/http's retry rules) and edited with PUT (idempotent), each body as GitLab Flavored Markdown.
 */
import type { ListOptions, Listing } from "../paging/index.ts";
import type { GitLabApi } from "./api.ts";

export const MERGE_REQUEST = "/projects/:id/merge_requests/:iid";
export const MERGE_REQUEST_NOTES = "/projects/:id/merge_requests/:iid/notes";
export const MERGE_REQUEST_NOTE = "/projects/:id/merge_requests/:iid/notes/:note_id";

/** GitLab refuses a note longer than this. */
export const MAX_NOTE_CHARS = 1_000_000;

export interface MergeRequestNote {
  id: number;
  body: string;
  author?: { id: number; username?: string };
  system?: boolean;
}

/** Which merge request: its project (id or full path) and its iid. */
export interface MergeRequestRef {
  project: string | number;
  iid: number;
}

export function listMergeRequestNotes(api: GitLabApi, mr: MergeRequestRef, list?: ListOptions): Listing<MergeRequestNote> {
  return api.list(MERGE_REQUEST_NOTES, { id: mr.project, iid: mr.iid }, { order: { orderBy: "created_at", sort: "desc" }, ...(list ? { list } : {}) });
}

export async function createMergeRequestNote(api: GitLabApi, mr: MergeRequestRef, body: string, signal?: AbortSignal): Promise<MergeRequestNote> {
  return (await api.call<MergeRequestNote>("POST", MERGE_REQUEST_NOTES, { id: mr.project, iid: mr.iid }, { body: { body }, signal })).data;
}

export async function updateMergeRequestNote(api: GitLabApi, mr: MergeRequestRef, noteId: number, body: string, signal?: AbortSignal): Promise<MergeRequestNote> {
  return (await api.call<MergeRequestNote>("PUT", MERGE_REQUEST_NOTE, { id: mr.project, iid: mr.iid, note_id: noteId }, { body: { body }, signal })).data;
}

/** The merge request's head (its source branch's commit, `sha`), or undefined where GitLab gives none. */
export async function mergeRequestHead(api: GitLabApi, mr: MergeRequestRef, signal?: AbortSignal): Promise<string | undefined> {
  const { sha } = await api.get<{ sha?: unknown }>(MERGE_REQUEST, { id: mr.project, iid: mr.iid }, signal ? { signal } : {});
  return typeof sha === "string" && sha !== "" ? sha : undefined;
}
