/**
 * GitLab.com's published API budgets (docs/api-contract.md, "Rate limits"), with their windows shortened by
 * `timeScale` so a run stays short.
 */
import type { RateLimitRule } from "../../sim/gitlab/index.ts";

const MINUTE = 60_000;

/** How the budgets show: on 429s only (GitLab's default), on every answer too, or not at all (a bare 429). */
export type BudgetHeaders = "on-429" | "advertised" | "none";

export function gitlabComBudgets(timeScale: number, shown: BudgetHeaders = "on-429"): RateLimitRule[] {
  const headers = shown === "none" ? "none" : "full";
  const rule = (limit: number, windowMs: number, route?: string): RateLimitRule => ({ ...(route ? { route } : {}), limit, windowMs: windowMs / timeScale, headers, advertise: shown === "advertised" });
  return [
    rule(2_000, MINUTE), // every authenticated request, per user
    rule(2_000, 10 * MINUTE, "GET /projects"),
    rule(400, MINUTE, "GET /projects/:id"),
    rule(200, MINUTE, "GET /groups"),
    rule(400, MINUTE, "GET /groups/:id"),
    rule(600, MINUTE, "GET /groups/:id/projects"),
  ];
}

/** The --limits a size row runs under: none, or GitLab.com's budgets shown one of the three ways. */
export const LIMITS = ["none", "gitlab.com", "gitlab.com-advertised", "gitlab.com-bare"] as const;
export type Limits = (typeof LIMITS)[number];

export function budgetsFor(limits: Limits, timeScale: number): RateLimitRule[] {
  const shown: Record<Exclude<Limits, "none">, BudgetHeaders> = { "gitlab.com": "on-429", "gitlab.com-advertised": "advertised", "gitlab.com-bare": "none" };
  return limits === "none" ? [] : gitlabComBudgets(timeScale, shown[limits]);
}
