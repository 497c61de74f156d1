/**
 * `GET /projects/:id/ci/lint` (static, as lib/api/lint.rb answers without `dry_run`): the project's CI
 * file at `content_ref` (or its older name `sha`, both at once a 400; default: the default branch's
 * head), its `include:`
 * resolved as GitLab's Ci::Config::External does, with the caller's access: `local` files of the project
 * (and commit) whose file includes them, another project's `file` at a ref (default `HEAD`), a
 * `component` (`host/project/name@version`: `templates/name.yml` or `templates/name/template.yml` there),
 * `remote` and `template` listed but read as empty (no network, no templates here). Each include is
 * listed with its type, location, extra and the project it was read in; the configuration comes back
 * merged (included files first, the including file's keys over theirs), with Ruby's symbol keys
 * (`:job:`), as GitLab's `merged_yaml` has them. An include's `rules:` is evaluated as a static lint does,
 * with no pipeline variable (included below). Only what is needed to judge a CI file's sources is
 * modelled: no `inputs`, no wildcards, no `extends`.
 */
import { parseAllDocuments, stringify } from "yaml";
import { stringParam } from "./context.ts";
import type { Handler, RequestContext } from "./context.ts";
import { ACCESS, type SimProject } from "./dataset.ts";
import { HttpError, notFound } from "./http.ts";
import { findProject } from "./projects.ts";
import { commitSha, hasRef, headSha, refNamed, stableFile } from "./repository.ts";
import { accessLevel, requireLevel } from "./roles.ts";

/** GitLab's limit on the files one configuration includes (ci_max_includes). */
const MAX_INCLUDES = 150;

type Mapping = Record<string, unknown>;
const isMapping = (v: unknown): v is Mapping => typeof v === "object" && v !== null && !Array.isArray(v);

interface Context {
  project: SimProject;
  sha: string;
  /** The project whose CI file is linted: its predefined variables hold in every file it includes. */
  pipeline: SimProject;
}

interface Listed {
  type: string;
  location: string;
  blob: string | null;
  raw: string | null;
  extra: Mapping;
  context_project: string;
  context_sha: string;
}

class LintError extends Error {}

export const lintProjectCi: Handler = (ctx) => {
  const project = findProject(ctx);
  requireLevel(project, ctx, ACCESS.reporter);
  // Grape's mutually_exclusive: both names of the content's ref at once is a 400.
  if (stringParam(ctx, "content_ref") !== undefined && stringParam(ctx, "sha") !== undefined) throw new HttpError(400, { error: "sha, content_ref are mutually exclusive" });
  const ref = stringParam(ctx, "content_ref") ?? stringParam(ctx, "sha") ?? project.default_branch;
  const sha = shaOf(ctx, project, ref);
  if (sha === undefined) throw notFound("Commit");
  const includes: Listed[] = [];
  try {
    const text = fileAt(ctx, project, sha, project.ci_config_path || ".gitlab-ci.yml");
    if (text === undefined) throw new LintError("Please provide content of .gitlab-ci.yml");
    const merged = expand(ctx, parseConfig(text), { project, sha, pipeline: project }, includes);
    return { status: 200, body: { valid: true, errors: [], warnings: [], merged_yaml: stringify(symbolKeys(merged)), includes } };
  } catch (err) {
    if (!(err instanceof LintError)) throw err;
    return { status: 200, body: { valid: false, errors: [err.message], warnings: [], merged_yaml: null, includes } };
  }
};

/** The commit a ref or commit id names in the project: a commit tests made, or a ref's stable one (repository.ts). */
function shaOf(ctx: RequestContext, project: SimProject, ref: string): string | undefined {
  const repositories = ctx.store.repositories;
  if (hasRef(project, ref)) return headSha(repositories, project, ref);
  const stable = refNamed(project, ref);
  return repositories.resolve(project, ref)?.id ?? (stable === undefined ? undefined : commitSha(project, stable));
}

/** A file at a commit tests made, or at a ref's stable commit. */
function fileAt(ctx: RequestContext, project: SimProject, sha: string, path: string): string | undefined {
  const commit = ctx.store.repositories.resolve(project, sha);
  if (commit) return commit.files.get(path)?.content.toString("utf8");
  const ref = refNamed(project, sha);
  return ref === undefined ? undefined : stableFile(project, ref, path);
}

/** A CI file as Psych loads it: YAML 1.1 merge keys, a key written twice taken last; a `spec:` header document before `---` set aside. */
function parseConfig(text: string): Mapping {
  const docs = parseAllDocuments(text, { version: "1.1", merge: true, uniqueKeys: false });
  if (!Array.isArray(docs)) return {};
  const error = docs.flatMap((d) => d.errors)[0];
  if (error) throw new LintError(`Invalid configuration format: ${error.message.split("\n")[0]}`);
  const values = docs.map((d) => d.toJS() as unknown);
  const config = values.length === 2 && isMapping(values[0]) && "spec" in values[0] ? values[1] : values.length === 1 ? values[0] : undefined;
  if (config === null || config === undefined) return {};
  if (!isMapping(config)) throw new LintError("Invalid configuration format");
  return config;
}

/** The configuration with what it includes merged in, every file read listed in `includes`. */
function expand(ctx: RequestContext, doc: Mapping, at: Context, includes: Listed[]): Mapping {
  const { include, ...own } = doc;
  let merged: Mapping = {};
  for (const entry of include === undefined ? [] : Array.isArray(include) ? include : [include]) {
    for (const one of entries(entry)) {
      if (!included(one)) continue;
      if (includes.length >= MAX_INCLUDES) throw new LintError(`Maximum of ${MAX_INCLUDES} nested includes are allowed!`);
      const read = readInclude(ctx, one, at);
      includes.push({ ...read.listed, context_project: at.project.path_with_namespace, context_sha: at.sha });
      merged = deepMerge(merged, read.context ? expand(ctx, parseConfig(read.text), read.context, includes) : parseConfig(read.text));
    }
  }
  return deepMerge(merged, own);
}

/**
 * An include's `rules:` as a static lint evaluates them, with no pipeline variable set (Ci::Config::External::
 * Mapper::Filter, where only project, group and predefined variables are known): `$X == "…"` and `$X` alone
 * do not match, `$X != "…"` does; a rule without `if:` matches; the first match decides (`when: never` excludes).
 */
function included(entry: Mapping): boolean {
  const rules = entry["rules"];
  if (!Array.isArray(rules)) return true;
  const matches = (rule: Mapping) => {
    const condition = typeof rule["if"] === "string" ? rule["if"].trim() : undefined;
    if (condition === undefined) return true;
    return /^\$\w+\s*!=/.test(condition);
  };
  const first = rules.find((rule): rule is Mapping => isMapping(rule) && matches(rule));
  return first !== undefined && first["when"] !== "never";
}

/** One include entry per file: a string is a local path or a URL; `file:` may list several. */
function entries(entry: unknown): Mapping[] {
  if (typeof entry === "string") return [/^https?:\/\//.test(entry) ? { remote: entry } : { local: entry }];
  if (!isMapping(entry)) throw new LintError("Include config is not valid!");
  if (entry["project"] !== undefined && Array.isArray(entry["file"])) return entry["file"].map((file) => ({ ...entry, file }));
  return [entry];
}

/**
 * An include entry with the predefined variables a static lint knows expanded: the project's and the
 * server's names (the pipeline's project's, whichever file includes it). The ref's (CI_COMMIT_*) are
 * empty without a pipeline, so an entry naming one reads nothing.
 */
function withVariables(ctx: RequestContext, project: SimProject, entry: Mapping): Mapping {
  const path = project.path_with_namespace;
  const host = new URL(ctx.baseUrl);
  const known: Record<string, string> = { CI_PROJECT_PATH: path, CI_PROJECT_NAMESPACE: path.slice(0, path.lastIndexOf("/")), CI_PROJECT_NAME: project.path, CI_SERVER_FQDN: host.host, CI_SERVER_HOST: host.hostname, CI_DEFAULT_BRANCH: project.default_branch };
  const text = JSON.stringify(entry).replace(/\$(?:\{(\w+)\}|(\w+))/g, (_, braced: string | undefined, bare: string | undefined) => JSON.stringify(known[braced ?? bare!] ?? "").slice(1, -1));
  return JSON.parse(text) as Mapping;
}

function readInclude(ctx: RequestContext, raw: Mapping, at: Context): { listed: Omit<Listed, "context_project" | "context_sha">; text: string; context?: Context } {
  const { rules: _rules, ...written } = raw;
  const entry = withVariables(ctx, at.pipeline, written);
  const blobOf = (project: SimProject, sha: string, path: string) => `${ctx.baseUrl}/${project.path_with_namespace}/-/blob/${sha}/${path}`;
  if (typeof entry["local"] === "string") {
    const path = entry["local"].replace(/^\//, "");
    const text = fileAt(ctx, at.project, at.sha, path);
    if (text === undefined) throw new LintError(`Local file \`${path}\` does not exist!`);
    return { listed: { type: "local", location: path, blob: blobOf(at.project, at.sha, path), raw: null, extra: {} }, text, context: at };
  }
  if (typeof entry["project"] === "string" && typeof entry["file"] === "string") {
    const ref = typeof entry["ref"] === "string" ? entry["ref"] : "HEAD";
    const path = entry["file"].replace(/^\//, "");
    const project = readable(ctx, entry["project"]);
    const sha = project && shaOf(ctx, project, ref === "HEAD" ? project.default_branch : ref);
    if (!project || !sha) throw new LintError(`Project \`${entry["project"]}\` not found or access denied! Make sure any includes in the pipeline configuration are correctly defined.`);
    const text = fileAt(ctx, project, sha, path);
    if (text === undefined) throw new LintError(`Project \`${entry["project"]}\` file \`${path}\` does not exist!`);
    return { listed: { type: "file", location: path, blob: blobOf(project, sha, path), raw: null, extra: { project: entry["project"], ref } }, text, context: { project, sha, pipeline: at.pipeline } };
  }
  if (typeof entry["component"] === "string") {
    const [address = "", version = ""] = entry["component"].split("@");
    const segments = address.split("/");
    const name = segments.at(-1)!;
    const project = readable(ctx, segments.slice(1, -1).join("/"));
    const sha = project && shaOf(ctx, project, version);
    const path = [`templates/${name}.yml`, `templates/${name}/template.yml`].find((p) => project && sha && fileAt(ctx, project, sha, p) !== undefined);
    if (!project || !sha || !path) throw new LintError(`Component '${entry["component"]}' - content not found`);
    return { listed: { type: "component", location: entry["component"], blob: blobOf(project, sha, path), raw: null, extra: {} }, text: fileAt(ctx, project, sha, path)!, context: { project, sha, pipeline: at.pipeline } };
  }
  if (typeof entry["remote"] === "string") return { listed: { type: "remote", location: entry["remote"], blob: null, raw: entry["remote"], extra: {} }, text: "" };
  if (typeof entry["template"] === "string") return { listed: { type: "template", location: entry["template"], blob: null, raw: null, extra: {} }, text: "" };
  throw new LintError("Include config is not valid!");
}

/** A project the caller may read the code of, by path. */
function readable(ctx: RequestContext, path: string): SimProject | undefined {
  const found = ctx.store.findProject(path);
  if (!found || found.moved || !ctx.store.canSeeProject(ctx.caller, found.project)) return undefined;
  return accessLevel(found.project, ctx) >= ACCESS.reporter ? found.project : undefined;
}

/** GitLab's deep_merge: mappings merged key by key, anything else taken from `over`. */
function deepMerge(base: Mapping, over: Mapping): Mapping {
  const out: Mapping = { ...base };
  for (const [key, value] of Object.entries(over)) out[key] = isMapping(out[key]) && isMapping(value) ? deepMerge(out[key] as Mapping, value) : value;
  return out;
}

/** Keys as Ruby's to_yaml writes a symbol-keyed hash: `:name`. */
function symbolKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(symbolKeys);
  if (!isMapping(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [`:${k}`, symbolKeys(v)]));
}
