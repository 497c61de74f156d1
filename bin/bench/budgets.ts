/**
 * GitLab.com's published API budgets (real-behaviour-notes.md), with their windows shortened by
 * `timeScale` so a run stays short.
 */
import type { RateLimitRule } from "../../test/sim/gitlab/index.ts";

const MINUTE = 60_000;

/** `headers: "none"`: GitLab.com sometimes sends a bare 429, and then nothing tells a client its budget. */
export function gitlabComBudgets(timeScale: number, headers: RateLimitRule["headers"] = "full"): RateLimitRule[] {
  const rule = (limit: number, windowMs: number, route?: string): RateLimitRule => ({ ...(route ? { route } : {}), limit, windowMs: windowMs / timeScale, headers });
  return [
    rule(2_000, MINUTE), // every authenticated request, per user
    rule(2_000, 10 * MINUTE, "GET /projects"),
    rule(400, MINUTE, "GET /projects/:id"),
    rule(200, MINUTE, "GET /groups"),
    rule(400, MINUTE, "GET /groups/:id"),
    rule(600, MINUTE, "GET /groups/:id/projects"),
  ];
}
