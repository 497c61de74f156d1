/**
 * The policy from a GitLab repository file. Fails closed: a policy that cannot be read (404, 403, a
 * network failure or 5xx after lib/http's retries) or may not be trusted (policy-trust.ts: a project
 * no longer at its path, a ref that is not protected) is a PolicySourceError naming the project, path,
 * ref, cause and fix, one that does not parse a PolicyError, thrown before any change; nothing falls
 * back to another policy.
 */
import { DEFAULT_BRANCH_REF, FileContentError, HttpError, readRepositoryFile, type FileAtRef, type GitLabClient } from "../gitlab/index.ts";
import { MAX_POLICY_BYTES, parsePolicy, PolicyError, type Policy, type PolicySource } from "../policy/index.ts";
import { policyProject, PolicyRefMissingError, PolicyTrustError, trustedRef, type PolicyProject, type TrustedRef } from "./policy-trust.ts";

/** The policy's file could not be read: the message names where, why, and the fix (from redacted parts). */
export class PolicySourceError extends Error {
  override name = "PolicySourceError";
}

export interface GitLabPolicyLocation {
  /** Numeric id (recommended: pinned for good) or full path (`group/project`: pinned per process and run). */
  project: string;
  path: string;
  /** Branch, tag or full commit id; undefined: the project's default branch. */
  ref?: string;
  /** The deployment's opt-out: a branch or tag that is not protected is read all the same. */
  allowUnprotectedRef?: boolean;
}

/** The settings a fix names: the CLI's options, or a deployment's variables. */
export interface PolicySettingNames {
  project: string;
  path: string;
  ref: string;
  token: string;
  /** The opt-out, as it is set (`WARDEN_POLICY_ALLOW_UNPROTECTED_REF=1`). */
  allowUnprotected: string;
}

/** What a failed read means for a run that has not begun. */
const NOTHING_RUN = "nothing was run";

/** A policy read, and its file's blob id: a cache re-parses only when that changes. */
export interface GitLabPolicy {
  policy: Policy;
  blobId: string;
  /** The last commit that changed the file: a commit editing it names this (`last_commit_id`), so a concurrent edit fails. */
  lastCommitId: string;
  /** The branch it was read from (trustedRef's), if it was read from one: not a tag of that name, nor a commit. */
  branch?: string;
}

/**
 * Requests per read (policy-trust.ts says why each): a path is resolved (`GET /projects/:path`, which
 * also names the default branch); the branch or tag is asked whether it is protected and at which
 * commit (a tag after a branch of that name was not found); the file is read at that commit. By id:
 * two a read (three the first time at the default branch, to learn its name); by path, three; at a
 * commit id, the file alone (plus the path's resolution).
 * `previous` (this process's last read) pins the project's id and names the default branch; with the
 * same blob id its parse is reused, its source moved to the new commit. `projectId` pins the id as a
 * durable run's first read recorded it. `failing` is what a read that fails means for the run, which the
 * error ends with: by default that nothing was run, true of a first read and false of a read again.
 */
export async function loadGitLabPolicy(
  gitlab: GitLabClient,
  at: GitLabPolicyLocation,
  opts: { names: PolicySettingNames; previous?: GitLabPolicy; projectId?: number; signal?: AbortSignal; failing?: string },
): Promise<GitLabPolicy> {
  const { names, previous, signal, failing = NOTHING_RUN } = opts;
  const known = previous?.policy.source.source === "gitlab" ? previous.policy.source : undefined;
  const where = `policy ${at.path} in GitLab project ${at.project} at ${at.ref ?? "the default branch"}`;
  let file: FileAtRef;
  let project: PolicyProject;
  let ref: TrustedRef;
  try {
    project = await policyProject(gitlab, at.project, opts.projectId ?? known?.projectId, names, signal);
    const lastDefault = at.ref === undefined ? known?.ref : undefined;
    ref = await trustedRef(gitlab, project, { ...at, allowUnprotected: at.allowUnprotectedRef === true, ...(lastDefault ? { lastDefault } : {}) }, names, signal);
    file = await readRepositoryFile(gitlab, { project: project.id, path: at.path, ref: ref.commitId, maxBytes: MAX_POLICY_BYTES }, signal);
    // Read at a commit id, the file comes from that commit. Not so where the id was a name: on a SHA-1
    // repository 64 hex digits are a branch's or tag's, which anyone who may push can make (GitLab refuses 40 alone).
    if (file.commitId !== ref.commitId) {
      throw new PolicyTrustError(`${at.ref ?? ref.name} was read as commit ${ref.commitId.slice(0, 12)}, and GitLab answered with commit ${file.commitId.slice(0, 12)}: a branch or tag of that name? name it refs/heads/… or refs/tags/… (protected, then), or give the commit's own id`);
    }
  } catch (err) {
    if (err instanceof PolicyTrustError) throw new PolicySourceError(`${where}: not trusted: ${err.message}; ${failing}, and no other policy is used in its place`);
    throw new PolicySourceError(`${where}: cannot be read: ${cause(err, at, names)}; ${failing}, and no other policy is used in its place`);
  }
  const origin = { source: "gitlab", project: at.project, projectId: project.id, path: at.path, ref: at.ref ?? ref.name, commitId: file.commitId } as const;
  if (previous && previous.blobId === file.blobId) {
    return { policy: { ...previous.policy, source: { ...origin, sha256: previous.policy.source.sha256 } }, blobId: file.blobId, lastCommitId: file.lastCommitId, ...(ref.branch && { branch: ref.branch }) };
  }
  const name = `policy ${at.path} in GitLab project ${at.project} at ${origin.ref} (commit ${file.commitId.slice(0, 12)})`;
  let text: string;
  try {
    // The byte order mark kept (ignoreBOM), as a policy file's is: the policy's sha256 is then its bytes', as committed, which a plan's check hashes.
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(file.bytes);
  } catch {
    throw new PolicyError(name, [{ path: "", message: "is not UTF-8 text (is it the policy file?)" }]);
  }
  return { policy: parsePolicy(text, name, origin), blobId: file.blobId, lastCommitId: file.lastCommitId, ...(ref.branch && { branch: ref.branch }) };
}

/** Why the file could not be read, and what to change; the token is named when it is the cause. */
function cause(err: unknown, at: GitLabPolicyLocation, names: PolicySettingNames): string {
  if (err instanceof FileContentError) return `GitLab's answer is not a usable policy file: ${err.message}`;
  if (err instanceof PolicyRefMissingError) return missingRef(at, names);
  if (!(err instanceof HttpError)) return `GitLab could not be reached (${(err as Error).message}), retries included: run again once it answers`;
  const said = err.serviceMessage;
  const access = `the token's user needs Reporter or above on ${at.project}, and the token read_repository or read_api scope`;
  if (err.status === 404 && /project not found/i.test(said)) {
    return `the project does not exist, or ${names.token} cannot read it (GitLab answers 404 for a private project the token may not see): ${access}; or correct ${names.project}`;
  }
  if (err.status === 404 && /commit not found/i.test(said)) return missingRef(at, names);
  if (err.status === 404 && /file not found/i.test(said)) return `there is no file ${at.path} at that ref: correct ${names.path}, or commit the policy there`;
  if (err.status === 403) return `${names.token} may see the project but not read its repository (${said}): ${access}`;
  if (err.status >= 500) return `GitLab failed (${err.message}), retries included: run again once it answers`;
  return err.message;
}

function missingRef(at: GitLabPolicyLocation, names: PolicySettingNames): string {
  return `the project has no branch, tag or commit ${JSON.stringify(at.ref ?? DEFAULT_BRANCH_REF)}: correct ${names.ref} (a commit by its full id)`;
}

/** A policy's source in a few words, for a report or a finding. */
export function describePolicySource(source: PolicySource): string {
  return source.source === "file" ? source.path : `${source.project}:${source.path}@${source.ref} (commit ${source.commitId.slice(0, 12)})`;
}
