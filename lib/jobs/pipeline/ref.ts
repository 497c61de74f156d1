/**
 * What a pipeline's ref is in a project (a branch or a tag: GitLab refuses to run one that names both,
 * "Ref is ambiguous"), the commit it points at, and whether GitLab protects it. A pipeline Warden starts runs as Warden's user
 * (its CI job token, its right to deploy to protected environments) and runs the CI file the ref
 * holds: on an unprotected ref, whoever can push writes that file, and so does every Developer where a
 * protected branch's rule lets Developers push or merge, or a protected tag's rule lets them create it. So
 * protection is what GitLab says, and where it does not say, the ref counts as unprotected.
 */
import { developerTagRule, HttpError, type GitLabClient, type Project } from "../../gitlab/index.ts";

export interface FoundRef {
  refKind: "branch" | "tag";
  commit?: string;
  /** Undefined: GitLab did not say (a tag on a version without the field, and no rule of exactly its name). */
  refProtected?: boolean;
  /**
   * Protected, but not from Developers: a branch whose rule lets them push (or only merge: `merge`), or
   * a tag a rule (`rule`) lets them create. Not reported (the refusal's reason says it).
   */
  openToDevelopers?: { rule?: string; merge?: true };
}

/** Undefined: neither a branch nor a tag; "ambiguous": both, which GitLab refuses to run a pipeline on. */
export async function findRef(gitlab: GitLabClient, projectId: number, ref: string, signal?: AbortSignal): Promise<FoundRef | "ambiguous" | undefined> {
  const [branch, tagged] = await Promise.all([gitlab.findBranch(projectId, ref, signal), gitlab.findTag(projectId, ref, signal)]);
  if (branch && tagged) return "ambiguous";
  if (branch) {
    const open = branch.developers_can_push === true ? {} : branch.developers_can_merge === true ? { merge: true as const } : undefined;
    return { refKind: "branch", commit: branch.commit.id, ...said(branch.protected), ...(open && { openToDevelopers: open }) };
  }
  const tag = tagged;
  if (!tag) return undefined;
  const found: FoundRef = { refKind: "tag", ...(tag.commit ? { commit: tag.commit.id } : {}) };
  // A GitLab older than the tag's `protected`: a rule of exactly the tag's name proves it protected. A
  // wildcard rule might too, but matching rules to prove protection would be a guess at GitLab's semantics: not done.
  const protectedTag = typeof tag.protected === "boolean" ? tag.protected : (await gitlab.findProtectedTag(projectId, ref, signal)) !== undefined;
  if (!protectedTag) return typeof tag.protected === "boolean" ? { ...found, refProtected: false } : found;
  const rule = await developerTagRule(gitlab, projectId, ref, signal);
  return { ...found, refProtected: true, ...(rule !== undefined && { openToDevelopers: { rule } }) };
}

/** GitLab's `protected` when it is a boolean; anything else says nothing. */
const said = (value: unknown): Pick<FoundRef, "refProtected"> => (typeof value === "boolean" ? { refProtected: value } : {});

/** Why the ref may not be started on by a rule without `unprotected: true` (`rule` names it), or undefined when GitLab protects it. */
export function protectionProblem(found: FoundRef, ref: string, projectPath: string, rule: string): string | undefined {
  const what = `${found.refKind} ${ref} of project ${projectPath}`;
  const open = found.refProtected === true ? found.openToDevelopers : undefined;
  if (open) {
    const may = open.rule !== undefined ? `create tags its protection rule ${open.rule} matches` : open.merge ? "merge into it" : "push to it";
    const fix = open.rule === undefined ? "push to it and merge into it in GitLab (Settings > Repository > Protected branches)" : "create them in GitLab (Settings > Repository > Protected tags)";
    return `${what} is protected, but Developers may ${may}: any Developer chooses what a pipeline Warden starts runs, with Warden's identity. ` +
      `Allow only Maintainers to ${fix}, or set unprotected: true on its rule, ${rule}, to allow it`;
  }
  if (found.refProtected === true) return undefined;
  const allow = `set unprotected: true on its rule, ${rule}, to allow unprotected refs`;
  if (found.refProtected === undefined) {
    return `${what}: this GitLab does not say whether a tag is protected, and no protected-tag rule has exactly its name (a wildcard rule is not matched by Warden): protect the tag by its exact name, or ${allow}`;
  }
  const settings = found.refKind === "branch" ? "Protected branches" : "Protected tags";
  return `${what} is not protected: whoever can push to it chooses what a pipeline Warden starts runs, with Warden's identity. Protect the ${found.refKind} in GitLab (Settings > Repository > ${settings}), or ${allow}`;
}

/** The project by path or id, or undefined when GitLab answers 404 (no such project, or the token cannot see it). */
export async function findProject(gitlab: GitLabClient, project: string, signal?: AbortSignal): Promise<Project | undefined> {
  try {
    return await gitlab.getProject(project, signal);
  } catch (err) {
    if (err instanceof HttpError && err.status === 404) return undefined;
    throw err;
  }
}
