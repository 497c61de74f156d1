import { listGroupAuditEvents, listInstanceAuditEvents, listProjectAuditEvents } from "./audit-events.ts";
import type { Handler } from "./context.ts";
import { getApplicationStatistics, getCurrentUser } from "./current-user.ts";
import { getGroup, getUser, getNamespace, listDescendantGroups, listGroups, listNamespaces, listSubgroups } from "./groups.ts";
import { getIssue, listIssueNotes } from "./issues.ts";
import { createIssue, createIssueNote, listIssues, updateIssue } from "./issues-api.ts";
import { createCommit, createMergeRequest, listUsers } from "./commits.ts";
import { createMergeRequestNote, getMergeRequest, listMergeRequestNotes, updateMergeRequestNote } from "./notes.ts";
import { cancelPipeline, createPipeline } from "./pipelines.ts";
import { lintProjectCi } from "./ci-lint.ts";
import { getProtectedTag, listProtectedTags } from "./protected-refs.ts";
import { getProject, listGroupProjects, listProjects } from "./projects.ts";
import { getMergeBase } from "./merge-base.ts";
import { getBranch, getFile, getTag } from "./repository.ts";
import { shareGroup, shareProject, unshareGroup, unshareProject } from "./shares.ts";

export interface Route {
  method: string;
  /** "GET /projects/:id": the name counters, faults and rate limits use. */
  key: string;
  /** Open to requests without a token. */
  anonymous: boolean;
  handler: Handler;
  segments: readonly string[];
}

const route = (method: string, template: string, handler: Handler, anonymous = false): Route => ({
  method,
  key: `${method} ${template}`,
  anonymous,
  handler,
  segments: template.slice(1).split("/"),
});

const ROUTES: readonly Route[] = [
  route("GET", "/user", getCurrentUser),
  route("GET", "/application/statistics", getApplicationStatistics),
  route("GET", "/users/:id", getUser),
  route("GET", "/audit_events", listInstanceAuditEvents),
  route("GET", "/groups/:id/audit_events", listGroupAuditEvents),
  route("GET", "/projects/:id/audit_events", listProjectAuditEvents),
  route("GET", "/namespaces", listNamespaces),
  route("GET", "/namespaces/:id", getNamespace),
  route("GET", "/groups", listGroups, true),
  route("GET", "/groups/:id", getGroup),
  route("GET", "/groups/:id/subgroups", listSubgroups),
  route("GET", "/groups/:id/descendant_groups", listDescendantGroups),
  route("GET", "/groups/:id/projects", listGroupProjects),
  route("POST", "/groups/:id/share", shareGroup),
  route("DELETE", "/groups/:id/share/:group_id", unshareGroup),
  route("GET", "/projects", listProjects, true),
  route("GET", "/projects/:id", getProject),
  route("POST", "/projects/:id/share", shareProject),
  route("DELETE", "/projects/:id/share/:group_id", unshareProject),
  route("POST", "/projects/:id/pipeline", createPipeline),
  route("POST", "/projects/:id/pipelines/:pipeline_id/cancel", cancelPipeline),
  route("GET", "/projects/:id/ci/lint", lintProjectCi),
  route("GET", "/projects/:id/issues/:iid", getIssue),
  route("GET", "/users", listUsers),
  route("GET", "/projects/:id/issues", listIssues),
  route("POST", "/projects/:id/issues", createIssue),
  route("PUT", "/projects/:id/issues/:iid", updateIssue),
  route("POST", "/projects/:id/issues/:iid/notes", createIssueNote),
  route("POST", "/projects/:id/repository/commits", createCommit),
  route("POST", "/projects/:id/merge_requests", createMergeRequest),
  route("GET", "/projects/:id/issues/:iid/notes", listIssueNotes),
  route("GET", "/projects/:id/merge_requests/:iid", getMergeRequest),
  route("GET", "/projects/:id/merge_requests/:iid/notes", listMergeRequestNotes),
  route("POST", "/projects/:id/merge_requests/:iid/notes", createMergeRequestNote),
  route("PUT", "/projects/:id/merge_requests/:iid/notes/:note_id", updateMergeRequestNote),
  route("GET", "/projects/:id/repository/files/:file_path", getFile),
  route("HEAD", "/projects/:id/repository/files/:file_path", getFile),
  route("GET", "/projects/:id/repository/branches/:branch", getBranch),
  route("GET", "/projects/:id/repository/merge_base", getMergeBase),
  route("GET", "/projects/:id/repository/tags/:tag", getTag),
  route("GET", "/projects/:id/protected_tags", listProtectedTags),
  route("GET", "/projects/:id/protected_tags/:name", getProtectedTag),
];

const PREFIX = "/api/v4/";

/**
 * Matches the raw, still-encoded path segment by segment, then decodes each parameter: `%2F` stays
 * inside its parameter, and an unencoded `/` adds a segment that no route has.
 */
export function matchRoute(method: string, rawPath: string): { route: Route; path: Record<string, string> } | undefined {
  if (!rawPath.startsWith(PREFIX)) return undefined;
  const segments = rawPath.slice(PREFIX.length).split("/");
  for (const r of ROUTES) {
    if (r.method !== method || r.segments.length !== segments.length) continue;
    const path = bind(r.segments, segments);
    if (path) return { route: r, path };
  }
  return undefined;
}

function bind(template: readonly string[], segments: readonly string[]): Record<string, string> | undefined {
  const path: Record<string, string> = {};
  for (const [i, t] of template.entries()) {
    const s = segments[i]!;
    if (!t.startsWith(":")) {
      if (t !== s) return undefined;
      continue;
    }
    if (!s) return undefined;
    try {
      path[t.slice(1)] = decodeURIComponent(s);
    } catch {
      return undefined;
    }
  }
  return path;
}
