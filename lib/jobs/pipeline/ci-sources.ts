/**
 * Who writes what a pipeline Warden starts runs, past the ref's own CI file. GitLab reads `include:`
 * with the pipeline user's access, Warden's: another project's file at a branch its Developers push to,
 * a URL, a CI/CD component at a branch, is written by someone no rule judged, as a `ci_config_path` in
 * another project is (ci-config.ts). And a `trigger:` starts a pipeline in another project, as Warden's
 * user too, on a ref and with variables no rule judged. So, from what GitLab's CI Lint resolves at the
 * checked commit (lib/gitlab/ci-lint.ts):
 * - an include is trusted as its ref would be: a file of the project itself (or of a trusted file's
 *   project), GitLab's own template, another project's file or component at a commit or at a ref GitLab
 *   protects from Developers (ref.ts); never a URL, whose content its host chooses at each run;
 * - a pipeline the configuration triggers in another project must be one Warden would start itself
 *   (`downstream`: the same checks, that project's rule and CI file included);
 * - a child pipeline may be made only of the project's own files and GitLab's templates, read at the
 *   commit here (CI Lint resolves the parent's configuration alone), and a dynamic one (`artifact:`, a
 *   file a job writes) not at all.
 * A rule with `unprotected: true` trusts whoever writes the CI file, and skips all of this.
 */
import { lintCi, type CiInclude } from "../../gitlab/index.ts";
import { componentAt, projectRefProblem, quote, versionProblem, type SourcesInput } from "./ci-refs.ts";
import { readYaml, resolved, Unreadable } from "./ci-yaml.ts";
import { filesProblem, triggersProblem } from "./ci-walk.ts";

/** Why the CI file at the checked commit may not be trusted by the rule (`rule` names it), or undefined. */
export async function ciSourcesProblem(request: Omit<SourcesInput, "children" | "listed" | "pipelineVariables" | "files" | "refs">): Promise<string | undefined> {
  const { gitlab, project, commit, rule, signal } = request;
  const at = `project ${project.path_with_namespace}'s CI file at ${commit.slice(0, 8)}`;
  const allow = `set unprotected: true on its rule, ${rule}, to allow it`;
  const lint = await lintCi(gitlab, project.id, commit, signal);
  if (!lint.valid) return `GitLab finds ${at} invalid, so no pipeline would start there: the project's pipeline editor (Build > Pipeline editor) says why`;
  if (lint.includes === undefined || lint.mergedYaml === undefined) {
    return `this GitLab's CI Lint does not list what ${at} includes, so who writes what the pipeline runs could not be judged: ${allow}`;
  }
  // A GitLab before 16.5 lints the default branch's head whatever is asked: the CI file's own includes, listed first, then say
  // another commit. Not those they include: a file of the project at another ref (its default branch's templates) is read at that ref's.
  const first = lint.includes.find((i) => String(i.context_project).toLowerCase() === project.path_with_namespace.toLowerCase() && typeof i.context_sha === "string");
  const elsewhere = first !== undefined && first.context_sha !== commit ? first : undefined;
  if (elsewhere) return `this GitLab's CI Lint read ${at.replace(/ at \w+$/, "")} at ${String(elsewhere.context_sha).slice(0, 8)}, not the commit asked for (GitLab 16.5 or later lints the one asked for), so what the pipeline includes could not be judged: ${allow}`;
  const read = readYaml(lint.mergedYaml);
  const merged = read instanceof Unreadable ? read : resolved(read);
  if (merged instanceof Unreadable) return `GitLab's CI Lint answered for ${at} with a merged configuration that is not YAML Warden can read (${quote(merged.error)}): ${allow}`;
  // What the lint took, by the project whose file includes it: what a wildcard or a variable named, the walk reads where it meets it.
  const listed = new Map<string, CiInclude[]>();
  for (const i of lint.includes.filter((i) => typeof i.context_project === "string")) {
    const by = String(i.context_project).toLowerCase();
    listed.set(by, [...(listed.get(by) ?? []), i]);
  }
  const input: SourcesInput = { ...request, pipelineVariables: request.variables, children: { verdicts: new Map(), judging: new Set() }, files: new Map(), refs: new Map(), listed };
  const included = await includesProblem(input, lint.includes);
  if (included !== undefined) {
    return `${at} includes ${included.what}` + (included.why !== undefined ? `, and ${included.why}` :
      `: whoever can change it chooses what a pipeline Warden starts runs, with Warden's identity. Include only the project's own files, GitLab's templates, and other projects' files at a commit or at a ref only Maintainers may change, or ${allow}`);
  }
  // What the static CI Lint cannot see: includes the requester's variables turn on or name, and what the files read trigger.
  const ciFile = { project: project.id, projectPath: project.path_with_namespace, path: project.ci_config_path || ".gitlab-ci.yml", ref: commit, unlisted: false };
  return (await filesProblem(input, [ciFile], allow, input.depth)) ?? triggersProblem(input, merged, at, allow, input.depth);
}

/** The first include no one the policy trusts would have written, and why where its ref says, or undefined. */
async function includesProblem(input: SourcesInput, includes: readonly CiInclude[]): Promise<{ what: string; why?: string } | undefined> {
  // The projects whose files are trusted: local includes read in them are too, whatever order GitLab lists them in.
  const trusted = new Set([input.project.path_with_namespace.toLowerCase()]);
  for (const include of includes) {
    const { type, location } = include;
    if (type === "template" || type === "local") continue;
    if (type === "remote") return { what: `${quote(location)} (include: remote), a URL` };
    if (type !== "file" && type !== "component") return { what: `${quote(location)} (an include of a kind Warden does not know, ${quote(type)})` };
    const [path, ref] = type === "file" ? [include.extra?.project, include.extra?.ref ?? "HEAD"] : componentAt(location);
    const judged = (type === "component" && versionProblem(ref, input.rule)) || (await projectRefProblem(input, path, ref));
    if (typeof judged !== "string") {
      trusted.add(judged.path_with_namespace.toLowerCase());
      continue;
    }
    const where = ref === "HEAD" ? "its default branch" : quote(String(ref));
    return { what: `${quote(location)} of project ${quote(String(path))} at ${where} (include: ${type === "file" ? "project" : "component"})`, why: judged };
  }
  const untrusted = includes.find((i) => i.type === "local" && !(typeof i.context_project === "string" && trusted.has(i.context_project.toLowerCase())));
  return untrusted && { what: `${quote(untrusted.location)} (include: local) of project ${quote(String(untrusted.context_project))}, which is not included at a trusted ref` };
}
