/** Which policy the command line names: a file (--policy, WARDEN_POLICY) or a GitLab repository file (--policy-project …). */
import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { DEFAULT_POLICY_FILE } from "../../lib/config/policy-file.ts";
import type { GitLabPolicyLocation, PolicySettingNames } from "../../lib/config/policy-source.ts";
import { isProjectId, plainPathProblem } from "../../lib/policy/index.ts";
import { type ParsedArgs, UsageError } from "./command.ts";

export type PolicyChoice = { kind: "file"; path: string } | { kind: "gitlab"; at: GitLabPolicyLocation };

export const POLICY_SETTING_NAMES: PolicySettingNames = {
  project: "--policy-project (WARDEN_POLICY_PROJECT)",
  path: "--policy-path (WARDEN_POLICY_PATH)",
  ref: "--policy-ref (WARDEN_POLICY_REF)",
  token: "GITLAB_TOKEN",
  allowUnprotected: "--policy-allow-unprotected-ref (WARDEN_POLICY_ALLOW_UNPROTECTED_REF=1)",
};

/** An option, else its variable: the value and the name it was given by; an empty variable is unset. */
function setting({ values }: ParsedArgs, env: NodeJS.ProcessEnv, option: string, variable: string): { value: string; name: string } | undefined {
  if (values[option] !== undefined) return { value: String(values[option]), name: `--${option}` };
  const value = env[variable];
  return value ? { value, name: variable } : undefined;
}

export function policyChoice(args: ParsedArgs, env: NodeJS.ProcessEnv): PolicyChoice {
  const file = setting(args, env, "policy", "WARDEN_POLICY");
  const project = setting(args, env, "policy-project", "WARDEN_POLICY_PROJECT");
  const path = setting(args, env, "policy-path", "WARDEN_POLICY_PATH");
  const ref = setting(args, env, "policy-ref", "WARDEN_POLICY_REF");
  const allowUnprotectedRef = unprotectedRefAllowed(args, env);
  // resolve("") is the current directory, which the reader would then call "no such file".
  if (file?.value.trim() === "") throw new UsageError(`${file.name} is empty: name the policy file, or leave it out for ${DEFAULT_POLICY_FILE}`);
  if (project === undefined) {
    // With a policy file, --compare-policy-ref reads the base from the repository at --policy-path (compare.ts).
    const stray = (args.values["compare-policy-ref"] === undefined ? path : undefined) ?? ref;
    if (stray) throw new UsageError(`${stray.name} names a policy in a GitLab repository, which needs --policy-project GROUP/PROJECT (or WARDEN_POLICY_PROJECT)`);
    const named = file?.value ?? DEFAULT_POLICY_FILE;
    if (linksOutOfCheckout(named, env)) {
      throw new UsageError(
        `${file?.name ?? "the policy"} ${named} is a symbolic link out of the project's checkout (CI_PROJECT_DIR): a merge request's author could point it at the runner's files, whose lines a policy error would quote into the job log. Name the file itself, inside the checkout`,
      );
    }
    return { kind: "file", path: named };
  }
  if (file) throw new UsageError(`${file.name} and ${project.name} both name a policy: keep one (a file, or a GitLab repository's file)`);
  const blank = [project, path, ref].find((s) => s !== undefined && s.value.trim() === "");
  if (blank) throw new UsageError(`${blank.name} is empty`);
  if (/^\/|\/$/.test(project.value)) throw new UsageError(`${project.name} takes a project's full path (group/project) or id, got ${JSON.stringify(project.value)}`);
  // "." or ".." would be resolved in the request's URL, to another endpoint (GET /projects/).
  const notAPath = isProjectId(project.value) ? undefined : plainPathProblem(project.value, "project path");
  if (notAPath) throw new UsageError(`${project.name}: ${notAPath}`);
  if (path && path.value.startsWith("/")) throw new UsageError(`${path.name} is a path inside the repository, without a leading /: got ${JSON.stringify(path.value)}`);
  const at = { project: project.value, path: path?.value ?? DEFAULT_POLICY_FILE, ...(ref ? { ref: ref.value } : {}) };
  return { kind: "gitlab", at: allowUnprotectedRef ? { ...at, allowUnprotectedRef } : at };
}

/** --policy-allow-unprotected-ref, else WARDEN_POLICY_ALLOW_UNPROTECTED_REF: "1", or unset (or "0"). */
export function unprotectedRefAllowed({ values }: ParsedArgs, env: NodeJS.ProcessEnv): boolean {
  if (values["policy-allow-unprotected-ref"] === true) return true;
  const value = env["WARDEN_POLICY_ALLOW_UNPROTECTED_REF"];
  if (value === undefined || value === "" || value === "0") return false;
  if (value === "1") return true;
  throw new UsageError(`WARDEN_POLICY_ALLOW_UNPROTECTED_REF is 1 (read the policy at a branch or tag that is not protected) or unset, not ${JSON.stringify(value)}`);
}

/**
 * In GitLab CI, whether the policy file named inside the project's checkout is, through a symbolic link, a file
 * outside it. A merge request's pipeline checks out its author's branch: a `warden.yaml` committed as a link to
 * the runner's files (a file variable's, another job's, ~/.netrc) had `policy check` or a comparison quote their
 * lines in its parse errors. A link within the checkout is followed, and a path outside it named by the pipeline's
 * own configuration is the maintainers' choice; outside CI the files are the user's own.
 */
function linksOutOfCheckout(path: string, env: NodeJS.ProcessEnv): boolean {
  const checkout = env["CI_PROJECT_DIR"];
  if (!env["GITLAB_CI"] || !checkout) return false;
  const within = (file: string, dir: string) => pathWithin(dir, file) !== undefined;
  let real: { file: string; checkout: string };
  try {
    real = { file: realpathSync(path), checkout: realpathSync(checkout) };
  } catch {
    // Not there (the reader names it), or the checkout unreadable: nothing is read through a link here.
    return false;
  }
  return (within(resolve(path), resolve(checkout)) || within(resolve(path), real.checkout)) && !within(real.file, real.checkout);
}

/** `file`'s path relative to `dir` (both absolute), where it lies inside it; undefined for `dir` itself or a file outside it. */
export function pathWithin(dir: string, file: string): string | undefined {
  const path = relative(dir, file);
  return path === "" || path.startsWith("..") || isAbsolute(path) ? undefined : path;
}
