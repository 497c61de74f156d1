/**
 * What GitLab resolves a project's CI file to at a commit (`GET /projects/:id/ci/lint`): whether it is
 * valid, every file it includes, nested ones too (each with the project it was read in), and the merged
 * configuration. GitLab reads the includes with the caller's access, as a pipeline does with its user's.
 * Asked with `sha`, which GitLab has taken since 16.5 (and still does beside `content_ref`, its 16.10 name;
 * the two together are refused, `mutually_exclusive`), and without `dry_run`: a static check reads files
 * and creates nothing. An older GitLab lints the default branch's head whatever is asked: the caller
 * checks what the answer says it read (`context_sha`).
 */
import type { GitLabApi } from "./api.ts";

/** One file the configuration includes, as GitLab lists it (Entities::Ci::Lint::Result::Include). */
export interface CiInclude {
  /** `local`, `file` (another project's, or another ref's), `remote`, `template`, `component`. */
  type: string;
  location: string;
  /** For a `file`: the project and ref as written (`HEAD` where none is: the default branch). */
  extra?: { project?: unknown; ref?: unknown };
  /** The project whose file included it (the pipeline's own for a top-level include), and the commit it was read at. */
  context_project?: unknown;
  context_sha?: unknown;
}

export interface CiLint {
  valid: boolean;
  /** Absent where this GitLab does not list them. */
  includes?: CiInclude[];
  /** Absent where this GitLab does not send it (an invalid configuration has none). */
  mergedYaml?: string;
}

const isObject = (d: unknown): d is Record<string, unknown> => typeof d === "object" && d !== null && !Array.isArray(d);
const isInclude = (i: unknown): i is CiInclude => isObject(i) && typeof i["type"] === "string" && typeof i["location"] === "string" && (i["extra"] === undefined || i["extra"] === null || isObject(i["extra"]));

export async function lintCi(gitlab: Pick<GitLabApi, "get">, project: number, commit: string, signal?: AbortSignal): Promise<CiLint> {
  const answer = await gitlab.get<unknown>("/projects/:id/ci/lint", { id: project }, { query: { sha: commit }, signal });
  if (!isObject(answer) || typeof answer["valid"] !== "boolean") throw new Error(`GET /projects/${project}/ci/lint answered with JSON that is not a CI Lint result (valid expected)`);
  const { includes, merged_yaml: merged } = answer;
  if (includes !== undefined && includes !== null && !(Array.isArray(includes) && includes.every(isInclude))) {
    throw new Error(`GET /projects/${project}/ci/lint answered with includes that are not a list of files, each with its type and location`);
  }
  return {
    valid: answer["valid"],
    ...(Array.isArray(includes) && { includes: includes as CiInclude[] }),
    ...(typeof merged === "string" && { mergedYaml: merged }),
  };
}
