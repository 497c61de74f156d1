import { invalid, stringParam } from "./context.ts";
import type { Handler } from "./context.ts";
import { apiError } from "./http.ts";
import { listOf } from "./query.ts";
import { commitSha, hasRef } from "./repository.ts";
import { findProject } from "./projects.ts";

/** `variables` as `[{key, value}]`, from a JSON body or from `variables[0][key]=` pairs. */
function parseVariables(value: unknown): { key: string; value: string }[] {
  const items = listOf(value);
  if (!items) throw invalid("variables");
  return items.map((item) => {
    const { key, value } = (typeof item === "object" && item !== null ? item : {}) as Record<string, unknown>;
    if (typeof key !== "string" || key === "" || (typeof value !== "string" && typeof value !== "number")) throw invalid("variables");
    return { key, value: String(value) };
  });
}

export const createPipeline: Handler = (ctx) => {
  const project = findProject(ctx);
  const ref = stringParam(ctx, "ref");
  if (!ref) throw invalid("ref", "is missing");
  const variables = parseVariables(ctx.params["variables"]);
  if (!hasRef(project, ref)) throw apiError(400, { base: ["Reference not found"] });
  const { pipeline, iid } = ctx.store.addPipeline(project, ref, variables);
  const now = new Date().toISOString();
  return {
    status: 201,
    body: {
      id: pipeline.id,
      iid,
      project_id: project.id,
      sha: commitSha(project, ref),
      ref,
      status: "created",
      source: "api",
      web_url: `${ctx.baseUrl}/${project.path_with_namespace}/-/pipelines/${pipeline.id}`,
      created_at: now,
      updated_at: now,
    },
  };
};
