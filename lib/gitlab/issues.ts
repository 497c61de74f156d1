/**
 * Issues (real-behaviour-notes.md, "Issues, commits and merge requests"): listed by keyset on
 * created_at where GitLab offers it (lib/paging's table), created and noted with POST (never retried
 * once it may have arrived: lib/http's rules), updated with PUT. Reporter or above to create.
 */
import type { ListOptions, Listing } from "../paging/index.ts";
import type { GitLabApi } from "./api.ts";

export interface ProjectIssue {
  id: number;
  iid: number;
  project_id: number;
  title: string;
  description: string | null;
  state: "opened" | "closed";
  labels: string[];
  assignees?: { id: number; username: string }[];
  /** YYYY-MM-DD or null: a person may move it at any time. */
  due_date: string | null;
  web_url: string;
  /** Who opened it: notices are read only from issues the token's own user opened. */
  author?: { id: number; username?: string };
  /** Set by GitLab, never editable: a notice's removal date is anchored to it once a person closed it. */
  created_at?: string;
  updated_at?: string;
  /** On a closed issue: when, and who closed it (null while open). */
  closed_at?: string | null;
  closed_by?: { id: number; username?: string } | null;
}

export interface NewIssue {
  title: string;
  description?: string;
  labels?: readonly string[];
  assigneeIds?: readonly number[];
  dueDate?: string;
  confidential?: boolean;
}

export interface IssueChange {
  stateEvent?: "close" | "reopen";
  dueDate?: string;
  description?: string;
  addLabels?: readonly string[];
}

export interface IssueNote {
  id: number;
  body: string;
}

const ISSUES = "/projects/:id/issues";
const ISSUE = "/projects/:id/issues/:iid";

export interface IssueFilter {
  labels?: readonly string[];
  state?: "opened" | "closed" | "all";
  /** Only issues updated at or after this time (ISO 8601). */
  updatedAfter?: string;
  /** Only issues this user opened. */
  authorId?: number;
}

/** Issues carrying every one of `labels`, in `state`, oldest first. */
export function listIssues(api: GitLabApi, project: string | number, filter: IssueFilter = {}, list?: ListOptions): Listing<ProjectIssue> {
  const query = { labels: filter.labels?.length ? filter.labels.join(",") : undefined, state: filter.state, updated_after: filter.updatedAfter, author_id: filter.authorId };
  return api.list(ISSUES, { id: project }, { query, order: { orderBy: "created_at", sort: "asc" }, ...(list ? { list } : {}) });
}

export async function createIssue(api: GitLabApi, project: string | number, issue: NewIssue, signal?: AbortSignal): Promise<ProjectIssue> {
  const body = {
    title: issue.title,
    description: issue.description,
    labels: issue.labels?.join(","),
    assignee_ids: issue.assigneeIds,
    due_date: issue.dueDate,
    confidential: issue.confidential,
  };
  return (await api.call<ProjectIssue>("POST", ISSUES, { id: project }, { body, signal })).data;
}

export async function updateIssue(api: GitLabApi, project: string | number, iid: number, change: IssueChange, signal?: AbortSignal): Promise<ProjectIssue> {
  const body = { state_event: change.stateEvent, due_date: change.dueDate, description: change.description, add_labels: change.addLabels?.join(",") };
  return (await api.call<ProjectIssue>("PUT", ISSUE, { id: project, iid }, { body, signal })).data;
}

export async function createIssueNote(api: GitLabApi, project: string | number, iid: number, body: string, signal?: AbortSignal): Promise<IssueNote> {
  return (await api.call<IssueNote>("POST", `${ISSUE}/notes`, { id: project, iid }, { body: { body }, signal })).data;
}

/** The user with this username, or undefined (GitLab answers `[]`). */
export async function userByUsername(api: GitLabApi, username: string, signal?: AbortSignal): Promise<{ id: number; username: string } | undefined> {
  const found = await api.get<{ id: number; username: string }[]>("/users", {}, { query: { username }, signal });
  return found.find((u) => u.username.toLowerCase() === username.toLowerCase());
}
