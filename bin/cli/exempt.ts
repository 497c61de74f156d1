/** `warden exempt`: propose an exemption for one project's share as a merge request on the policy repository. */
import { loadGitLabPolicy } from "../../lib/config/policy-source.ts";
import { checkExemptRequest, exempt, ExemptInputError, type ExemptResult } from "../../lib/jobs/exempt/index.ts";
import { escapeControls } from "../../lib/jobs/render/index.ts";
import { type Command, COMMON_OPTIONS_HELP, UsageError } from "./command.ts";
import { gitlabFrom } from "./io.ts";
import { POLICY_SETTING_NAMES, policyChoice } from "./policy-source.ts";

const USAGE = `Usage: warden exempt --project GROUP/PROJECT [--group GROUP] [--until YYYY-MM-DD] --reason TEXT [--apply]
                     --policy-project ID [--policy-path PATH] [--policy-ref BRANCH]

Proposes an exemption as a merge request on the policy repository: reads the policy (as enforce does,
from --policy-project, a protected branch), adds one gitlab.shares.exempt entry { project, sharedWith,
until, reason } keeping the file's comments and order, and shows the diff and the merge request it
would open. With --apply, commits that change on a new branch (warden/exempt-…; the commit names the
file's last commit, so an edit made meanwhile fails it cleanly) and opens the merge request into the
branch it read. Merging it is the approval. A dry run (the default) only reads.

When the policy names a notices project (gitlab.shares.notices), the open notices of the shares the
exemption covers are found there (one listing by Warden's label, as a run reads them): the merge
request's description links them and, once it is open, each gets a note linking the merge request
(sent once: one that fails is named in a warning, never sent again).

Options:
  --project GROUP/PROJECT  the project whose share to exempt (a full path, no wildcards)
  --group GROUP            only its share with this (invited) group (default: every share of the project)
  --until YYYY-MM-DD       the last UTC day it applies, in the future (default: no expiry)
  --reason TEXT            why, one line of at most 500 characters (reviewers read it; it is escaped
                           for GitLab Markdown in the merge request)
  --apply                  commit and open the merge request (Developer or above on the policy project)
  --policy FILE            not taken: the change goes to the policy repository (--policy-project)
  --format text            the only format (--json is refused: a merge request is the record)
  --json                   see --format
${COMMON_OPTIONS_HELP}

Environment: GITLAB_URL, GITLAB_TOKEN.

Exit codes: 0 the merge request was opened, 1 an error (nothing changed unless it says so: a commit made,
or that may have been, is named with its branch), 2 dry run.`;

export const exemptCommand: Command = {
  name: "exempt",
  summary: "propose an exemption for a project's share as a merge request on the policy repository (dry run unless --apply)",
  usage: USAGE,
  options: { project: { type: "string" }, group: { type: "string" }, until: { type: "string" }, reason: { type: "string" }, apply: { type: "boolean" } },
  formats: ["text"],
  async run(args, io) {
    const { values } = args;
    const text = (name: string) => (values[name] === undefined ? undefined : String(values[name]));
    let request;
    try {
      request = checkExemptRequest({ project: text("project"), group: text("group"), until: text("until"), reason: text("reason") }, new Date());
    } catch (err) {
      if (err instanceof ExemptInputError) throw new UsageError(err.message);
      throw err;
    }
    const choice = policyChoice(args, io.env);
    if (choice.kind !== "gitlab") throw new UsageError("warden exempt proposes a change to the policy repository: name it with --policy-project (or WARDEN_POLICY_PROJECT); a policy file is edited by hand");
    const gitlab = gitlabFrom(io);
    const base = await loadGitLabPolicy(gitlab, choice.at, { names: POLICY_SETTING_NAMES, signal: io.signal });
    const result = await exempt({ gitlab, base, refSetting: POLICY_SETTING_NAMES.ref, request, apply: values["apply"] === true, signal: io.signal });
    const { policy, mergeRequest } = result;
    const lines = [
      `policy ${policy.path} in ${policy.project} at ${policy.branch} (commit ${policy.commitId.slice(0, 12)})`,
      "",
      ...result.diff.split("\n"),
      "",
      `merge request: ${result.branch} → ${policy.branch}`,
      `title: ${mergeRequest.title}`,
      "description:",
      ...mergeRequest.description.split("\n").map((l) => `  ${l}`),
      "",
      result.dryRun
        ? "dry run: nothing was committed; run again with --apply to commit and open the merge request"
        : `opened merge request !${mergeRequest.iid}: ${mergeRequest.webUrl} (commit ${result.commitId?.slice(0, 12) ?? "unknown"} on ${result.branch})`,
      ...noticeLines(result),
      ...result.warnings.map((w) => `warning: ${w}`),
    ];
    // Each line escaped whole: only the diff and the description, Warden's own multi-line texts, were split
    // on their newlines; one inside a server's text (a warning quoting GitLab, a URL) stays a visible \x0a.
    io.stdout.write(`${lines.map((l) => escapeControls(l)).join("\n")}\n`);
    return result.dryRun ? 2 : 0;
  },
};

/** The notices the exemption answers: "notice #12 in security/access-notices: <url> (noted)". */
function noticeLines({ notices, dryRun }: ExemptResult): string[] {
  if (!notices) return [];
  if (!notices.notices.length) return [`no open notice in ${notices.project} for this share`];
  const state = (n: NonNullable<ExemptResult["notices"]>["notices"][number]) => (dryRun ? "to note" : n.noted ? "noted with the merge request's link" : "not noted");
  return notices.notices.map((n) => `notice #${n.iid} in ${notices.project}: ${n.url} (${state(n)})`);
}
