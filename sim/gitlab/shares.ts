/**
 * Creating and removing shares of both kinds, with GitLab's answers and traps
 * (docs/api-contract.md, "Shares").
 */
import { intParam, invalid, stringParam } from "./context.ts";
import type { Handler, RequestContext } from "./context.ts";
import { ACCESS, type SimGroup, type SimShare } from "./dataset.ts";
import { findGroup } from "./groups.ts";
import { apiError, notFound } from "./http.ts";
import { requireLevel } from "./roles.ts";
import { findProject } from "./projects.ts";
import { groupDetailJson } from "./serialize.ts";

/** Gitlab::Access.all_values, which both share endpoints validate `group_access` against. */
const ACCESS_VALUES = new Set([10, 15, 20, 30, 40, 50]);
const OWNER = 50;

interface NewLink {
  groupId: number;
  access: number;
  expiresAt: string | null;
  memberRoleId: number | null;
}

/** Grape's checks of `group_id`, `group_access`, `expires_at` and `member_role_id` (JSON null = absent). */
function linkParams(ctx: RequestContext): NewLink {
  for (const name of ["expires_at", "member_role_id"]) if (ctx.params[name] === null) delete ctx.params[name];
  const groupId = intParam(ctx, "group_id");
  if (groupId === undefined) throw invalid("group_id", "is missing");
  const access = intParam(ctx, "group_access");
  if (access === undefined) throw invalid("group_access", "is missing");
  if (!ACCESS_VALUES.has(access)) throw invalid("group_access", "does not have a valid value");
  const expiresAt = stringParam(ctx, "expires_at") ?? null;
  if (expiresAt !== null && !isDate(expiresAt)) throw invalid("expires_at");
  return { groupId, access, expiresAt, memberRoleId: intParam(ctx, "member_role_id") ?? null };
}

function isDate(s: string): boolean {
  const time = Date.parse(`${s}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(time) && new Date(time).toISOString().startsWith(s);
}

function pathGroupId(ctx: RequestContext): number {
  const groupId = ctx.path["group_id"]!;
  if (!/^\d+$/.test(groupId)) throw invalid("group_id");
  return Number(groupId);
}

const linkTo = (group: SimGroup, link: NewLink): SimShare => ({
  group_id: group.id,
  group_name: group.name,
  group_full_path: group.full_path,
  group_access_level: link.access,
  expires_at: link.expiresAt,
});

/** The services' own refusal (`error('Not Found', 404)`), worded unlike the routes' "404 … Not Found". */
const serviceNotFound = () => apiError(404, "Not Found");

export const unshareProject: Handler = (ctx) => {
  const project = findProject(ctx);
  // authorize! :admin_project, as GitLab's share routes begin.
  requireLevel(project, ctx, ACCESS.maintainer);
  const groupId = pathGroupId(ctx);
  const index = project.shared_with_groups.findIndex((s) => s.group_id === groupId);
  if (index < 0) throw notFound("Group Link");
  project.shared_with_groups.splice(index, 1);
  return { status: 204 };
};

/**
 * Maintainer or above on the project (its members' roles, roles.ts: everyone is Owner of a project that
 * lists none), and granting Owner needs Owner of the project's group (or administrator), as in GitLab.
 */
export const shareProject: Handler = (ctx) => {
  const link = linkParams(ctx);
  const project = findProject(ctx);
  requireLevel(project, ctx, ACCESS.maintainer);
  const namespace = ctx.store.groupOf(project.namespace_id);
  const lineage = namespace ? ctx.store.lineage(namespace) : [];
  if (link.access === OWNER && !(namespace && ctx.store.canAdminGroup(ctx.caller, namespace))) throw apiError(403, "403 Forbidden");
  if (lineage.some((g) => g.share_with_group_lock)) throw apiError(400, "The project sharing with group is disabled");
  const group = ctx.store.findGroup(String(link.groupId), ctx.caller);
  if (!group) throw serviceNotFound();
  if (project.shared_with_groups.some((s) => s.group_id === group.id)) throw apiError(409, "Project already shared with this group");
  if (lineage.includes(group)) throw apiError(409, "Project cannot be shared with the group it is in or one of its ancestors.");
  project.shared_with_groups.push(linkTo(group, link));
  ctx.store.projectShared();
  if (ctx.caller) ctx.audit.log.projectShared(ctx.caller, project, group, link.access);
  const body = { id: ctx.store.nextLinkId(), project_id: project.id, group_id: group.id, group_access: link.access, expires_at: link.expiresAt };
  return { status: 201, body };
};

/**
 * THE TRAP: GitLab's destroy service quietly does nothing for a token that is not Owner of the
 * sharing group (auditors included), and the API answers 204 all the same.
 */
export const unshareGroup: Handler = (ctx) => {
  const groupId = pathGroupId(ctx);
  const group = findGroup(ctx);
  const index = group.shared_with_groups.findIndex((s) => s.group_id === groupId);
  if (index < 0) throw notFound("Group Link");
  if (ctx.store.canAdminGroup(ctx.caller, group)) group.shared_with_groups.splice(index, 1);
  return { status: 204 };
};

/** 201 with the sharing group's detail (without projects); the docs' 200 is not what GitLab sends. */
export const shareGroup: Handler = (ctx) => {
  const link = linkParams(ctx);
  const group = findGroup(ctx);
  const invited = ctx.store.findGroup(String(link.groupId), ctx.caller);
  if (!invited) throw notFound("Group");
  if (!ctx.store.canAdminGroup(ctx.caller, group)) throw serviceNotFound();
  if (group.shared_with_groups.some((s) => s.group_id === invited.id)) {
    throw apiError(409, "Shared group The group has already been shared with this group");
  }
  group.shared_with_groups.push({ ...linkTo(invited, link), member_role_id: link.memberRoleId });
  if (ctx.caller) ctx.audit.log.groupShared(ctx.caller, group, invited);
  return { status: 201, body: groupDetailJson(ctx, group, false) };
};
