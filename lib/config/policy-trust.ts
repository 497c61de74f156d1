/**
 * Whose policy a GitLab policy location names, and who may have written it (issue 28 point 7).
 *
 * The project is pinned by id: an id is used as given; a path is resolved (`GET /projects/:path`) at
 * every read and refused when GitLab answers with a project at another path (a renamed or moved
 * project, whose old path GitLab redirects only until someone creates a project there) or with
 * another id than an earlier read of the same location found (a project created at the path since).
 *
 * The ref must be protected: a branch's or tag's `protected` must be true, or anyone who may push to
 * it writes the policy; a branch's rule must not let Developers push or merge (`developers_can_push`,
 * `developers_can_merge`), nor a protected-tag rule matching a tag let them create it (any Developer
 * could tag a commit of their own), unless the deployment opts out. The file is then read at the commit the
 * protected ref pointed at, not at its name, so a push in between is not what is read. A full commit
 * id is read as given: it is immutable, and the deployer chose it in their configuration.
 */
import { developerTagRule, FileContentError, HttpError, type Branch, type GitLabClient, type Tag } from "../gitlab/index.ts";
import { isProjectId } from "../policy/index.ts";

/** The location names a project or ref that may not be trusted: the message says why and the fix. */
export class PolicyTrustError extends Error {
  override name = "PolicyTrustError";
}

/** The ref names no branch, tag or full commit id. */
export class PolicyRefMissingError extends Error {
  override name = "PolicyRefMissingError";
}

/** The setting names a fix mentions. */
export interface TrustSettingNames {
  project: string;
  allowUnprotected: string;
}

export interface PolicyProject {
  id: number;
  /** The default branch, when resolving the path already told it. */
  defaultBranch?: string;
}

export interface TrustedRef {
  /** The branch or tag read (the default branch by its name), or the commit id given. */
  name: string;
  /** The commit it pointed at, which the file is read at. */
  commitId: string;
  /** The branch's own name, when a branch was read (not a tag of the same name, nor a commit): what a merge request to the policy goes into. */
  branch?: string;
}

const COMMIT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** `pinned`: the id an earlier read of this location (this process's, or the durable run's first) found. */
export async function policyProject(gitlab: GitLabClient, given: string, pinned: number | undefined, names: TrustSettingNames, signal?: AbortSignal): Promise<PolicyProject> {
  if (isProjectId(given)) {
    const id = Number(given);
    if (pinned !== undefined && pinned !== id) {
      throw new PolicyTrustError(`${names.project} is now project ${id}, and the policy was first read here from project ${pinned} (the deployment was changed): run again`);
    }
    return { id };
  }
  const project = await gitlab.getProject(given, signal);
  // GitLab's routes ignore case, so a path that differs in case alone names the same project.
  if (typeof project.path_with_namespace !== "string" || project.path_with_namespace.toLowerCase() !== given.toLowerCase()) {
    throw new PolicyTrustError(
      `the project at ${given} has moved to ${JSON.stringify(project.path_with_namespace)}, and GitLab gives an old path to the next project created there: ` +
        `set ${names.project} to ${project.id}, the project's id, which never changes`,
    );
  }
  if (pinned !== undefined && project.id !== pinned) {
    throw new PolicyTrustError(
      `${names.project} ${given} was project ${pinned} when the policy was first read here, and is now project ${project.id}: the project moved or was deleted ` +
        `and another was created at its path; set ${names.project} to the id of the project that holds the policy (${pinned}, if it still does)`,
    );
  }
  return { id: project.id, ...(project.default_branch ? { defaultBranch: project.default_branch } : {}) };
}

/**
 * The ref to read and its commit, refused when not protected unless `allowUnprotected`. `ref`
 * undefined: the default branch, named by `lastDefault` (an earlier read's) while GitLab still says it
 * is the default, else by the project (one more request).
 */
export async function trustedRef(
  gitlab: GitLabClient,
  project: PolicyProject,
  at: { ref?: string; allowUnprotected?: boolean; lastDefault?: string },
  names: TrustSettingNames,
  signal?: AbortSignal,
): Promise<TrustedRef> {
  if (at.ref !== undefined && COMMIT_ID.test(at.ref)) return { name: at.ref, commitId: at.ref };
  // Once per ref found: a tag's verdict lists the project's protected-tag rules.
  const verdicts = new Map<Found, Promise<string | undefined>>();
  const problem = (found: Found) => {
    if (at.allowUnprotected) return Promise.resolve(undefined);
    const verdict = verdicts.get(found) ?? untrusted(found, names, () => developerTagRule(gitlab, project.id, found.ref.name, signal));
    verdicts.set(found, verdict);
    return verdict;
  };
  const found = at.ref === undefined ? await defaultBranch(gitlab, project, at.lastDefault, signal) : await branchOrTag(gitlab, project.id, at.ref, problem, signal);
  if (!found) throw new PolicyRefMissingError(at.ref ?? "HEAD");
  const refused = await problem(found);
  if (refused) throw new PolicyTrustError(refused);
  const commitId = found.ref.commit?.id;
  if (typeof commitId !== "string" || !COMMIT_ID.test(commitId)) throw new FileContentError(`the ${found.kind}'s commit id is not a git object id`);
  // Named as the deployment wrote it (refs/tags/… too), which is what a report and a plan record.
  return { name: at.ref ?? found.ref.name, commitId, ...(found.kind === "branch" && typeof found.ref.name === "string" && { branch: found.ref.name }) };
}

/** Why whoever may push to the ref (merge into it, or create it) is more than Maintainers, or undefined. */
async function untrusted(found: Found, names: TrustSettingNames, tagRule: () => Promise<string | undefined>): Promise<string | undefined> {
  const kind = found.kind;
  if (found.ref.protected !== true) {
    return (
      `${kind} ${JSON.stringify(found.ref.name)} is not protected, so anyone who may push to it writes the policy: ` +
      `protect the ${kind} in GitLab (Settings > Repository > Protected ${kind === "branch" ? "branches" : "tags"}), or set ${names.allowUnprotected} to read it anyway`
    );
  }
  // Protected, but not from Developers: every one of them would write the policy without a review
  // (by a merge request they merge themselves, where they may merge: GitLab's default protection).
  if (found.kind === "tag") {
    const rule = await tagRule().catch((err: unknown) => {
      // Not shown to this token (listing the rules needs Maintainer): whether Developers may create the tag is unknown.
      if (err instanceof HttpError && (err.status === 403 || err.status === 404)) return { unknown: err.message };
      throw err;
    });
    if (typeof rule === "object") {
      return (
        `tag ${JSON.stringify(found.ref.name)} is protected, but GitLab did not show the token the project's protected-tag rules (${rule.unknown}), so whether ` +
        `Developers may create it, and write the policy, is unknown: give the token Maintainer on the policy's project, or set ${names.allowUnprotected} to read it anyway`
      );
    }
    if (rule === undefined) return undefined;
    return (
      `tag ${JSON.stringify(found.ref.name)} is protected, but its protection rule ${JSON.stringify(rule)} lets Developers create the tags it matches, so every Developer ` +
      `can tag a commit of their own with it and write the policy: allow only Maintainers to create them in GitLab (Settings > Repository > Protected tags), ` +
      `or set ${names.allowUnprotected} to read it anyway`
    );
  }
  const developers = found.ref.developers_can_push === true ? "push to it" : found.ref.developers_can_merge === true ? "merge into it" : undefined;
  if (!developers) return undefined;
  return (
    `branch ${JSON.stringify(found.ref.name)} is protected, but Developers may ${developers}, so every Developer of the project writes the policy: ` +
    `allow only Maintainers to push to it and merge into it in GitLab (Settings > Repository > Protected branches), or set ${names.allowUnprotected} to read it anyway`
  );
}

/** GitLab's branch and tag answers carry `protected` (tags since GitLab 15), a branch `default`. */
type BranchAnswer = Branch & { default?: unknown };
type Found = { kind: "branch"; ref: BranchAnswer } | { kind: "tag"; ref: Tag & { protected?: unknown } };

/**
 * The branch or tag `ref` names: `refs/heads/<name>` a branch alone, `refs/tags/<name>` a tag alone;
 * a bare name a branch first, as GitLab resolves one, but the tag of that name where the branch may
 * not be trusted (`problem`) and the tag may: any Developer may create a branch, and one named like
 * the protected tag the policy is read at must not stop the policy being read.
 */
async function branchOrTag(gitlab: GitLabClient, project: number, ref: string, problem: (found: Found) => Promise<string | undefined>, signal?: AbortSignal): Promise<Found | undefined> {
  const full = /^refs\/(heads|tags)\/(.+)$/.exec(ref);
  const tag = async (name: string): Promise<Found | undefined> => {
    const found = await gitlab.findTag(project, name, signal);
    return found && { kind: "tag", ref: found };
  };
  if (full?.[1] === "tags") return tag(full[2]!);
  const found = await gitlab.findBranch(project, full ? full[2]! : ref, signal);
  const branch: Found | undefined = found && { kind: "branch", ref: found };
  if (full || (branch && (await problem(branch)) === undefined)) return branch;
  // Only a way past an untrusted branch: where the tag cannot be read, the branch's refusal says what to fix.
  const named = await tag(ref).catch((err: unknown) => {
    if (!branch || signal?.aborted) throw err;
    return undefined;
  });
  return named && (!branch || (await problem(named)) === undefined) ? named : branch;
}

async function defaultBranch(gitlab: GitLabClient, project: PolicyProject, lastDefault: string | undefined, signal?: AbortSignal): Promise<Found | undefined> {
  if (project.defaultBranch === undefined && lastDefault !== undefined) {
    // Still the default (GitLab says so on the branch): no need to ask the project.
    const branch: BranchAnswer | undefined = await gitlab.findBranch(project.id, lastDefault, signal);
    if (branch?.default === true) return { kind: "branch", ref: branch };
  }
  const name = project.defaultBranch ?? (await gitlab.getProject(project.id, signal)).default_branch;
  if (!name) throw new FileContentError("the project has no default branch (an empty repository)");
  const branch = await gitlab.findBranch(project.id, name, signal);
  return branch && { kind: "branch", ref: branch };
}

/**
 * A location's project and ref as every read of a repository policy trusts them (policyProject, then
 * trustedRef; no earlier read pins the project): its id, the ref's name and the commit it points at.
 */
export async function trustedLocation(
  gitlab: GitLabClient,
  at: { project: string; ref?: string; allowUnprotectedRef?: boolean },
  names: TrustSettingNames,
  signal?: AbortSignal,
): Promise<TrustedRef & { projectId: number }> {
  const project = await policyProject(gitlab, at.project, undefined, names, signal);
  const ref = await trustedRef(gitlab, project, { ...(at.ref === undefined ? {} : { ref: at.ref }), allowUnprotected: at.allowUnprotectedRef === true }, names, signal);
  return { ...ref, projectId: project.id };
}
