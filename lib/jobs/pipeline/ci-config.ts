/**
 * Which CI file a pipeline Warden starts runs. GitLab runs the file the project's CI/CD configuration
 * setting names, not always one of the ref: `file@group/project[:ref]` is read from another project (at
 * its default branch, or at a ref of the setting's choosing, an unprotected branch say) and a URL from
 * wherever it points. Whoever can change that file chooses what the pipeline runs, with Warden's
 * identity, however well the ref is protected; so such a setting is refused as an unprotected ref is.
 */
import { redactThenCut } from "../../redact/index.ts";
import type { Project } from "../../gitlab/index.ts";

/** Why the project's CI file may not be trusted by a rule without `unprotected: true` (`rule` names it), or undefined. */
export function ciConfigProblem(project: Pick<Project, "ci_config_path" | "path_with_namespace">, ref: string, rule: string): string | undefined {
  const path = project.ci_config_path;
  const allow = `or set unprotected: true on its rule, ${rule}, to allow it`;
  if (path === undefined) {
    return `GitLab did not say which CI file project ${project.path_with_namespace}'s pipelines run (its ci_config_path, shown to a token that can read its code): ${allow}`;
  }
  if (path === null || path === "" || (typeof path === "string" && !path.includes("@") && !path.includes("://"))) return undefined;
  const named = redactThenCut(withoutCredentials(String(path)), 200);
  return `project ${project.path_with_namespace} runs the CI file its settings name, ${JSON.stringify(named)}, which is not a file of ${ref}: ` +
    `whoever can change that file chooses what a pipeline Warden starts runs, with Warden's identity. Keep the CI file in the project's own repository ` +
    `(Settings > CI/CD > General pipelines > CI/CD configuration file), ${allow}`;
}

/**
 * A remote CI file's URL as it may be quoted: its scheme, host and path. Remote includes take no
 * headers, so a URL that needs a credential carries it in its user:password or query (a signed URL),
 * which the setting's Maintainers chose to show no one else; the reply may reach a chat user who is
 * not even a member of the project.
 */
export function withoutCredentials(path: string): string {
  if (!path.includes("://")) return path;
  if (!URL.canParse(path)) return "a URL that is not well formed";
  const url = new URL(path);
  return `${url.protocol}//${url.host}${url.pathname}`;
}
