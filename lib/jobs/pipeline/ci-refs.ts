/**
 * What the CI-source checks share (ci-sources.ts, ci-walk.ts): their input, how they quote what a CI file
 * names, and how they judge another project's ref an include or a component reads.
 */
import { parseAllDocuments } from "yaml";
import type { GitLabClient, Project } from "../../gitlab/index.ts";
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
   * default branch where undefined; with the variables it passes on; `depth` pipelines below the one
   * asked for), or undefined.
   */
  downstream: (project: string, ref: string | undefined, variables: Downstream, depth: number) => Promise<string | undefined>;
  /** The names of the variables the requester gives this pipeline: what a CI file's `$NAME` may take from them. */
  variables: readonly string[];
  /** The ref the pipeline runs on, and what it is. */
  ref: string;
  refKind: "branch" | "tag";
  /** The pipelines above the one judged here (0: the one asked for). */
  depth: number;
}

/** The variables a trigger passes on: the requester's (forward: pipeline_variables), and the names its YAML sets (yaml_variables, on by default). */
export interface Downstream {
  requester: boolean;
  yaml: readonly string[];
}

/** A commit id: what it holds cannot change. */
const COMMIT = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

export type Mapping = Record<string, unknown>;
export const isMapping = (v: unknown): v is Mapping => typeof v === "object" && v !== null && !Array.isArray(v);
export const quote = (text: string) => JSON.stringify(redactThenCut(withoutCredentials(text), 200));

/** A component's project path and version: `host/group/project/name@version`. */
export function componentAt(location: string): [string | undefined, string | undefined] {
  const at = location.lastIndexOf("@");
  if (at < 0) return [undefined, undefined];
  const segments = location.slice(0, at).split("/");
  return segments.length < 3 ? [undefined, undefined] : [segments.slice(1, -1).join("/"), location.slice(at + 1)];
}

/** The included project, where its ref is a commit or one GitLab protects from Developers; else why not. */
export async function projectRefProblem({ gitlab, rule, signal }: SourcesInput, path: unknown, ref: unknown): Promise<Project | string> {
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

/** YAML that could not be read, and the parser's first word on why. */
export class Unreadable {
  readonly error: string;
  constructor(error: string) {
    this.error = error;
  }
}

/**
 * A CI file's YAML as GitLab reads it (Psych: YAML 1.1, `<<` merge keys merged), keys as written; or why
 * not. A file the parser finds errors in is not judged by what was left of it.
 */
export function readYaml(text: string): Mapping | Unreadable {
  // A key written twice is taken as Psych takes it (the last wins); a file with inputs is a `spec:` header, then `---` and the configuration.
  const docs = parseAllDocuments(text, { merge: true, uniqueKeys: false, logLevel: "silent" });
  if (!Array.isArray(docs)) return {};
  const error = docs.flatMap((d) => d.errors)[0];
  if (error) return new Unreadable(error.message.split("\n")[0]!);
  const first = docs[0]?.toJS({ maxAliasCount: 1000 }) as unknown;
  const config = docs.length === 2 && isMapping(first) && Object.keys(first).length === 1 && "spec" in first ? docs[1]! : docs.length === 1 ? docs[0]! : undefined;
  if (config === undefined) return new Unreadable(`${docs.length} YAML documents, where GitLab reads one (or a spec: header and one)`);
  const value = plainKeys(config.toJS({ maxAliasCount: 1000 }));
  return isMapping(value) ? value : {};
}

/** Whether text (an include entry, a rule) refers to a variable the requester gives: `$NAME`, `${NAME}`. */
export function steeredBy(text: string, names: readonly string[]): boolean {
  return names.some((name) => {
    const literal = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    return new RegExp(`\\$(?:${literal}(?![A-Za-z0-9_])|\\{${literal}\\})`).test(text);
  });
}

/** A YAML document with Ruby's symbol keys (`:job`, as GitLab's merged_yaml writes them) read as written. */
export function plainKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plainKeys);
  if (!isMapping(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.startsWith(":") ? k.slice(1) : k, plainKeys(v)]));
}
