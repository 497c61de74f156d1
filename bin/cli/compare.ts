/**
 * `warden enforce --compare-policy-ref REF [--mr-note]`: the base policy a merge request's change is
 * compared with, read from the policy project at REF, and where the comparison's note goes. Every
 * option is checked before any request.
 */
import { resolve, sep } from "node:path";
import { loadGitLabPolicy, PolicySourceError, type GitLabPolicyLocation } from "../../lib/config/policy-source.ts";
import { checkCredential } from "../../lib/config/service-config.ts";
import type { GitLabClient } from "../../lib/gitlab/index.ts";
import type { MergeRequestRef } from "../../lib/gitlab/notes.ts";
import { publishMergeRequestNote, type EnforceReport } from "../../lib/jobs/index.ts";
import { renderMarkdown } from "../../lib/jobs/render/index.ts";
import { isProjectId, plainPathProblem, type Policy } from "../../lib/policy/index.ts";
import { registerSecret } from "../../lib/redact/index.ts";
import { type CliIO, type ParsedArgs, UsageError } from "./command.ts";
import { gitlabFrom, notice } from "./io.ts";
import { pathWithin, policyChoice, unprotectedRefAllowed } from "./policy-source.ts";

export const COMPARE_OPTIONS = {
  "compare-policy-ref": { type: "string" },
  "mr-note": { type: "boolean" },
  "mr-note-project": { type: "string" },
  "mr-note-iid": { type: "string" },
} as const;

export const COMPARE_HELP = `  --compare-policy-ref REF
                   compare the policy (the proposed one: --policy FILE, or --policy-project
                   with --policy-ref BRANCH) with the same file at REF (the base, a merge request's
                   target branch): one examination, each share judged under both; the report
                   lists the shares merging would newly remove, stop removing, or whose exemption
                   would newly apply or lapse. The base is read from --policy-project, else GitLab
                   CI's CI_PROJECT_PATH (or CI_PROJECT_ID); its path is --policy-path, else the
                   --policy file's path relative to CI_PROJECT_DIR (else the current directory).
                   Never removes (not with --apply or --out); exit 0 when the change alters
                   nothing, strays the two policies share included, 2 when it alters something
  --mr-note        post the comparison (Markdown) as one note on the merge request of GitLab CI's
                   CI_PROJECT_ID and CI_MERGE_REQUEST_IID, editing Warden's earlier note there
                   instead of adding one: the only write of the run. It is written with
                   $WARDEN_MR_NOTE_TOKEN if set (a project access token of the policy project,
                   Reporter, api scope; CI_JOB_TOKEN cannot post notes), else with GITLAB_TOKEN
  --mr-note-project PROJECT
                   the merge request's project (id or path), instead of CI_PROJECT_ID
  --mr-note-iid IID
                   the merge request's iid, instead of CI_MERGE_REQUEST_IID`;

/** Names of the settings the base's errors point to. */
const BASE_NAMES = { project: "--policy-project (or GitLab CI's CI_PROJECT_PATH)", path: "--policy-path", ref: "--compare-policy-ref", token: "GITLAB_TOKEN", allowUnprotected: "--policy-allow-unprotected-ref (WARDEN_POLICY_ALLOW_UNPROTECTED_REF=1)" };

export interface Comparing {
  base: GitLabPolicyLocation & { ref: string };
  note: NoteTarget | undefined;
}

/** What --compare-policy-ref and --mr-note ask for, checked; undefined for a plain run. */
export function comparingFrom(args: ParsedArgs, env: NodeJS.ProcessEnv): Comparing | undefined {
  const { values } = args;
  const ref = values["compare-policy-ref"];
  const noting = values["mr-note"] === true || values["mr-note-project"] !== undefined || values["mr-note-iid"] !== undefined;
  if (ref === undefined) {
    if (noting) throw new UsageError("--mr-note posts a comparison of policies: it needs --compare-policy-ref REF");
    return undefined;
  }
  if (typeof ref !== "string" || ref.trim() === "") throw new UsageError("--compare-policy-ref is empty: give the branch, tag or commit to compare with (a merge request's target branch)");
  if (values["apply"] === true) throw new UsageError("--compare-policy-ref never removes anything: run it without --apply (merge the change, then enforce as usual)");
  if (values["out"] !== undefined) throw new UsageError("--compare-policy-ref makes no plan to apply: run it without --out");
  // The note's token, masked from here on like GITLAB_TOKEN (io.ts's redactedIO), and checked before any request.
  const noteToken = noting ? env["WARDEN_MR_NOTE_TOKEN"] : undefined;
  // Set but empty is a mistake named (checkCredential), never a fall-back to GITLAB_TOKEN.
  if (noteToken !== undefined) registerSecret(checkCredential({ name: "WARDEN_MR_NOTE_TOKEN", value: noteToken }));
  const base = { ...baseLocation(args, env), ref };
  return { base: unprotectedRefAllowed(args, env) ? { ...base, allowUnprotectedRef: true } : base, note: noting ? noteTarget(args, env) : undefined };
}

function baseLocation(args: ParsedArgs, env: NodeJS.ProcessEnv): GitLabPolicyLocation {
  const choice = policyChoice(args, env);
  if (choice.kind === "gitlab") return { project: choice.at.project, path: choice.at.path };
  const project = env["CI_PROJECT_PATH"] || env["CI_PROJECT_ID"];
  if (!project) throw new UsageError("--compare-policy-ref reads the base policy from the policy project: give --policy-project GROUP/PROJECT (GitLab CI sets CI_PROJECT_PATH)");
  const given = args.values["policy-path"] ?? env["WARDEN_POLICY_PATH"];
  if (given !== undefined && given !== "") return { project, path: String(given) };
  const root = env["CI_PROJECT_DIR"] || process.cwd();
  const path = pathWithin(resolve(root), resolve(choice.path));
  if (path === undefined) {
    throw new UsageError(`the policy file ${choice.path} is not inside ${root}, so its path in the repository is not known: give it with --policy-path`);
  }
  return { project, path: path.split(sep).join("/") };
}

/**
 * The merge request to note, and the commit compared where the note is the pipeline's own merge request's:
 * its source branch's head (CI_MERGE_REQUEST_SOURCE_BRANCH_SHA, in a merged results pipeline, whose
 * CI_COMMIT_SHA is a merge commit), else CI_COMMIT_SHA. A merge request named on the command line is
 * another pipeline's, whose commit says nothing of it.
 */
type NoteTarget = MergeRequestRef & { compared?: string };

function noteTarget({ values }: ParsedArgs, env: NodeJS.ProcessEnv): NoteTarget {
  const own = values["mr-note-project"] === undefined && values["mr-note-iid"] === undefined;
  const compared = own ? env["CI_MERGE_REQUEST_SOURCE_BRANCH_SHA"] || env["CI_COMMIT_SHA"] || undefined : undefined;
  const project = values["mr-note-project"] ?? env["CI_PROJECT_ID"];
  const iid = values["mr-note-iid"] ?? env["CI_MERGE_REQUEST_IID"];
  if (!project || !iid) {
    throw new UsageError("--mr-note needs the merge request: run it in a merge request pipeline (GitLab CI sets CI_PROJECT_ID and CI_MERGE_REQUEST_IID), or give --mr-note-project and --mr-note-iid");
  }
  if (!/^[1-9]\d{0,9}$/.test(String(iid))) throw new UsageError(`the merge request's iid is a positive whole number, got ${JSON.stringify(iid)}`);
  const notAPath = isProjectId(String(project)) ? undefined : plainPathProblem(String(project), "project path");
  if (notAPath) throw new UsageError(`${values["mr-note-project"] === undefined ? "CI_PROJECT_ID" : "--mr-note-project"}: ${notAPath}`);
  return { project: String(project), iid: Number(iid), ...(compared && { compared }) };
}

/** The base policy; one that cannot be read fails the run before the examination, as any policy does. */
export async function basePolicy(gitlab: GitLabClient, comparing: Comparing, signal?: AbortSignal): Promise<Policy> {
  try {
    return (await loadGitLabPolicy(gitlab, comparing.base, { names: BASE_NAMES, signal })).policy;
  } catch (err) {
    if (err instanceof PolicySourceError) throw new PolicySourceError(`the base policy to compare with: ${err.message}`);
    throw err;
  }
}

/** Posts (or edits) the merge request's note, and says which on stderr. */
export async function noteComparison(io: CliIO, gitlab: GitLabClient, report: EnforceReport, note: NoteTarget): Promise<void> {
  const { compared, ...mr } = note;
  const done = await publishMergeRequestNote(noteClient(io, gitlab), mr, renderMarkdown(report), { ...(io.signal && { signal: io.signal }), ...(compared && { compared }) });
  if (done.action === "left") notice(io, `left the note on merge request !${note.iid} of project ${note.project} as it is: this run compared commit ${compared}, and the merge request's head is now ${done.head} (an older pipeline's job; the newer one's note stands)`);
  else notice(io, `${done.action === "created" ? "posted" : "edited"} note ${done.noteId} on merge request !${note.iid} of project ${note.project}`);
}

/**
 * The client the note is written with: WARDEN_MR_NOTE_TOKEN's, so that the examination's token can
 * stay read-only (merge request pipelines see it), with the run's settings (its proxy among them); else the run's own.
 */
function noteClient(io: CliIO, gitlab: GitLabClient): GitLabClient {
  return io.env["WARDEN_MR_NOTE_TOKEN"] !== undefined ? gitlabFrom(io, { credentialVariable: "WARDEN_MR_NOTE_TOKEN" }) : gitlab;
}
