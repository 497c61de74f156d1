import { issuableUrl } from "../escape.ts";

/** A notice's address, as reports and messages link it: GitLab's answer only where it is GitLab's own (issuableUrl). */
export function issueUrl(instanceUrl: string, project: string, issue: { iid: number; web_url?: unknown }): string {
  return issuableUrl(instanceUrl, project, "issues", issue);
}
