/**
 * What a pipeline's configuration triggers (each judged as Warden would judge starting it), and the CI
 * files Warden reads itself for what GitLab's static CI Lint cannot show (ci-sources.ts).
 */
import { HttpError } from "../../gitlab/index.ts";
import { chosenInputs, componentAt, expanded, namesIn, pattern, projectRefProblem, quote, readFirst, rulesVariables, steeredBy, usesInput, VARIABLE, versionProblem, type FileAt, type SourcesInput } from "./ci-refs.ts";
import { deepMerge, inputKey, isMapping, isUnresolved, readYaml, resolved, Unreadable, unresolvedIn, type Mapping } from "./ci-yaml.ts";

/** The most pipelines deep a trigger is followed: GitLab's own limit on child pipelines is two below the parent. */
const MAX_DEPTH = 3;

/**
 * The first pipeline the configuration starts that Warden would not, or undefined. Every mapping with a
 * `trigger` counts, hidden jobs (`.name`) too. `depth`: the pipelines above the one this configuration makes.
 */
export async function triggersProblem(input: SourcesInput, config: Mapping, at: string, allow: string, depth: number): Promise<string | undefined> {
  // The pipeline's own variables, which every trigger job passes on: the file's, and those workflow: rules set.
  const global = [...namesIn(config["variables"]), ...rulesVariables(isMapping(config["workflow"]) ? config["workflow"]["rules"] : undefined)];
  for (const [job, body] of Object.entries(config)) {
    if (isUnresolved(body)) return `${at} has a job (${quote(job)}) that is a !reference to what Warden did not read, so what it starts could not be judged: ${allow}`;
    if (!isMapping(body) || body["trigger"] === undefined) continue;
    // A trigger job whose parts Warden did not read (a base it extends, a !reference elsewhere) may pass on what no one judges.
    if (body["extends"] !== undefined || unresolvedIn(body)) return `${at} starts another pipeline (job ${quote(job)}, trigger:) built from what Warden did not read (extends: or !reference), so what it passes on could not be judged: ${allow}`;
    // The names its YAML sets go on with it (forward: yaml_variables, true by default): its own, its rules', its matrix's, and the pipeline's it inherits (all, none, or those `inherit: variables:` lists).
    const inherit = isMapping(body["inherit"]) ? body["inherit"]["variables"] : undefined;
    const inherited = inherit === false ? [] : Array.isArray(inherit) ? global.filter((name) => inherit.includes(name)) : global;
    const matrix = isMapping(body["parallel"]) && Array.isArray(body["parallel"]["matrix"]) ? body["parallel"]["matrix"].flatMap(namesIn) : [];
    const yaml = [...new Set([...namesIn(body["variables"]), ...rulesVariables(body["rules"]), ...matrix, ...inherited])];
    const problem = await triggerProblem(input, body["trigger"], yaml, allow, depth + 1);
    if (problem !== undefined) return `${at} starts another pipeline (job ${quote(job)}, trigger:) ${problem}`;
  }
  return undefined;
}

async function triggerProblem(input: SourcesInput, trigger: unknown, yaml: readonly string[], allow: string, depth: number): Promise<string | undefined> {
  if (depth > MAX_DEPTH) return `more than ${MAX_DEPTH} pipelines deep, which Warden does not follow: ${allow}`;
  if (isMapping(trigger) && trigger["inputs"] !== undefined) return `with inputs:, which Warden does not judge: ${allow}`;
  // What it passes on: the pipeline's own variables where forwarded (pipeline_variables, off by default), and the names its YAML sets (yaml_variables, on).
  const forwards = isMapping(trigger) && isMapping(trigger["forward"]) ? trigger["forward"] : {};
  const passed = [...new Set([...(forwards["pipeline_variables"] === true ? input.pipelineVariables : []), ...(forwards["yaml_variables"] === false ? [] : yaml)])];
  if (isMapping(trigger) && trigger["include"] !== undefined) return childProblem(input, trigger["include"], passed, allow, depth);
  if (steeredBy(JSON.stringify(trigger), input.variables)) return `in a project or on a ref the requester's variables name: ${allow}`;
  // Its YAML's names (even with yaml_variables: false, which only keeps them from going downstream) win over predefined ones here.
  const at = expanded(input, trigger, yaml);
  const [project, ref] = typeof at === "string" ? [at] : isMapping(at) ? [at["project"], at["branch"]] : [];
  if (typeof project !== "string" || (ref !== undefined && typeof ref !== "string")) return `that Warden cannot read: ${allow}`;
  if (/\$/.test(project + (ref ?? "")) || VARIABLE.test(project + (ref ?? ""))) return `in a project or on a ref a variable names (set when it runs, or a predefined one its variables redefine), which Warden cannot judge beforehand: write them out, or ${allow}`;
  const why = await input.downstream(project, ref, passed, depth);
  return why && `in project ${quote(project)}${ref === undefined ? "" : ` on ${quote(ref)}`}, which Warden would not start itself: ${why}`;
}

/** The most child pipelines one start's configurations make that are judged. */
const MAX_CHILDREN = 20;

/**
 * A child pipeline (`trigger: include`), judged once a start for what it includes and is passed, however
 * many jobs trigger it: the project's own files at the commit, other projects' at refs judged as any
 * include's, and templates; GitLab's CI Lint resolves the parent's configuration alone. Its pipeline
 * variables are what its parent passed, which its own triggers may forward in turn.
 */
async function childProblem(input: SourcesInput, include: unknown, passed: readonly string[], allow: string, depth: number): Promise<string | undefined> {
  const { verdicts, judging } = input.children;
  const key = JSON.stringify([include, [...passed].sort()]);
  if (judging.has(key)) return `as a child pipeline that starts itself again, round a cycle GitLab cuts off only at its depth limit: ${allow}`;
  const known = verdicts.get(key);
  if (known) return known;
  if (verdicts.size >= MAX_CHILDREN) return `as one of more than ${MAX_CHILDREN} child pipelines, which Warden does not judge one by one: ${allow}`;
  judging.add(key);
  const verdict = (async () => {
    const child = { ...input, pipelineVariables: passed };
    const origin: FileAt = { project: input.project.id, projectPath: input.project.path_with_namespace, path: "", ref: input.commit, unlisted: true };
    const roots = await includesOf(child, include, origin, allow);
    if (typeof roots === "string") return `as a child pipeline made of ${roots}`;
    const problem = await filesProblem(child, roots, allow, depth);
    return problem && `as a child pipeline whose ${problem}`;
  })().finally(() => judging.delete(key));
  verdicts.set(key, verdict);
  return verdict;
}


/** The most CI files one check reads. */
const MAX_FILES = 50;

/**
 * The include entries of CI files read here, judged as the pipeline will meet them, then what the
 * pipeline they make triggers. GitLab's static CI Lint knows no pipeline variable and no ref: an include
 * behind `rules: [if: $DEPLOY_ENV == "prod"]` or `[if: $CI_COMMIT_BRANCH == "main"]` is not in its
 * answer, yet the pipeline Warden starts takes it; it resolves a parent's configuration, not a child
 * pipeline's; and a GitLab before 16.5 lints the default branch. So the files are read from `roots` (the
 * CI file, or a child pipeline's files), as GitLab reads them (ci-yaml.ts), and merged, each file's
 * includes before it, into one configuration whose `extends:` and then `!reference` tags are resolved
 * before its triggers are judged. A local file is read whatever its rules; another project's file or a
 * component, at a ref judged as any include's, is read at that ref whatever its rules; what a wildcard,
 * a variable the project sets or a file's input names is read as the lint took it, and refused where it
 * matches none of that; one the requester's variables name, or an input they set, is refused, as is a
 * URL, and so is a file with a key an input writes. Returns why, naming the file.
 */
export async function filesProblem(input: SourcesInput, roots: FileAt[], allow: string, depth: number): Promise<string | undefined> {
  const read = new Set<string>();
  let merged: Mapping = {};
  for (const root of roots) {
    const loaded = await load(input, root, allow, read);
    if (typeof loaded === "string") return loaded;
    merged = deepMerge(merged, loaded);
  }
  const config = resolved(merged);
  const named = roots.length === 1 ? where(input, roots[0]!) : `the configuration of ${roots.length} files`;
  if (config instanceof Unreadable) return `${named} cannot be read as GitLab reads it (${quote(config.error)}): ${allow}`;
  return triggersProblem(input, config, named, allow, depth);
}

/** A file's configuration with what it includes merged in before it, as GitLab merges them; or why the pipeline may not take it. */
async function load(input: SourcesInput, file: FileAt, allow: string, read: Set<string>): Promise<Mapping | string> {
  // Read again where the requester chooses other inputs of it: what those name is judged there.
  const key = `${file.project}:${file.ref}:${file.path}:${(file.chosenInputs ?? []).join(",")}`;
  if (read.has(key)) return {};
  if (read.add(key).size > MAX_FILES) return `CI files include more than ${MAX_FILES} files, which Warden does not read: ${allow}`;
  let bytes: Buffer | undefined;
  try {
    bytes = await readFirst(input, file);
  } catch (err) {
    // The token's user may not read it; the pipeline, run as the same user, could not include it either.
    if (err instanceof HttpError && err.status === 403) return `${where(input, file)} could not be read (GitLab answered 403: the token's user cannot read that project's code), so what it holds could not be judged: give that user Reporter there, or ${allow}`;
    throw err;
  }
  // Not there (a file behind `rules: exists:`, one a child names that GitLab would fail on): nothing of it runs.
  if (bytes === undefined) return {};
  const config = readYaml(bytes.toString("utf8"));
  if (config instanceof Unreadable) return `${where(input, file)} is not YAML Warden can read (${quote(config.error)}): ${allow}`;
  const written = inputKey(config);
  if (written !== undefined) return `${where(input, file)} has a key an input writes (${quote(written)}), which GitLab interpolates when the pipeline runs, into a trigger: or an include: say, which Warden cannot judge beforehand: write the key out, or ${allow}`;
  const { include, ...own } = config;
  const next = await includesOf(input, include, file, allow);
  if (typeof next === "string") return `${where(input, file)} includes ${next}`;
  let merged: Mapping = {};
  for (const included of next) {
    const loaded = await load(input, included, allow, read);
    if (typeof loaded === "string") return loaded;
    merged = deepMerge(merged, loaded);
  }
  return deepMerge(merged, own);
}


/** A file's (or a trigger's) `include:`: the files to read next, or why the pipeline may not take one of them. */
async function includesOf(input: SourcesInput, include: unknown, from: FileAt, allow: string): Promise<FileAt[] | string> {
  const next: FileAt[] = [];
  for (const entry of include === undefined ? [] : Array.isArray(include) ? include : [include]) {
    const got = await entryProblem(input, entry, from, allow);
    if (typeof got === "string") return got;
    const chosen = isMapping(entry) ? chosenInputs(entry["inputs"], input.variables, from.chosenInputs ?? []) : [];
    next.push(...got.map((file) => ({ ...file, chosenInputs: chosen })));
  }
  return next;
}

async function entryProblem(input: SourcesInput, entry: unknown, from: FileAt, allow: string): Promise<FileAt[] | string> {
  const one = typeof entry === "string" ? (/^[a-z]+:\/\//i.test(entry) ? { remote: entry } : { local: entry }) : entry;
  if (!isMapping(one)) return `${quote(JSON.stringify(entry) ?? "")}, which Warden cannot read: ${allow}`;
  // Its rules decide only whether it is taken, and it is judged as if it were; its inputs shape the content of what it includes (includesOf), not where that comes from.
  const { rules, inputs: _inputs, ...named } = one;
  const shown = quote(JSON.stringify(named));
  // Named by the requester's variables, or by an input of its file they set: the lint took it with other values.
  if (steeredBy(JSON.stringify(named), input.variables) || usesInput(JSON.stringify(named), from.chosenInputs ?? [])) {
    return `${shown}, which the requester's variables name (or an input they set): they decide what the pipeline includes, which Warden cannot judge beforehand. Write it out, or ${allow}`;
  }
  const at = expanded(input, named);
  const unresolved = JSON.stringify(at).includes("$") || VARIABLE.test(JSON.stringify(at));
  // Not listed by the lint where it was not asked (behind rules, a child's), and not read here, it would go unjudged.
  const unlisted = from.unlisted || rules !== undefined;
  if (typeof at["template"] === "string") return [];
  if (typeof at["local"] === "string") {
    // A variable the project sets, an input or a wildcard: GitLab resolves it, and the lint lists what it took where it was asked; read in place, in include order.
    if (unresolved || at["local"].includes("*")) {
      if (unlisted) return `${shown}, a file named by a variable or a wildcard where GitLab's CI Lint does not resolve it, which Warden cannot read beforehand: name it, or ${allow}`;
      const matches = pattern(at["local"].replace(/^\//, ""));
      const taken = took(input, from, "local").filter((i) => matches.test(i.location.replace(/^\//, ""))).map((i) => ({ ...from, path: i.location.replace(/^\//, ""), unlisted }));
      return taken.length > 0 || at["local"].includes("*") ? taken : unmatched(shown, allow);
    }
    return [{ ...from, path: at["local"].replace(/^\//, ""), unlisted }];
  }
  if (typeof at["artifact"] === "string") return `a file a job writes (artifact:), which cannot be judged before it runs: ${allow}`;
  if (typeof at["remote"] === "string") return `${quote(at["remote"])} (include: remote), a URL whose host chooses what it serves at each run: ${allow}`;
  // Named by a variable the project sets: the lint expanded it where it takes it, and what it took is read here as if written out; behind rules, perhaps not taken.
  if (unresolved) {
    if (unlisted) return `${shown}, named by a variable and behind rules:, which Warden cannot judge beforehand: write it out, or ${allow}`;
    const [project, file, component] = [pattern(String(at["project"] ?? "")), pattern(String(Array.isArray(at["file"]) ? "*" : (at["file"] ?? ""))), pattern(String(at["component"] ?? ""))];
    const taken = typeof at["component"] === "string"
      ? took(input, from, "component").filter((i) => component.test(i.location)).map((i) => ({ component: i.location }))
      : took(input, from, "file").filter((i) => project.test(String(i.extra?.project)) && (Array.isArray(at["file"]) || file.test(i.location.replace(/^\//, "")))).map((i) => ({ project: i.extra?.project, ref: i.extra?.ref, file: i.location }));
    if (taken.length === 0) return unmatched(shown, allow);
    const next: FileAt[] = [];
    for (const written of taken) {
      // What the lint says it took is read as written out: never named by a variable again (a hostile answer would loop).
      if (JSON.stringify(written).includes("$")) return `${shown}, which GitLab's CI Lint names by a variable still: ${allow}`;
      const got = await entryProblem(input, written, from, allow);
      if (typeof got === "string") return got;
      next.push(...got);
    }
    return next;
  }
  const component = typeof at["component"] === "string" ? componentAt(at["component"]) : undefined;
  const [path, ref] = component ?? [at["project"], at["ref"] ?? "HEAD"];
  const files = component ? [] : Array.isArray(at["file"]) ? at["file"] : [at["file"]];
  if (!files.every((f): f is string => typeof f === "string")) return `${shown}, which Warden cannot read: ${allow}`;
  const judged = (component && versionProblem(ref, input.rule)) || (await projectRefProblem(input, path, ref));
  if (typeof judged === "string") return `${shown}, where ${judged}`;
  const read = ref === "HEAD" ? judged.default_branch : String(ref);
  if (typeof read !== "string") return `${shown}, whose project has no default branch: ${allow}`;
  const base = { project: judged.id, projectPath: judged.path_with_namespace, ref: read, unlisted };
  // A component's content is read too: a job here may extend one of its jobs, and take its trigger.
  if (component) {
    const name = String(at["component"]).slice(String(at["component"]).lastIndexOf("/") + 1, String(at["component"]).lastIndexOf("@"));
    return [{ ...base, path: `templates/${name}.yml`, otherwise: `templates/${name}/template.yml` }];
  }
  return files.map((f) => ({ ...base, path: f.replace(/^\//, "") }));
}

/**
 * A variable-named include (or one an input names) matching nothing the lint took: GitLab fails an include
 * that names no file, so the lint resolved it otherwise than Warden reads it, and it is not taken for nothing.
 */
const unmatched = (shown: string, allow: string) =>
  `${shown}, named by a variable or an input, which matches none of the files GitLab's CI Lint took, so what it includes could not be judged: name it, or ${allow}`;

/** What GitLab's CI Lint took of this kind into the file's project. */
const took = (input: SourcesInput, from: FileAt, type: string) => (input.listed.get(from.projectPath.toLowerCase()) ?? []).filter((i) => i.type === type);

/** A file named in a reason: the pipeline's project's by its path, another's by its id, and the ref read. */
function where(input: SourcesInput, file: FileAt): string {
  const project = file.project === input.project.id ? input.project.path_with_namespace : `#${file.project}`;
  return `the file ${quote(file.path)} of project ${project} at ${file.ref}`;
}
