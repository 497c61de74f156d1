/**
 * `POST /projects/:id/repository/commits` and `POST /projects/:id/merge_requests`, over what tests
 * committed (repository-store.ts), as GitLab's Commits::CreateService and MergeRequests::CreateService
 * answer; both need Developer or above (a protected branch, Maintainer).
 *
 * A commit: `branch`, `commit_message`, `actions` [{ action create|update|delete|move, file_path,
 * previous_path (move), content, last_commit_id }], and `start_branch` to create `branch` from. A
 * `last_commit_id` that is not the path's last commit is 400 "You are attempting to update a file that
 * has changed since you started editing it." A `start_branch` naming a branch other than an existing
 * `branch` is 400 "A branch called … already exists" (GitLab's validate_branch_existence!, from its
 * source, not the notes); `branch` missing without `start_branch` is 400.
 *
 * A merge request: `source_branch`, `target_branch`, `title` (required), `description`,
 * `remove_source_branch`; 409 while an open one has that source branch.
 */
import { boolParam, invalid, stringParam, type Handler, type RequestContext } from "./context.ts";
import { ACCESS } from "./dataset.ts";
import { apiError } from "./http.ts";
import { findProject } from "./projects.ts";
import { developersCanPush, isProtectedBranch } from "./protected-refs.ts";
import { listOf } from "./query.ts";
import { requireLevel } from "./roles.ts";

const required = (ctx: RequestContext, name: string): string => {
  const value = stringParam(ctx, name);
  if (!value) throw invalid(name, "is missing");
  return value;
};

const refused = (message: string) => apiError(400, message);

export const createCommit: Handler = (ctx) => {
  const project = findProject(ctx);
  const branch = required(ctx, "branch");
  const message = required(ctx, "commit_message");
  const start = stringParam(ctx, "start_branch");
  const actions = listOf(ctx.params["actions"]);
  if (!actions || actions.length === 0) throw invalid("actions", "is missing");
  const repos = ctx.store.repositories;
  requireLevel(project, ctx, repos.resolve(project, branch) && isProtectedBranch(project, branch) && !developersCanPush(project, branch) ? ACCESS.maintainer : ACCESS.developer);
  const head = project.branches.includes(branch) ? repos.resolve(project, branch) : undefined;
  if (head && start !== undefined && start !== branch) throw refused(`A branch called '${branch}' already exists. Switch to that branch in order to make changes`);
  const base = head ?? (start === undefined ? undefined : repos.resolve(project, start));
  if (!base) throw refused(start === undefined ? "You can only create or edit files when you are on a branch" : "Invalid start branch");
  const files: Record<string, string | null> = {};
  for (const raw of actions) {
    const action = (raw ?? {}) as Record<string, unknown>;
    const path = typeof action["file_path"] === "string" ? action["file_path"] : "";
    if (!path) throw invalid("actions[file_path]", "is missing");
    const existing = base.files.get(path);
    const last = action["last_commit_id"];
    if (last !== undefined && existing && last !== existing.lastCommitId) throw refused("You are attempting to update a file that has changed since you started editing it.");
    const content = typeof action["content"] === "string" ? action["content"] : "";
    switch (action["action"]) {
      case "create":
        if (existing) throw refused("A file with this name already exists");
        files[path] = content;
        break;
      case "update":
        if (!existing) throw refused("A file with this name doesn't exist");
        files[path] = content;
        break;
      case "delete":
        if (!existing) throw refused("A file with this name doesn't exist");
        files[path] = null;
        break;
      case "move": {
        const from = typeof action["previous_path"] === "string" ? action["previous_path"] : "";
        const moved = base.files.get(from);
        if (!moved) throw refused("A file with this name doesn't exist");
        files[from] = null;
        files[path] = typeof action["content"] === "string" ? content : moved.content.toString("utf8");
        break;
      }
      default:
        throw invalid("actions[action]", "does not have a valid value");
    }
  }
  const id = repos.commit(project, files, branch, base.id === head?.id ? branch : start, message);
  const created_at = new Date().toISOString();
  return {
    status: 201,
    body: { id, short_id: id.slice(0, 8), title: message.split("\n")[0], message, parent_ids: [base.id], created_at, committed_date: created_at, web_url: `${ctx.baseUrl}/${project.path_with_namespace}/-/commit/${id}` },
  };
};

export const createMergeRequest: Handler = (ctx) => {
  const project = findProject(ctx);
  requireLevel(project, ctx, ACCESS.developer);
  const source = required(ctx, "source_branch");
  const target = required(ctx, "target_branch");
  const title = required(ctx, "title");
  const work = ctx.store.work;
  const list = work.mergeRequestsOf(project.id);
  const open = list.find((mr) => mr.state === "opened" && mr.source_branch === source);
  if (open) throw apiError(409, [`Another open merge request already exists for this source branch: !${open.iid}`]);
  const head = ctx.store.repositories.resolve(project, source);
  if (!project.branches.includes(source) || !head) throw apiError(400, { source_branch: ["is invalid"] });
  if (!project.branches.includes(target)) throw apiError(400, { target_branch: ["is invalid"] });
  const seeded = (ctx.store.dataset.mergeRequests ?? []).filter((mr) => mr.project_id === project.id).map((mr) => mr.iid);
  const iid = Math.max(0, ...seeded, ...list.map((mr) => mr.iid)) + 1;
  const caller = ctx.caller!;
  const mr = {
    id: work.nextId(), iid, project_id: project.id, title, description: stringParam(ctx, "description") ?? null, state: "opened" as const,
    source_branch: source, target_branch: target, force_remove_source_branch: boolParam(ctx, "remove_source_branch", false),
    sha: head.id, author: { id: caller.id, username: caller.username, name: caller.name ?? caller.username }, created_at: work.tick(),
    web_url: `${ctx.baseUrl}/${project.path_with_namespace}/-/merge_requests/${iid}`,
  };
  list.push(mr);
  return { status: 201, body: mr };
};

/** `GET /users?username=NAME`: a list of the one user of that name (any case), `[]` when none; the simulator lists no users without a name. */
export const listUsers: Handler = (ctx) => {
  const username = stringParam(ctx, "username");
  if (username === undefined) throw invalid("username", "is missing");
  const user = ctx.store.userByUsername(username);
  return { status: 200, body: user ? [{ id: user.id, username: user.username, name: user.name, state: "active" }] : [] };
};
