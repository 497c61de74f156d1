import { invalid, stringParam } from "./context.ts";
import type { Handler, RequestContext } from "./context.ts";
import { apiError } from "./http.ts";
import { listOf } from "./query.ts";
import { ACCESS } from "./dataset.ts";
import { developersCanMerge, isProtectedBranch, isProtectedTag } from "./protected-refs.ts";
import { hasRef, headSha, isTag } from "./repository.ts";
import { accessLevel, requireLevel } from "./roles.ts";
import { findProject } from "./projects.ts";
import type { Pipeline } from "./store.ts";

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

/** A pipeline as GitLab shows it; `iid` counts per project. */
function pipelineBody(ctx: RequestContext, pipeline: Pipeline, iid: number) {
  const project = ctx.store.dataset.projects.find((p) => p.id === pipeline.project_id)!;
  const { id, ref, sha, status } = pipeline;
  const now = new Date().toISOString();
  const web_url = `${ctx.baseUrl}/${project.path_with_namespace}/-/pipelines/${id}`;
  return { id, iid, project_id: project.id, sha, ref, status, source: "api", web_url, user: { username: pipeline.user }, created_at: now, updated_at: now };
}

/**
 * Runs the commit the ref points at as the request arrives, as the token's user: a Developer or above
 * (authorize! :create_pipeline), who may update the ref (Chain::Validate::Abilities: a protected branch
 * its rule's push or merge level, a protected tag its create level), on a ref that is not both a branch
 * and a tag (Chain::Validate::Repository: "Ref is ambiguous").
 */
export const createPipeline: Handler = (ctx) => {
  const project = findProject(ctx);
  requireLevel(project, ctx, ACCESS.developer);
  const ref = stringParam(ctx, "ref");
  if (!ref) throw invalid("ref", "is missing");
  const variables = parseVariables(ctx.params["variables"]);
  if (!hasRef(project, ref)) throw apiError(400, { base: ["Reference not found"] });
  const branch = project.branches.includes(ref);
  if (branch && isTag(ref)) throw apiError(400, { base: ["Ref is ambiguous"] });
  const needs = branch
    ? isProtectedBranch(project, ref) && !developersCanMerge(project, ref) ? ACCESS.maintainer : ACCESS.developer
    : isProtectedTag(project, ref) && !(project.developer_create_tags ?? []).includes(ref) ? ACCESS.maintainer : ACCESS.developer;
  if (accessLevel(project, ctx) < needs) throw apiError(400, { base: [`You do not have sufficient permission to run a pipeline on '${ref}'. Please select a different branch or contact your administrator for assistance.`] });
  const sha = headSha(ctx.store.repositories, project, ref);
  const { pipeline, iid } = ctx.store.addPipeline(project, { ref, sha, variables, user: ctx.caller!.username });
  return { status: 201, body: pipelineBody(ctx, pipeline, iid) };
};

/** `POST /projects/:id/pipelines/:pipeline_id/cancel`: a pipeline of another project is not found, as in GitLab. */
export const cancelPipeline: Handler = (ctx) => {
  const project = findProject(ctx);
  const id = Number(ctx.path["pipeline_id"]);
  const at = ctx.store.pipelines.findIndex((p) => p.id === id && p.project_id === project.id);
  if (at < 0) throw apiError(404, "404 Not found");
  const pipeline = ctx.store.pipelines[at]!;
  pipeline.status = "canceled";
  const iid = ctx.store.pipelines.slice(0, at + 1).filter((p) => p.project_id === project.id).length;
  return { status: 200, body: pipelineBody(ctx, pipeline, iid) };
};
