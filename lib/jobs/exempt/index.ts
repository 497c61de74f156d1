/**
 * The exempt job (`warden exempt`): an exemption for one project's share, proposed as a merge request
 * on the policy repository. Given the policy as every run reads it (the front end reads it with
 * lib/config/policy-source.ts: the project pinned, a protected branch), it adds one `exempt` entry keeping the file's comments and order
 * (edit.ts), and, only when applying, commits it on a new branch (`last_commit_id`: an edit made
 * meanwhile fails the commit instead of being overwritten) and opens a merge request into the branch
 * it read. A dry run sends only the policy's reads.
 */
import { createCommit, createMergeRequest, HttpError, mayHaveBeenMade, type GitLabClient, type Project } from "../../gitlab/index.ts";
import { inScope, parsePolicy, type Policy } from "../../policy/index.ts";
import { exemptionEntry, PolicyEditError, unifiedDiff, withExemption } from "./edit.ts";
import type { ExemptRequest } from "../../policy/index.ts";
import { issuableUrl } from "../escape.ts";
import { errorText } from "../report/index.ts";
import { noteNotices, noticeLines, requestNotices, type ExemptNotice } from "./notices.ts";
import { commitMessage, exemptBranch, mergeRequestDescription, mergeRequestTitle } from "./request-text.ts";

export { checkExemptRequest, ExemptInputError, exemptRequestProblems, type ExemptProblem, type ExemptRequest } from "../../policy/index.ts";
export { PolicyEditError } from "./edit.ts";
export { exemptionSubject } from "./request-text.ts";

export interface ExemptOptions {
  gitlab: GitLabClient;
  /** The policy read from its repository, and the last commit that changed its file. */
  /** The policy as read (lib/config/policy-source.ts): `branch` is the branch it was read from, if it was one. */
  base: { policy: Policy; lastCommitId: string; branch?: string };
  /** The setting that names the policy's ref, for a refusal's fix. */
  refSetting: string;
  request: ExemptRequest;
  /** Who asked, when not the token's user: "Slack user U…", named in the commit and the merge request (both are authored by the token's user). */
  requestedBy?: string;
  apply?: boolean;
  signal?: AbortSignal;
}

export interface ExemptResult {
  dryRun: boolean;
  /** `project:path@branch (commit …)`. */
  policy: { project: string; path: string; branch: string; commitId: string };
  branch: string;
  diff: string;
  mergeRequest: { title: string; description: string; iid?: number; webUrl?: string };
  commitId?: string;
  /**
   * Only when the policy names a notices project: the open notices of the shares the exemption covers,
   * linked from the description; once the merge request is open, each `noted` (or not, and why).
   */
  notices?: { project: string; notices: ExemptNotice[] };
  /** What did not go as it should without failing the request (a notice unread or not noted). */
  warnings: string[];
}

/** Refused before any change: the message says why and what to do. */
export class ExemptRefusedError extends Error {
  override name = "ExemptRefusedError";
}

/**
 * The exemption was committed on its branch, but no merge request is known: a change made, half done; the message names the branch.
 * `committed` is "maybe" when the commit's answer was lost and its branch, read back, did not show Warden's commit.
 */
export class ExemptCommittedError extends Error {
  override name = "ExemptCommittedError";
  readonly committed: "yes" | "maybe";
  constructor(message: string, committed: "yes" | "maybe" = "yes") {
    super(message);
    this.committed = committed;
  }
}

export async function exempt(opts: ExemptOptions): Promise<ExemptResult> {
  const { gitlab, base: read, request, signal } = opts;
  const source = read.policy.source;
  if (source.source !== "gitlab") throw new Error("unreachable: a GitLab policy has a GitLab source");
  const projectId = source.projectId!;
  // The merge request goes into the branch the policy was read from: a tag or a commit has no merge requests,
  // and a branch named like the protected tag it was read at is anyone's (lib/config/policy-trust.ts).
  const target = read.branch;
  if (target === undefined) {
    throw new ExemptRefusedError(`the policy was read at ${source.ref}, which is not a branch: a merge request needs one (name the branch with ${opts.refSetting}); nothing was changed`);
  }
  if (!inScope(read.policy, request.project)) {
    throw new ExemptRefusedError(`project ${request.project} is outside gitlab.scope: the policy does not govern its shares, so an exemption would exempt nothing; nothing was changed`);
  }
  const subject = await namedAsIs(gitlab, read.policy, request, signal);
  let text: string;
  try {
    text = withExemption(read.policy.text, exemptionEntry(request));
  } catch (err) {
    if (err instanceof PolicyEditError) throw new ExemptRefusedError(`${err.message}; nothing was changed`);
    throw err;
  }
  // The result must be a policy (the same checks every run makes), or nothing is proposed.
  parsePolicy(text, `${source.path} with the exemption added`);
  const branch = exemptBranch(request, source.commitId);
  // Read before the merge request is opened: its description links them.
  const found = await requestNotices(gitlab, read.policy, request, subject, signal);
  const result: ExemptResult = {
    dryRun: opts.apply !== true,
    policy: { project: source.project, path: source.path, branch: target, commitId: source.commitId },
    branch,
    diff: unifiedDiff(source.path, read.policy.text, text),
    mergeRequest: { title: mergeRequestTitle(request), description: mergeRequestDescription(request, { path: source.path, target }, opts.requestedBy, noticeLines(found?.notices ?? [])) },
    ...(found && { notices: { project: found.project, notices: found.notices } }),
    warnings: found?.warnings ?? [],
  };
  if (opts.apply !== true) return result;
  const message = commitMessage(request, opts.requestedBy);
  const commit = await createCommit(gitlab, projectId, {
    branch, startBranch: target, message,
    actions: [{ action: "update", filePath: source.path, content: text, lastCommitId: read.lastCommitId }],
  }, signal).catch(async (err: unknown) => {
    if (mayHaveBeenMade(err) || signal?.aborted === true) throw await lostCommit(gitlab, err, { projectId, branch, message }, signal);
    throw refusedCommit(err, branch);
  });
  // The answer is a server's (or a proxy's) text: an id that is no commit's is unknown, never a failure once the commit is made.
  result.commitId = commitId((commit as { id?: unknown } | null)?.id);
  const committed = `committed on branch ${branch} (commit ${result.commitId?.slice(0, 12) ?? "unknown"})`;
  const mr = await createMergeRequest(gitlab, projectId, {
    sourceBranch: branch, targetBranch: target, title: result.mergeRequest.title, description: result.mergeRequest.description, removeSourceBranch: true,
  }, signal).catch((err: unknown) => {
    throw new ExemptCommittedError(`the exemption was ${committed}, but the merge request could not be opened (${errorText(err)}): open it from that branch`);
  });
  // The answer is a server's (or a proxy's) text: its number must be one, and its address GitLab's (issuableUrl), before notices and Slack link it.
  if (!Number.isSafeInteger(mr.iid) || mr.iid < 1) {
    throw new ExemptCommittedError(`the exemption was ${committed} and a merge request asked for, but GitLab's answer has no merge request number: find it among the merge requests from that branch`);
  }
  const webUrl = issuableUrl(gitlab.instanceUrl, source.project, "merge_requests", mr);
  result.mergeRequest = { ...result.mergeRequest, iid: mr.iid, webUrl };
  // The notices learn of the merge request (their notes hold its URL, escaped).
  if (found) await noteNotices(gitlab, found, { title: result.mergeRequest.title, webUrl }, signal);
  return result;
}

/**
 * The project (returned: its shares name the notices) and group as the instance has them at those very paths. An entry naming nothing is the
 * typo gitlab.guard.unmatchedRules stops (by default every applying run of the whole policy, once
 * merged), and one naming a project's old path (GitLab redirects it) exempts nothing while its
 * notices say it does: refused now, naming what is there instead where the policy governs it (a path
 * outside the scope, a private group's, say, is not told: the requester may not see it).
 */
async function namedAsIs(gitlab: GitLabClient, policy: Policy, request: ExemptRequest, signal?: AbortSignal): Promise<Project> {
  const unchanged = "nothing was changed";
  const project = await gitlab.findProject(request.project, signal);
  if (project === undefined) throw new ExemptRefusedError(`project ${request.project} was not found (or the token cannot see it): an exemption naming nothing would, once merged, trip the guard for rules that match nothing; ${unchanged}`);
  if (project.path_with_namespace.toLowerCase() !== request.project.toLowerCase()) {
    const now = inScope(policy, project.path_with_namespace) ? `is now ${project.path_with_namespace} (renamed or moved; GitLab redirects the old path): name it so,` : "has moved out of gitlab.scope (GitLab redirects the old path):";
    throw new ExemptRefusedError(`project ${request.project} ${now} an exemption of the old path would exempt nothing; ${unchanged}`);
  }
  if (request.group === undefined) return project;
  const group = await gitlab.findNamespace(request.group, signal);
  if (group?.kind !== "group") throw new ExemptRefusedError(`group ${request.group} was not found (or the token cannot see it): an exemption naming nothing would, once merged, trip the guard for rules that match nothing; ${unchanged}`);
  return project;
}

/** A commit id as GitLab writes one (hex), or undefined. */
function commitId(id: unknown): string | undefined {
  return typeof id === "string" && /^[0-9a-f]{7,64}$/.test(id) ? id : undefined;
}

/**
 * The commit's answer lost after it may have arrived: its branch, read back once, says whether Warden's commit was made.
 * Any Developer on the policy project may push that branch: only a head with Warden's message counts as Warden's commit.
 */
async function lostCommit(gitlab: GitLabClient, err: unknown, sent: { projectId: number; branch: string; message: string }, signal?: AbortSignal): Promise<ExemptCommittedError> {
  const lost = `GitLab's answer to the commit was lost (${errorText(err)})`;
  let found = "the run stopped before reading its branch back";
  if (signal?.aborted !== true) {
    try {
      // GitLab's branch answer has its head commit whole (message included).
      const head = (await gitlab.findBranch(sent.projectId, sent.branch, signal))?.commit as { id?: unknown; message?: unknown } | undefined;
      const id = commitId(head?.id);
      if (id !== undefined && typeof head?.message === "string" && head.message.trimEnd() === sent.message) {
        return new ExemptCommittedError(`the exemption was committed on branch ${sent.branch} (commit ${id.slice(0, 12)}), but ${lost}: open the merge request from that branch`);
      }
      found = head === undefined ? "its branch is not there" : "its branch's head does not show Warden's commit";
    } catch (readErr) {
      found = `reading its branch back failed (${errorText(readErr)})`;
    }
  }
  return new ExemptCommittedError(
    `${lost} and ${found}: the exemption may or may not have been committed, on branch ${sent.branch}; if that branch holds Warden's commit, open the merge request from it, else delete it (if there) and run again`,
    "maybe",
  );
}

/** GitLab's 400s for a commit, in the requester's terms. */
function refusedCommit(err: unknown, branch: string): unknown {
  if (!(err instanceof HttpError) || err.status !== 400) return err;
  if (/has changed since you started editing/i.test(err.serviceMessage)) {
    return new ExemptRefusedError("the policy file changed after it was read (someone committed to it meanwhile): nothing was committed; run warden exempt again to propose it on the new version");
  }
  if (/already exists/i.test(err.serviceMessage)) {
    // Its merge request may never have been opened (an earlier answer lost), and a Developer may have pushed the branch: neither is assumed.
    return new ExemptRefusedError(`branch ${branch} already exists: this exemption was requested already, on this version of the policy, and this run committed nothing; if no merge request is open from that branch, check its commit and open one from it, or delete the branch and run again`);
  }
  return err;
}
