/**
 * The policy from a GitLab repository file. Fails closed: a policy that cannot be read (404, 403, a
 * network failure or 5xx after lib/http's retries) is a PolicySourceError naming the project, path,
 * ref, cause and fix, one that does not parse a PolicyError, thrown before any change; nothing falls
 * back to another policy.
 */
import { DEFAULT_BRANCH_REF, FileContentError, HttpError, readRepositoryFile, type FileAtRef, type GitLabClient } from "../gitlab/index.ts";
import { parsePolicy, PolicyError, type Policy, type PolicySource } from "../policy/index.ts";
import { MAX_POLICY_BYTES } from "./policy-file.ts";

/** The policy's file could not be read: the message names where, why, and the fix (from redacted parts). */
export class PolicySourceError extends Error {
  override name = "PolicySourceError";
}

export interface GitLabPolicyLocation {
  /** Full path (`group/project`) or numeric id. */
  project: string;
  path: string;
  /** Branch, tag or commit; undefined: the project's default branch. */
  ref?: string;
}

/** The settings a fix names: the CLI's options, or a deployment's variables. */
export interface PolicySettingNames {
  project: string;
  path: string;
  ref: string;
  token: string;
}

/** A policy read, and its file's blob id: a cache re-parses only when that changes. */
export interface GitLabPolicy {
  policy: Policy;
  blobId: string;
}

/**
 * One file request (`ref=HEAD` when no ref is set: GitLab's default branch, read in the same request),
 * plus `GET /projects/:id` to name the default branch the first time.
 * `previous` with the same blob id is reused without parsing, its source moved to the new commit.
 */
export async function loadGitLabPolicy(
  gitlab: GitLabClient,
  at: GitLabPolicyLocation,
  opts: { names: PolicySettingNames; previous?: GitLabPolicy; signal?: AbortSignal },
): Promise<GitLabPolicy> {
  const { names, previous, signal } = opts;
  const where = `policy ${at.path} in GitLab project ${at.project} at ${at.ref ?? "the default branch"}`;
  let file: FileAtRef;
  let ref: string;
  try {
    file = await readRepositoryFile(gitlab, { project: at.project, path: at.path, ref: at.ref ?? DEFAULT_BRANCH_REF, maxBytes: MAX_POLICY_BYTES }, signal);
    // The default branch's name is learned once: HEAD already read whatever branch is the default now.
    const known = previous?.policy.source;
    ref = at.ref ?? (known?.source === "gitlab" ? known.ref : await defaultBranch(gitlab, at.project, signal));
  } catch (err) {
    throw new PolicySourceError(`${where}: cannot be read: ${cause(err, at, names)}; nothing was run, and no other policy is used in its place`);
  }
  const origin = { source: "gitlab", project: at.project, path: at.path, ref, commitId: file.commitId } as const;
  if (previous && previous.blobId === file.blobId) {
    return { policy: { ...previous.policy, source: { ...origin, sha256: previous.policy.source.sha256 } }, blobId: file.blobId };
  }
  const name = `policy ${at.path} in GitLab project ${at.project} at ${ref} (commit ${file.commitId.slice(0, 12)})`;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(file.bytes);
  } catch {
    throw new PolicyError(name, [{ path: "", message: "is not UTF-8 text (is it the policy file?)" }]);
  }
  return { policy: parsePolicy(text, name, origin), blobId: file.blobId };
}

async function defaultBranch(gitlab: GitLabClient, project: string, signal?: AbortSignal): Promise<string> {
  const branch = (await gitlab.getProject(project, signal)).default_branch;
  if (!branch) throw new FileContentError("the project has no default branch (an empty repository)");
  return branch;
}

/** Why the file could not be read, and what to change; the token is named when it is the cause. */
function cause(err: unknown, at: GitLabPolicyLocation, names: PolicySettingNames): string {
  if (err instanceof FileContentError) return `GitLab's answer is not a usable policy file: ${err.message}`;
  if (!(err instanceof HttpError)) return `GitLab could not be reached (${(err as Error).message}), retries included: run again once it answers`;
  const said = err.serviceMessage;
  const access = `the token's user needs Reporter or above on ${at.project}, and the token read_repository or read_api scope`;
  if (err.status === 404 && /project not found/i.test(said)) {
    return `the project does not exist, or ${names.token} cannot read it (GitLab answers 404 for a private project the token may not see): ${access}; or correct ${names.project}`;
  }
  if (err.status === 404 && /commit not found/i.test(said)) return `the project has no branch, tag or commit ${JSON.stringify(at.ref ?? DEFAULT_BRANCH_REF)}: correct ${names.ref}`;
  if (err.status === 404 && /file not found/i.test(said)) return `there is no file ${at.path} at that ref: correct ${names.path}, or commit the policy there`;
  if (err.status === 403) return `${names.token} may see the project but not read its repository (${said}): ${access}`;
  if (err.status >= 500) return `GitLab failed (${err.message}), retries included: run again once it answers`;
  return err.message;
}

/** A policy's source in a few words, for a report or a finding. */
export function describePolicySource(source: PolicySource): string {
  return source.source === "file" ? source.path : `${source.project}:${source.path}@${source.ref} (commit ${source.commitId.slice(0, 12)})`;
}
