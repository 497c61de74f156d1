/**
 * The stray-share notices an exemption answers (issue 30, point 4), in the policy's notices project:
 * found as a run finds them (notices/read.ts: one keyset listing of the open issues by Warden's label,
 * only those of the token's user and of notices.authors, named by their share's label, so a look-alike
 * issue someone else typed gets no note), linked from the merge request's description, and told of the merge request
 * by a note once it is open. A note is a POST, sent once: lib/http never repeats one that may have
 * arrived, and one that fails is reported, never undoes the merge request.
 */
import { createIssueNote, type GitLabClient, type Project } from "../../gitlab/index.ts";
import type { ExemptRequest, Policy } from "../../policy/index.ts";
import { redactOutput } from "../../redact/index.ts";
import { escapeMarkdown as md } from "../escape.ts";
import { noticeKey, readNotices } from "../notices/index.ts";
import { errorText } from "../report/index.ts";

/** An open notice of a share the exemption covers; `noted`: whether the note linking the merge request was posted. */
export interface ExemptNotice {
  iid: number;
  url: string;
  noted?: boolean;
  error?: string;
}

export interface FoundNotices {
  /** The notices project (gitlab.shares.notices.project). */
  project: string;
  notices: ExemptNotice[];
  warnings: string[];
}

/**
 * The open notices of the shares the request covers (the project's share with its group, or each of
 * its shares without one): `subject`, the project as the job read it, gives its id and its shares'
 * group ids (a notice's marker names ids), then the notices listing. Undefined when the policy names no
 * notices project. Reads only; an error here leaves the request without notices and says why: the
 * exemption itself does not need them.
 */
export async function requestNotices(gitlab: GitLabClient, policy: Policy, request: ExemptRequest, subject: Project, signal?: AbortSignal): Promise<FoundNotices | undefined> {
  const project = policy.gitlab?.shares.notices?.project;
  if (project === undefined) return undefined;
  try {
    const group = request.group?.toLowerCase();
    const shares = (subject.shared_with_groups ?? []).filter((s) => group === undefined || s.group_full_path.toLowerCase() === group);
    if (!shares.length) return { project, notices: [], warnings: [] };
    const keys = shares.map((s) => noticeKey({ kind: "project", projectId: subject.id, project: subject.path_with_namespace, groupId: s.group_id }));
    // No other notice is wanted: `max` 0 keeps none of them in memory. Warden's are its earlier tokens' users' too
    // (notices.authors), as a run reads them: else, once the token changed user, none of the notices standing is found.
    const listing = await readNotices(gitlab, project, new Set(keys), 0, signal, undefined, 0, policy.gitlab?.shares.notices?.authors);
    const notices = [...listing.byKey.values()].sort((a, b) => a.iid - b.iid).map(({ iid, url }) => ({ iid, url }));
    return { project, notices, warnings: [] };
  } catch (err) {
    if (signal?.aborted) throw err;
    return { project, notices: [], warnings: [`the notices of ${request.project} in ${project} could not be read (${errorText(err)}): the merge request links none, and none is told of it`] };
  }
}

/** The description's lines that link the notices (their URLs are the server's text: escaped). */
export function noticeLines(notices: readonly ExemptNotice[]): string[] {
  if (!notices.length) return [];
  return ["", redactOutput(`It answers Warden's stray-share ${notices.length === 1 ? "notice" : "notices"}: ${notices.map((n) => md(n.url)).join(", ")}.`)];
}

/** The note each notice gets once the merge request is open. */
export function noticeNote(mr: { title: string; webUrl: string }): string {
  return redactOutput(
    `An exemption for this share is proposed in merge request ${md(mr.webUrl)} (${md(mr.title)}). Merging it is the approval: ` +
      "from the first run after the merge Warden leaves the share in place and closes this notice. Until then, this notice's due date stands.",
  );
}

/** Posts the note on each notice, once each: a failure is recorded on the notice and in the warnings, not sent again. */
export async function noteNotices(gitlab: GitLabClient, found: FoundNotices, mr: { title: string; webUrl: string }, signal?: AbortSignal): Promise<void> {
  const body = noticeNote(mr);
  for (const notice of found.notices) {
    try {
      await createIssueNote(gitlab, found.project, notice.iid, body, signal);
      notice.noted = true;
    } catch (err) {
      // Even when the run is stopped: the merge request is open, and the result must say so.
      Object.assign(notice, { noted: false, error: errorText(err) });
      found.warnings.push(`notice #${notice.iid} in ${found.project}: the note linking the merge request could not be posted (${errorText(err)}); it was not sent again, as it may have arrived: add it by hand if it is missing`);
    }
  }
}
