/**
 * A notice's address, as reports and messages link it. GitLab's answer says it (`web_url`), but an answer
 * is a server's (or a proxy's) text, and a report renders it as a link: it is taken only where it is an
 * http(s) address on GitLab's own origin, below its path, of an issue of that iid (query and fragment
 * dropped); else it is built from the instance and the notices project as the policy names it (its path;
 * for a project named by id, GitLab's `/projects/:id`, which leads to the project).
 */
export function issueUrl(instanceUrl: string, project: string, issue: { iid: number; web_url?: unknown }): string {
  const said = typeof issue.web_url === "string" && URL.canParse(issue.web_url) ? new URL(issue.web_url) : undefined;
  const address = said && `${said.origin}${said.pathname}`;
  if (said && /^https?:$/.test(said.protocol) && address!.startsWith(`${instanceUrl}/`) && address!.endsWith(`/-/issues/${issue.iid}`)) return address!;
  return /^\d+$/.test(project) ? `${instanceUrl}/projects/${project}` : `${instanceUrl}/${project}/-/issues/${issue.iid}`;
}
