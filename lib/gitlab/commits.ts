/**
 * One commit of file actions on a branch, and a merge request from it (real-behaviour-notes.md,
 * "Issues, commits and merge requests"). Both are POSTs, never retried once they may have arrived.
 * `lastCommitId` makes GitLab refuse (400) an update of a file changed meanwhile: a concurrent edit
 * fails cleanly instead of being overwritten. Developer or above.
 */
import type { GitLabApi } from "./api.ts";

export interface CommitAction {
  action: "create" | "update" | "delete" | "move";
  filePath: string;
  previousPath?: string;
  content?: string;
  lastCommitId?: string;
}

export interface NewCommit {
  branch: string;
  /** Creates `branch` from this one. */
  startBranch?: string;
  message: string;
  actions: readonly CommitAction[];
}

export interface Commit {
  id: string;
  short_id: string;
  parent_ids?: string[];
  web_url?: string;
}

export interface NewMergeRequest {
  sourceBranch: string;
  targetBranch: string;
  title: string;
  description?: string;
  removeSourceBranch?: boolean;
}

export interface MergeRequest {
  id: number;
  iid: number;
  web_url: string;
  source_branch: string;
  target_branch: string;
}

export async function createCommit(api: GitLabApi, project: string | number, commit: NewCommit, signal?: AbortSignal): Promise<Commit> {
  const body = {
    branch: commit.branch,
    start_branch: commit.startBranch,
    commit_message: commit.message,
    actions: commit.actions.map((a) => ({ action: a.action, file_path: a.filePath, previous_path: a.previousPath, content: a.content, last_commit_id: a.lastCommitId })),
  };
  return (await api.call<Commit>("POST", "/projects/:id/repository/commits", { id: project }, { body, signal })).data;
}

export async function createMergeRequest(api: GitLabApi, project: string | number, mr: NewMergeRequest, signal?: AbortSignal): Promise<MergeRequest> {
  const body = { source_branch: mr.sourceBranch, target_branch: mr.targetBranch, title: mr.title, description: mr.description, remove_source_branch: mr.removeSourceBranch };
  return (await api.call<MergeRequest>("POST", "/projects/:id/merge_requests", { id: project }, { body, signal })).data;
}
