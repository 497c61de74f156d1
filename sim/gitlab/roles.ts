import type { RequestContext } from "./context.ts";
import { ACCESS, type SimProject } from "./dataset.ts";
import { apiError } from "./http.ts";

/** The caller's role on the project: its members' level, everyone's Owner where the project lists none. */
export function accessLevel(project: SimProject, ctx: RequestContext): number {
  return project.members && !ctx.caller?.is_admin ? (project.members[ctx.caller?.username ?? ""] ?? 0) : ACCESS.owner;
}

/** 403 unless the caller holds at least `level` on the project. */
export function requireLevel(project: SimProject, ctx: RequestContext, level: number): void {
  if (accessLevel(project, ctx) < level) throw apiError(403, "403 Forbidden");
}
