/**
 * What a pipeline's configuration triggers (each judged as Warden would judge starting it), and the CI
 * files Warden reads itself for what GitLab's static CI Lint cannot show (ci-sources.ts).
 */
import { readRepositoryFile } from "../../gitlab/index.ts";
import { componentAt, isMapping, projectRefProblem, quote, readYaml, steeredBy, Unreadable, type Mapping, type SourcesInput } from "./ci-refs.ts";

/** The most pipelines deep a trigger is followed: GitLab's own limit on child pipelines is two below the parent. */
const MAX_DEPTH = 3;

/**
 * The first pipeline the configuration starts that Warden would not, or undefined. Every mapping with a
 * `trigger` counts, hidden jobs (`.name`) too: one a job `extends` is not always merged into it.
 * `depth`: the pipelines above the one this configuration makes.
 */
export async function triggersProblem(input: SourcesInput, config: Mapping, at: string, allow: string, depth: number): Promise<string | undefined> {
  const global = isMapping(config["variables"]) ? Object.keys(config["variables"]) : [];
  for (const [job, body] of Object.entries(config)) {
    if (!isMapping(body) || body["trigger"] === undefined) continue;
    // The names its YAML sets go on with it (forward: yaml_variables, true by default): its own, and the file's unless it inherits none.
    const inherits = !(isMapping(body["inherit"]) && body["inherit"]["variables"] === false);
    const yaml = [...new Set([...(isMapping(body["variables"]) ? Object.keys(body["variables"]) : []), ...(inherits ? global : [])])];
    const problem = await triggerProblem(input, body["trigger"], yaml, allow, depth + 1);
    if (problem !== undefined) return `${at} starts another pipeline (job ${quote(job)}, trigger:) ${problem}`;
  }
  return undefined;
}

async function triggerProblem(input: SourcesInput, trigger: unknown, yaml: readonly string[], allow: string, depth: number): Promise<string | undefined> {
  if (depth > MAX_DEPTH) return `more than ${MAX_DEPTH} pipelines deep, which Warden does not follow: ${allow}`;
  const unreadable = `that Warden cannot read: ${allow}`;
  if (isMapping(trigger) && trigger["inputs"] !== undefined) return `with inputs:, which Warden does not judge: ${allow}`;
  if (isMapping(trigger) && trigger["include"] !== undefined) {
    // A child pipeline: the project's own files at the commit, and templates; GitLab's CI Lint resolves the parent's configuration alone.
    const origin: FileAt = { project: input.project.id, path: "", ref: input.commit };
    const roots = await includesOf(input, trigger["include"], origin, "child", allow);
    if (typeof roots === "string") return `as a child pipeline made of ${roots}`;
    const problem = await filesProblem(input, roots, "child", allow, depth);
    return problem && `as a child pipeline whose ${problem}`;
  }
  const [project, ref, forward] = typeof trigger === "string" ? [trigger] : isMapping(trigger) ? [trigger["project"], trigger["branch"], trigger["forward"]] : [];
  if (typeof project !== "string" || (ref !== undefined && typeof ref !== "string")) return unreadable;
  if (/\$/.test(project + (ref ?? ""))) return `in a project or on a ref a variable names, chosen when it runs: ${allow}`;
  const forwards = isMapping(forward) ? forward : {};
  const passed = { requester: forwards["pipeline_variables"] === true, yaml: forwards["yaml_variables"] === false ? [] : yaml };
  const why = await input.downstream(project, ref, passed, depth);
  return why && `in project ${quote(project)}${ref === undefined ? "" : ` on ${quote(ref)}`}, which Warden would not start itself: ${why}`;
}

/** A CI file to read: in the pipeline's project (at the checked commit) or in one a trusted include names (at its ref). */
export interface FileAt {
  project: number;
  path: string;
  ref: string;
}

/** What an include entry may be: a child pipeline takes the project's own files and templates alone. */
type Walk = "config" | "child";

/** The most CI files one check reads. */
const MAX_FILES = 50;
/** A CI file is text; read up to a policy's size, not more. */
const MAX_FILE_BYTES = 1_000_000;

/**
 * The include entries of CI files read here, judged as the pipeline will meet them, and what each file
 * triggers. GitLab's static CI Lint knows no pipeline variable: an include behind `rules: [if:
 * $DEPLOY_ENV == "prod"]`, or named by `$DEPLOY_ENV`, is not in its answer, yet the pipeline Warden starts
 * with the requester's DEPLOY_ENV takes it; and a GitLab before 16.5 lints the default branch, not the
 * commit asked for. So the files are walked from `roots` (the CI file, or a child pipeline's files): a
 * local file is read and walked (unless a variable or a wildcard names it, which only the pipeline
 * resolves); another project's file, written out, at a ref judged as any include's, is read and walked at
 * that ref; one the requester's variables may turn on or name is refused, as is a URL; an include behind
 * rules on other variables is the lint's to have judged; a component is judged by its version, not read.
 * Returns why, naming the file.
 */
export async function filesProblem(input: SourcesInput, roots: FileAt[], walk: Walk, allow: string, depth: number): Promise<string | undefined> {
  const { gitlab, signal } = input;
  const read = new Set<string>();
  const pending = [...roots];
  while (pending.length > 0) {
    const file = pending.shift()!;
    const key = `${file.project}:${file.ref}:${file.path}`;
    if (read.has(key)) continue;
    if (read.add(key).size > MAX_FILES) return `CI files include more than ${MAX_FILES} files, which Warden does not read: ${allow}`;
    const bytes = (await readRepositoryFile(gitlab, { project: file.project, path: file.path, ref: file.ref, maxBytes: MAX_FILE_BYTES }, signal)).bytes;
    const config = readYaml(bytes.toString("utf8"));
    if (config instanceof Unreadable) return `${where(input, file)} is not YAML Warden can read (${quote(config.error)}): ${allow}`;
    const { include, ...jobs } = config;
    const next = await includesOf(input, include, file, walk, allow);
    if (typeof next === "string") return `${where(input, file)} includes ${next}`;
    pending.push(...next);
    const triggered = await triggersProblem(input, jobs, where(input, file), allow, depth);
    if (triggered !== undefined) return triggered;
  }
  return undefined;
}

/** A file's (or a trigger's) `include:`: the files to read next, or why the pipeline may not take one of them. */
async function includesOf(input: SourcesInput, include: unknown, from: FileAt, walk: Walk, allow: string): Promise<FileAt[] | string> {
  const next: FileAt[] = [];
  for (const entry of include === undefined ? [] : Array.isArray(include) ? include : [include]) {
    const got = await entryProblem(input, entry, from, walk, allow);
    if (typeof got === "string") return got;
    next.push(...got);
  }
  return next;
}

async function entryProblem(input: SourcesInput, entry: unknown, from: FileAt, walk: Walk, allow: string): Promise<FileAt[] | string> {
  const one = typeof entry === "string" ? (/^[a-z]+:\/\//i.test(entry) ? { remote: entry } : { local: entry }) : entry;
  if (!isMapping(one)) return `${quote(JSON.stringify(entry) ?? "")}, which Warden cannot read: ${allow}`;
  // A component's inputs shape its content, not where it comes from: the requester's variables may fill them.
  const { rules, inputs: _inputs, ...named } = one;
  const shown = quote(JSON.stringify(named));
  // What only the pipeline knows (the requester's variables) may turn it on (its rules) or name it.
  const steered = steeredBy(JSON.stringify({ rules, ...named }), input.variables);
  // Named by the pipeline's own variables, expanded as the pipeline will (the static lint knows none of the ref's).
  const at = expanded(input, named);
  const unresolved = JSON.stringify(at).includes("$");
  if (typeof at["template"] === "string") return [];
  if (typeof at["local"] === "string") {
    // A variable or a wildcard chooses among the project's own files, which only the pipeline resolves: not read here.
    if (unresolved || at["local"].includes("*")) return [];
    return [{ ...from, path: at["local"].replace(/^\//, "") }];
  }
  if (walk === "child") {
    const what = typeof at["artifact"] === "string" ? "a file a job writes (artifact:), which cannot be judged before it runs" : `${shown}, which is not a file of the project itself`;
    return `${what}: ${allow}`;
  }
  if (typeof at["remote"] === "string") return `${quote(at["remote"])} (include: remote), a URL whose host chooses what it serves at each run: ${allow}`;
  if (steered) {
    return `${shown}, which the requester's variables turn on or name: they decide what the pipeline includes, which Warden cannot judge beforehand. Include it unconditionally and written out, or ${allow}`;
  }
  // Named by a variable the project sets: the lint expanded and judged it where it includes it; behind rules, perhaps not (they may hold only at run time).
  if (unresolved) return rules === undefined ? [] : `${shown}, named by a variable and behind rules:, which Warden cannot judge beforehand: write it out, or ${allow}`;
  // Judged whatever its rules: the lint, knowing no ref, may have left out one the pipeline takes (if: $CI_COMMIT_BRANCH == "main").
  const component = typeof at["component"] === "string" ? componentAt(at["component"]) : undefined;
  const [path, ref] = component ?? [at["project"], at["ref"] ?? "HEAD"];
  const files = component ? [] : Array.isArray(at["file"]) ? at["file"] : [at["file"]];
  if (!files.every((f): f is string => typeof f === "string")) return `${shown}, which Warden cannot read: ${allow}`;
  const judged = await projectRefProblem(input, path, ref);
  if (typeof judged === "string") return `${shown}, where ${judged}`;
  const read = ref === "HEAD" ? judged.default_branch : String(ref);
  if (typeof read !== "string") return `${shown}, whose project has no default branch: ${allow}`;
  return files.map((f) => ({ project: judged.id, path: f.replace(/^\//, ""), ref: read }));
}

/**
 * An include entry's fields with the pipeline's predefined variables Warden knows expanded: the project's
 * and the server's names, the ref and its commit. Others stay as written.
 */
function expanded(input: SourcesInput, entry: Mapping): Mapping {
  const { project, ref, refKind, commit, gitlab } = input;
  const known: Record<string, string> = {
    CI_PROJECT_PATH: project.path_with_namespace,
    CI_PROJECT_NAMESPACE: project.path_with_namespace.slice(0, project.path_with_namespace.lastIndexOf("/")),
    CI_PROJECT_NAME: project.path,
    CI_SERVER_FQDN: new URL(gitlab.instanceUrl).host,
    CI_SERVER_HOST: new URL(gitlab.instanceUrl).hostname,
    CI_COMMIT_REF_NAME: ref,
    CI_COMMIT_SHA: commit,
    ...(refKind === "branch" ? { CI_COMMIT_BRANCH: ref } : { CI_COMMIT_TAG: ref }),
    ...(typeof project.default_branch === "string" && { CI_DEFAULT_BRANCH: project.default_branch }),
  };
  const text = JSON.stringify(entry).replace(/\$(?:\{(\w+)\}|(\w+))/g, (whole, braced: string | undefined, bare: string | undefined) => {
    const value = known[braced ?? bare!];
    return value === undefined ? whole : JSON.stringify(value).slice(1, -1);
  });
  return JSON.parse(text) as Mapping;
}

/** A file named in a reason: the pipeline's project's by its path, another's by its id, and the ref read. */
function where(input: SourcesInput, file: FileAt): string {
  const project = file.project === input.project.id ? input.project.path_with_namespace : `#${file.project}`;
  return `the file ${quote(file.path)} of project ${project} at ${file.ref}`;
}
