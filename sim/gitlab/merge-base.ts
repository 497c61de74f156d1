/**
 * `GET /projects/:id/repository/merge_base?refs[]=A&refs[]=B`, as GitLab's lib/api/repositories.rb
 * answers it from what tests committed (repository-store.ts): fewer than 2 refs is 400 "Provide at
 * least 2 refs", refs the project does not have 400 "Could not find ref(s): …", no common ancestor 404
 * "404 Merge Base Not Found", else the commit. A commit is on a branch when it is their merge base.
 * The caller must read code (Reporter or above on a project with members).
 */
import type { Handler } from "./context.ts";
import { ACCESS } from "./dataset.ts";
import { apiError, notFound } from "./http.ts";
import { findProject } from "./projects.ts";

export const getMergeBase: Handler = (ctx) => {
  const project = findProject(ctx);
  const level = project.members && !ctx.caller?.is_admin ? (project.members[ctx.caller?.username ?? ""] ?? 0) : ACCESS.owner;
  if (level < ACCESS.reporter) throw apiError(403, "403 Forbidden");
  const refs = new URLSearchParams(ctx.rawQuery).getAll("refs[]");
  if (refs.length < 2) throw apiError(400, "Provide at least 2 refs");
  const commits = refs.map((ref) => ctx.store.repositories.resolve(project, ref));
  const unknown = refs.filter((_, i) => commits[i] === undefined);
  if (unknown.length) throw apiError(400, `Could not find ${unknown.length === 1 ? "ref" : "refs"}: ${unknown.join(", ")}`);
  const base = ctx.store.repositories.mergeBase(commits.map((c) => c!));
  if (!base) throw notFound("Merge Base");
  return { status: 200, body: { id: base.id, short_id: base.id.slice(0, 8), parent_ids: base.parent ? [base.parent.id] : [], title: "commit", message: "commit\n" } };
};
