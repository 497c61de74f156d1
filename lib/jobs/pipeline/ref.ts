/**
 * What a pipeline's ref is in a project, as GitLab resolves it (a branch first, then a tag), the
 * commit it points at, and whether GitLab protects it. A pipeline Warden starts runs as Warden's user
 * (its CI job token, its right to deploy to protected environments) and runs the CI file the ref
 * holds: on an unprotected ref, whoever can push writes that file, and so does every Developer on a
 * protected branch whose rule lets Developers push. So protection is what GitLab says, and where it
 * does not say, the ref counts as unprotected.
 */
import type { GitLabClient } from "../../gitlab/index.ts";

export interface FoundRef {
  refKind: "branch" | "tag";
  commit?: string;
  /** Undefined: GitLab did not say (a tag on a version without the field, and no rule of exactly its name). */
  refProtected?: boolean;
  /** A protected branch whose rule lets Developers push: protected, but not from them. Not reported (the reason says it). */
  developersCanPush?: true;
}

export async function findRef(gitlab: GitLabClient, projectId: number, ref: string, signal?: AbortSignal): Promise<FoundRef | undefined> {
  const branch = await gitlab.findBranch(projectId, ref, signal);
  if (branch) return { refKind: "branch", commit: branch.commit.id, ...said(branch.protected), ...(branch.developers_can_push === true && { developersCanPush: true }) };
  const tag = await gitlab.findTag(projectId, ref, signal);
  if (!tag) return undefined;
  const found: FoundRef = { refKind: "tag", ...(tag.commit ? { commit: tag.commit.id } : {}) };
  if (typeof tag.protected === "boolean") return { ...found, refProtected: tag.protected };
  // A GitLab older than the tag's `protected`: a rule of exactly the tag's name proves it protected. A
  // wildcard rule might too, but matching rules here would be a guess at GitLab's semantics: not done.
  return (await gitlab.findProtectedTag(projectId, ref, signal)) ? { ...found, refProtected: true } : found;
}

/** GitLab's `protected` when it is a boolean; anything else says nothing. */
const said = (value: unknown): Pick<FoundRef, "refProtected"> => (typeof value === "boolean" ? { refProtected: value } : {});

/** Why the ref may not be started on by a rule without `unprotected: true` (`rule` names it), or undefined when GitLab protects it. */
export function protectionProblem(found: FoundRef, ref: string, projectPath: string, rule: string): string | undefined {
  const what = `${found.refKind} ${ref} of project ${projectPath}`;
  if (found.refProtected === true && found.developersCanPush) {
    return `${what} is protected, but Developers may push to it: any Developer chooses what a pipeline Warden starts runs, with Warden's identity. ` +
      `Allow only Maintainers to push to it in GitLab (Settings > Repository > Protected branches), or set unprotected: true on its rule, ${rule}, to allow it`;
  }
  if (found.refProtected === true) return undefined;
  const allow = `set unprotected: true on its rule, ${rule}, to allow unprotected refs`;
  if (found.refProtected === undefined) {
    return `${what}: this GitLab does not say whether a tag is protected, and no protected-tag rule has exactly its name (a wildcard rule is not matched by Warden): protect the tag by its exact name, or ${allow}`;
  }
  const settings = found.refKind === "branch" ? "Protected branches" : "Protected tags";
  return `${what} is not protected: whoever can push to it chooses what a pipeline Warden starts runs, with Warden's identity. Protect the ${found.refKind} in GitLab (Settings > Repository > ${settings}), or ${allow}`;
}
