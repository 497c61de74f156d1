/**
 * What the CI-source checks share (ci-sources.ts, ci-walk.ts): their input, how they quote what a CI file
 * names, how they judge another project's ref an include or a component reads, expand the variables
 * they know, and read a CI file (each once a start).
 */
import { developerMayTag, HttpError, NO_RULE, readRepositoryFile, type CiInclude, type GitLabClient, type Project } from "../../gitlab/index.ts";
import { ANY_RUN, SEGMENT_RUN, wildcardMatcher } from "../../gitlab/wildcard.ts";
import { redactThenCut } from "../../redact/index.ts";
import { isMapping } from "./ci-yaml.ts";
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
  downstream: (project: string, ref: string | undefined, variables: readonly string[], depth: number) => Promise<string | undefined>;
  /** The names of the variables the requester gives this pipeline: what a CI file's `$NAME` may take from them. */
  variables: readonly string[];
  /** The names of this pipeline's pipeline variables, which `forward: pipeline_variables` passes on: the requester's, or in a child pipeline what its parent passed. */
  pipelineVariables: readonly string[];
  /** The ref the pipeline runs on, and what it is. */
  ref: string;
  refKind: "branch" | "tag";
  /** What the check found of each child pipeline its configuration makes, by what it includes and is passed: each judged once. */
  children: { verdicts: Map<string, Promise<string | undefined>>; judging: Set<string> };
  /** Other projects' refs judged for this start (projectRefProblem), by path and ref: each judged once. */
  refs: Map<string, Promise<Project | string>>;
  /** The CI files read for this start, by project, ref and path: each read once. */
  files: Map<string, Promise<Buffer | undefined>>;
  /** What GitLab's CI Lint took, by the project whose file includes it (its path, lower case): what a wildcard or a variable named. */
  listed: ReadonlyMap<string, readonly CiInclude[]>;
  /** The pipelines above the one judged here (0: the one asked for). */
  depth: number;
}


/**
 * A commit id: what it holds cannot change. Git takes hex of its object ids' length as an id: 40 digits are
 * a commit on a SHA-1 repository (GitLab refuses such a branch name), 64 only on a SHA-256 one; on a SHA-1
 * repository 64 name a branch or tag, which anyone who may push can make (judgeProjectRef asks).
 */
const COMMIT = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

export const quote = (text: string) => JSON.stringify(redactThenCut(withoutCredentials(text), 200));

/** A component's project path and version: `host/group/project/name@version`. */
export function componentAt(location: string): [string | undefined, string | undefined] {
  const at = location.lastIndexOf("@");
  if (at < 0) return [undefined, undefined];
  const segments = location.slice(0, at).split("/");
  return segments.length < 3 ? [undefined, undefined] : [segments.slice(1, -1).join("/"), location.slice(at + 1)];
}

/**
 * Why a component's version is not one ref, or undefined: GitLab takes `~latest`, or a partial version
 * (`1`, `1.2`), as the newest catalog release it matches, before any ref of that name, and that
 * release's tag may be one any Developer created.
 */
export function versionProblem(version: unknown, rule: string): string | undefined {
  if (typeof version !== "string" || !/^~latest$|^\d+(?:\.\d+)?$/.test(version)) return undefined;
  return `its version ${quote(version)} names the newest catalog release it matches, not one ref, and a Developer may have created that release's tag: pin a full version, a protected tag or a commit, or set unprotected: true on its rule, ${rule}, to allow it`;
}

/** The included project, where its ref is a commit or one GitLab protects from Developers; else why not. */
export function projectRefProblem(input: SourcesInput, path: unknown, ref: unknown): Promise<Project | string> {
  // Judged once a start for each project and ref, however many files name them.
  const key = JSON.stringify([typeof path === "string" ? path.toLowerCase() : path, ref]);
  const known = input.refs.get(key);
  if (known) return known;
  const judged = judgeProjectRef(input, path, ref);
  input.refs.set(key, judged);
  return judged;
}

async function judgeProjectRef({ gitlab, rule, signal }: SourcesInput, path: unknown, ref: unknown): Promise<Project | string> {
  const allow = `set unprotected: true on its rule, ${rule}, to allow it`;
  // A variable (`$NAME`, masked as [MASKED] in CI Lint's answer) is chosen when the pipeline runs, not here.
  if (typeof path !== "string" || typeof ref !== "string" || /[$[\]]/.test(path + ref) || VARIABLE.test(path + ref)) return `a variable names the project or the ref, chosen when the pipeline runs: write them out, or ${allow}`;
  const project = await findProject(gitlab, path, signal);
  if (project === undefined) return `that project was not found, or the token cannot see it: ${allow}`;
  if (COMMIT.test(ref) && ref.length === 40) return project;
  const name = ref === "HEAD" ? project.default_branch : ref;
  if (typeof name !== "string" || name === "") return `that project has no default branch: ${allow}`;
  const found = await findRef(gitlab, project.id, name, signal);
  // 64 hex digits no branch or tag is named: a SHA-256 repository's commit id.
  if (found === undefined && COMMIT.test(ref)) return project;
  if (found === undefined || found === "ambiguous") return `${quote(name)} is not one branch or tag of that project: ${allow}`;
  // Named as the file writes it, not where GitLab resolves it: a project moved since may now sit where whoever reads
  // the answer (a chat user, the author of the file) may not see it, which GitLab would not show them either.
  const problem = protectionProblem(found, name, path, rule);
  if (problem) return problem;
  if (found.refKind === "branch" && ref !== "HEAD") {
    // GitLab reads an included file (and a component) at the commit git resolves the name to, and git takes a
    // tag before a branch: a Developer who tags a commit of their own with the branch's name, after this check,
    // chooses what the pipeline includes, even hours later for a child pipeline's trigger.
    const tagger = await developerMayTag(gitlab, project.id, name, signal);
    if (tagger !== undefined) {
      const who = tagger === NO_RULE ? "no protected-tag rule matches that name" : `its protected-tag rule ${quote(tagger)} lets Developers create it`;
      return `branch ${name} of project ${path} is protected, but a Developer may create a tag of the same name (${who}), which GitLab reads the include at instead: allow only Maintainers to create tags matching ${quote(name)} in GitLab (Settings > Repository > Protected tags), or ${allow}`;
    }
  }
  return project;
}

/** A variable as GitLab expands one in an include or a trigger (its ExpandVariables): `$NAME`, `${NAME}`, `%NAME%`. */
export const VARIABLE = /\$(?:\{\w+\}|\w+)|%\w+%/;

/** Whether text (an include entry, a rule) refers to a variable the requester gives: `$NAME`, `${NAME}`, `%NAME%`. */
export function steeredBy(text: string, names: readonly string[]): boolean {
  return names.some((name) => {
    const literal = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    return new RegExp(`\\$(?:${literal}(?![A-Za-z0-9_])|\\{${literal}\\})|%${literal}%`).test(text);
  });
}

/** Whether text interpolates one of these inputs: `$[[ inputs.name ]]`, with functions after a `|` or not. */
export const usesInput = (text: string, names: readonly string[]) => [...text.matchAll(/\$\[\[\s*inputs\.([\w-]+)/g)].some((m) => names.includes(m[1]!));

/**
 * The names of an include entry's `inputs:` whose values the requester chooses: GitLab expands the
 * variables of the whole entry, its inputs too, and an input may pass on one the includer's file was
 * given (`chosen`). GitLab's CI Lint took what such an input names with other values.
 */
export function chosenInputs(inputs: unknown, variables: readonly string[], chosen: readonly string[]): string[] {
  if (!isMapping(inputs)) return [];
  return Object.keys(inputs).filter((name) => {
    const value = JSON.stringify(inputs[name]) ?? "";
    return steeredBy(value, variables) || usesInput(value, chosen);
  });
}

/**
 * A value (an include entry, a trigger) with the pipeline's predefined variables Warden knows expanded:
 * the project's and the server's names, the ref and its commit. Others stay as written, and so does a
 * predefined name the pipeline's variables or `yaml` (the names a trigger job's YAML sets) redefine:
 * GitLab expands with those over its own (CI/CD variable precedence), to values judged nowhere here.
 */
export function expanded<T>(input: SourcesInput, value: T, yaml: readonly string[] = []): T {
  const { project, ref, refKind, commit, gitlab } = input;
  const redefined = new Set([...input.pipelineVariables, ...yaml]);
  const path = project.path_with_namespace;
  const known: Record<string, string> = {
    CI_PROJECT_PATH: path,
    CI_PROJECT_NAMESPACE: path.slice(0, path.lastIndexOf("/")),
    CI_PROJECT_NAME: project.path,
    CI_SERVER_FQDN: new URL(gitlab.instanceUrl).host,
    CI_SERVER_HOST: new URL(gitlab.instanceUrl).hostname,
    CI_COMMIT_REF_NAME: ref,
    CI_COMMIT_SHA: commit,
    ...(refKind === "branch" ? { CI_COMMIT_BRANCH: ref } : { CI_COMMIT_TAG: ref }),
    ...(typeof project.default_branch === "string" && { CI_DEFAULT_BRANCH: project.default_branch }),
  };
  const text = JSON.stringify(value).replace(/\$(?:\{(\w+)\}|(\w+))|%(\w+)%/g, (whole, braced: string | undefined, bare: string | undefined, percent: string | undefined) => {
    const name = braced ?? bare ?? percent!;
    const known_ = redefined.has(name) ? undefined : known[name];
    return known_ === undefined ? whole : JSON.stringify(known_).slice(1, -1);
  });
  return JSON.parse(text) as T;
}

export const namesIn = (variables: unknown): string[] => (isMapping(variables) ? Object.keys(variables) : []);
/** The variables any of these rules sets (`rules: [{ if, variables }]`): whichever matches, they may be passed on. */
export const rulesVariables = (rules: unknown): string[] => (Array.isArray(rules) ? rules.flatMap((rule) => (isMapping(rule) ? namesIn(rule["variables"]) : [])) : []);

/** A local include's path as the files it may name: `**` any path, `*` any name, a variable or an input (`$[[ inputs.x ]]`, interpolated before includes are read) anything. */
export function pattern(path: string): { test: (text: string) => boolean } {
  const parts = path.split(/(\*\*|\*|\$\[\[.*?\]\]|\$\{\w+\}|\$\w+|%\w+%)/).map((part, i) => (i % 2 === 0 ? part : part === "*" ? SEGMENT_RUN : ANY_RUN));
  // Not a RegExp: its backtracking over a many-star path, against each file the lint lists, held the event loop for minutes.
  return { test: wildcardMatcher(parts) };
}

/** A CI file to read: in the pipeline's project (at the checked commit) or in one a trusted include names (at its ref). */
export interface FileAt {
  project: number;
  /** The project's path, as GitLab's CI Lint names the project whose file included one. */
  projectPath: string;
  path: string;
  ref: string;
  /** Reached where GitLab's CI Lint may not have (behind `rules:`, or in a child pipeline): it lists nothing it holds. */
  unlisted: boolean;
  /** Where the file is if not at `path` (a component's second place). */
  otherwise?: string;
  /** The inputs it is included with whose values the requester chooses (chosenInputs): an include they name is refused. */
  chosenInputs?: readonly string[];
}

/** A CI file is text; read up to a policy's size, not more. */
const MAX_FILE_BYTES = 1_000_000;

/** A file's bytes, undefined where it is not there; a component's from the first of its two places (`templates/name.yml`, `templates/name/template.yml`) that has it. */
export function readFirst(input: SourcesInput, file: FileAt): Promise<Buffer | undefined> {
  // Read once a start, however many child pipelines or walks meet it.
  const key = `${file.project}:${file.ref}:${file.path}`;
  const known = input.files.get(key);
  if (known) return known;
  const reading = (async () => {
    for (const path of [file.path, ...(file.otherwise ? [file.otherwise] : [])]) {
      try {
        return (await readRepositoryFile(input.gitlab, { project: file.project, path, ref: file.ref, maxBytes: MAX_FILE_BYTES }, input.signal)).bytes;
      } catch (err) {
        if (!(err instanceof HttpError && err.status === 404)) throw err;
      }
    }
    return undefined;
  })();
  input.files.set(key, reading);
  return reading;
}
