/**
 * Who a token is, as GitLab tells it. `GET /user` picks its answer by the user's own administrator flag
 * (lib/api/users.rb), so an administrator's token without the `admin_mode` scope, on an instance with
 * Admin Mode on, is answered `is_admin: true` there, and as the plain user it acts as everywhere else.
 * `GET /application/statistics` (counts only) answers only a token acting as an administrator.
 */
import type { Handler } from "./context.ts";
import { apiError } from "./http.ts";

export const getCurrentUser: Handler = (ctx) => {
  if (!ctx.caller) return { status: 200, body: ctx.caller };
  const { adminUserOnly, ...user } = ctx.caller;
  return { status: 200, body: adminUserOnly ? { ...user, is_admin: true } : user };
};

export const getApplicationStatistics: Handler = (ctx) => {
  if (!ctx.caller?.is_admin) throw apiError(403, "403 Forbidden");
  const { groups, projects } = ctx.store.dataset;
  return { status: 200, body: { groups: String(groups.length), projects: String(projects.length), users: String(ctx.store.dataset.users.length) } };
};
