/**
 * The notices project a policy names (gitlab.shares.notices.project), checked online: notices are
 * issues there, so a project the token cannot read (a typo, no membership) would fail every notice.
 */
import type { GitLabClient } from "../../gitlab/index.ts";
import type { Policy } from "../../policy/index.ts";

/** A warning when the notices project is missing, unreadable or archived; undefined when it is fine (or none is named). One GET. */
export async function noticesProjectWarning(gitlab: GitLabClient, policy: Policy, signal?: AbortSignal): Promise<string | undefined> {
  const path = policy.gitlab?.shares.notices?.project;
  if (path === undefined) return undefined;
  const project = await gitlab.findProject(path, signal);
  if (project === undefined) return `gitlab.shares.notices.project: project ${path} was not found, or the token cannot read it: no notice could be opened there`;
  if (project.archived === true) return `gitlab.shares.notices.project: project ${path} is archived: GitLab opens no issue in it`;
  return undefined;
}
