/**
 * The notices project a policy names (gitlab.shares.notices.project), checked online: notices are
 * issues there, so a project the token cannot read (a typo, no membership) would fail every notice.
 */
import type { GitLabClient } from "../../gitlab/index.ts";
import type { Policy } from "../../policy/index.ts";

/** A warning when the notices project is missing, unreadable, archived, moved or not private; undefined when it is fine (or none is named). One GET. */
export async function noticesProjectWarning(gitlab: GitLabClient, policy: Policy, signal?: AbortSignal): Promise<string | undefined> {
  const path = policy.gitlab?.shares.notices?.project;
  if (path === undefined) return undefined;
  const project = await gitlab.findProject(path, signal);
  if (project === undefined) return `gitlab.shares.notices.project: project ${path} was not found, or the token cannot read it: no notice could be opened there`;
  if (project.archived === true) return `gitlab.shares.notices.project: project ${path} is archived: GitLab opens no issue in it`;
  // GitLab redirects a moved project's old path for reads, and refuses every write through it (405). An
  // id (the advice below) is no path: it never moves.
  if (!/^\d+$/.test(path) && project.path_with_namespace.toLowerCase() !== path.toLowerCase()) return `gitlab.shares.notices.project: project ${path} has moved to ${project.path_with_namespace}: GitLab opens no issue through its old path; name it by id (${project.id})`;
  // Notices are confidential, but the label that names each one's share is the project's, and GitLab lists a
  // project's labels to whoever may read the project: which project (by id) has a stray share with which group.
  if (project.visibility === "internal" || project.visibility === "public") {
    return `gitlab.shares.notices.project: project ${path} is ${project.visibility}: its notices are confidential, but their labels (warden-share::project:<id>:group:<id>, one per stray share, private projects' too) are listed to whoever can read the project; make it private`;
  }
  return undefined;
}
