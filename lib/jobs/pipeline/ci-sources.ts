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
import { parse } from "yaml";
import { lintCi, readRepositoryFile, type CiInclude, type GitLabClient, type Project } from "../../gitlab/index.ts";
import { redactThenCut } from "../../redact/index.ts";
import { withoutCredentials } from "./ci-config.ts";
import { findProject, findRef, protectionProblem } from "./ref.ts";

export interface SourcesInput {
  gitlab: GitLabClient;
  project: Project;
  commit: string;
  /** The rule that allowed the pipeline, as refusals name it. */
  rule: string;
  signal?: AbortSignal;
  /**
   * Why Warden would not start the pipeline the configuration triggers in `project` (on `ref`, its
   * default branch where undefined; with the requester's variables when `forwardsVariables`; `depth`
   * pipelines below the one asked for), or undefined.
   */
  downstream: (project: string, ref: string | undefined, forwardsVariables: boolean, depth: number) => Promise<string | undefined>;
  /** The pipelines above the one judged here (0: the one asked for). */
  depth: number;
}

/** The most files of the project a child pipeline's configuration is read from. */
const MAX_CHILD_FILES = 50;
/** A child configuration is a file; judged up to a policy's size, not more. */
const MAX_CHILD_BYTES = 1_000_000;
/** A commit id: what it holds cannot change. */
const COMMIT = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

type Mapping = Record<string, unknown>;
const isMapping = (v: unknown): v is Mapping => typeof v === "object" && v !== null && !Array.isArray(v);
const quote = (text: string) => JSON.stringify(redactThenCut(withoutCredentials(text), 200));

/** Why the CI file at the checked commit may not be trusted by the rule (`rule` names it), or undefined. */
export async function ciSourcesProblem(input: SourcesInput): Promise<string | undefined> {
  const { gitlab, project, commit, rule, signal } = input;
  const at = `project ${project.path_with_namespace}'s CI file at ${commit.slice(0, 8)}`;
  const allow = `set unprotected: true on its rule, ${rule}, to allow it`;
  const lint = await lintCi(gitlab, project.id, commit, signal);
  if (!lint.valid) return `GitLab finds ${at} invalid, so no pipeline would start there: the project's pipeline editor (Build > Pipeline editor) says why`;
  if (lint.includes === undefined || lint.mergedYaml === undefined) {
    return `this GitLab's CI Lint does not list what ${at} includes, so who writes what the pipeline runs could not be judged: ${allow}`;
  }
  const included = await includesProblem(input, lint.includes);
  if (included !== undefined) {
    return `${at} includes ${included.what}` + (included.why !== undefined ? `, and ${included.why}` :
      `: whoever can change it chooses what a pipeline Warden starts runs, with Warden's identity. Include only the project's own files, GitLab's templates, and other projects' files at a commit or at a ref only Maintainers may change, or ${allow}`);
  }
  return triggersProblem(input, configuration(lint.mergedYaml), at, allow, input.depth);
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
    const judged = await projectRefProblem(input, path, ref);
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

/** A component's project path and version: `host/group/project/name@version`. */
function componentAt(location: string): [string | undefined, string | undefined] {
  const at = location.lastIndexOf("@");
  if (at < 0) return [undefined, undefined];
  const segments = location.slice(0, at).split("/");
  return segments.length < 3 ? [undefined, undefined] : [segments.slice(1, -1).join("/"), location.slice(at + 1)];
}

/** The included project, where its ref is a commit or one GitLab protects from Developers; else why not. */
async function projectRefProblem({ gitlab, rule, signal }: SourcesInput, path: unknown, ref: unknown): Promise<Project | string> {
  const allow = `set unprotected: true on its rule, ${rule}, to allow it`;
  // A variable (`$NAME`, masked as [MASKED] in CI Lint's answer) is chosen when the pipeline runs, not here.
  if (typeof path !== "string" || typeof ref !== "string" || /[$[\]]/.test(path + ref)) return `a variable names the project or the ref, chosen when the pipeline runs: write them out, or ${allow}`;
  const project = await findProject(gitlab, path, signal);
  if (project === undefined) return `that project was not found, or the token cannot see it: ${allow}`;
  if (COMMIT.test(ref)) return project;
  const name = ref === "HEAD" ? project.default_branch : ref;
  if (typeof name !== "string" || name === "") return `that project has no default branch: ${allow}`;
  const found = await findRef(gitlab, project.id, name, signal);
  if (found === undefined || found === "ambiguous") return `${quote(name)} is not one branch or tag of that project: ${allow}`;
  return protectionProblem(found, name, project.path_with_namespace, rule) ?? project;
}

/** The merged configuration, its keys as written (GitLab's `merged_yaml` writes Ruby symbols: `:job:`). */
function configuration(mergedYaml: string): Mapping {
  const doc = plainKeys(parse(mergedYaml, { logLevel: "silent", maxAliasCount: 1000 }));
  return isMapping(doc) ? doc : {};
}

function plainKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plainKeys);
  if (!isMapping(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.startsWith(":") ? k.slice(1) : k, plainKeys(v)]));
}

/** The most pipelines deep a trigger is followed: GitLab's own limit on child pipelines is two below the parent. */
const MAX_DEPTH = 3;

/**
 * The first pipeline the configuration starts that Warden would not, or undefined. Every mapping with a
 * `trigger` counts, hidden jobs (`.name`) too: one a job `extends` is not always merged into it.
 * `depth`: the pipelines above the one this configuration makes.
 */
async function triggersProblem(input: SourcesInput, config: Mapping, at: string, allow: string, depth: number): Promise<string | undefined> {
  for (const [job, body] of Object.entries(config)) {
    if (!isMapping(body) || body["trigger"] === undefined) continue;
    const problem = await triggerProblem(input, body["trigger"], allow, depth + 1);
    if (problem !== undefined) return `${at} starts another pipeline (job ${quote(job)}, trigger:) ${problem}`;
  }
  return undefined;
}

async function triggerProblem(input: SourcesInput, trigger: unknown, allow: string, depth: number): Promise<string | undefined> {
  if (depth > MAX_DEPTH) return `more than ${MAX_DEPTH} pipelines deep, which Warden does not follow: ${allow}`;
  const unreadable = `that Warden cannot read: ${allow}`;
  if (isMapping(trigger) && trigger["include"] !== undefined) return childProblem(input, trigger["include"], allow, depth);
  const [project, ref, forward] = typeof trigger === "string" ? [trigger] : isMapping(trigger) ? [trigger["project"], trigger["branch"], trigger["forward"]] : [];
  if (typeof project !== "string" || (ref !== undefined && typeof ref !== "string")) return unreadable;
  if (/\$/.test(project + (ref ?? ""))) return `in a project or on a ref a variable names, chosen when it runs: ${allow}`;
  const why = await input.downstream(project, ref, isMapping(forward) && forward["pipeline_variables"] === true, depth);
  return why && `in project ${quote(project)}${ref === undefined ? "" : ` on ${quote(ref)}`}, which Warden would not start itself: ${why}`;
}

/**
 * A child pipeline's configuration: the project's own files (read here at the commit, with what they
 * include in turn) and GitLab's templates; what any of them triggers is judged as the parent's is.
 */
async function childProblem(input: SourcesInput, include: unknown, allow: string, depth: number): Promise<string | undefined> {
  const { gitlab, project, commit, signal } = input;
  const read = new Set<string>();
  const pending: unknown[] = Array.isArray(include) ? [...include] : [include];
  while (pending.length > 0) {
    const entry = pending.shift();
    const local = typeof entry === "string" ? entry : isMapping(entry) && typeof entry["local"] === "string" ? entry["local"] : undefined;
    if (isMapping(entry) && typeof entry["template"] === "string") continue;
    if (local === undefined || /^[a-z]+:\/\//i.test(local) || /[$*]/.test(local)) {
      const what = isMapping(entry) && typeof entry["artifact"] === "string" ? "a file a job writes (artifact:), which cannot be judged before it runs" : `${quote(JSON.stringify(entry) ?? "")}, which is not a file of the project itself`;
      return `as a child pipeline made of ${what}: ${allow}`;
    }
    const path = local.replace(/^\//, "");
    if (read.has(path)) continue;
    if (read.add(path).size > MAX_CHILD_FILES) return `as a child pipeline of more than ${MAX_CHILD_FILES} files, which Warden does not read: ${allow}`;
    const file = await readRepositoryFile(gitlab, { project: project.id, path, ref: commit, maxBytes: MAX_CHILD_BYTES }, signal);
    const config = plainKeys(parse(file.bytes.toString("utf8"), { logLevel: "silent", maxAliasCount: 1000 }));
    if (!isMapping(config)) continue;
    const { include: nested, ...jobs } = config;
    if (nested !== undefined) pending.push(...(Array.isArray(nested) ? nested : [nested]));
    const triggered = await triggersProblem(input, jobs, `whose file ${quote(path)}`, allow, depth);
    if (triggered !== undefined) return `as a child pipeline ${triggered}`;
  }
  return undefined;
}
