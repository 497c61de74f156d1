/**
 * docs/talking-to-gitlab.md: "One request takes at most 20 minutes in all, attempts and waits included"
 * (RetryOptions.budgetMs). The rate limiter's holds (rate-limit-layer.ts) sit inside the retry layer and
 * outside the attempt's deadline, and each was bounded, not their sum: a server (or a proxy) that answers
 * every request "RateLimit-Remaining: 0" with a window ending up to 15 minutes ahead serialised the route
 * one request a window, and the k-th of the requests queued on it waited k windows: with the jobs' 16 in
 * flight and a window of 899 s, four hours for one request, with no run deadline in the CLI (review
 * http7). A hold that would run past the request's budget now fails it, unsent. Here in small: windows
 * of 1 s, a budget of 1.5 s.
 */
import { expect, it } from "vitest";
import { createHttpClient, RateLimiterRegistry } from "../../lib/http/index.ts";
import { json, serve } from "../support/server.ts";

const TOKEN = "glpat-hold-within-budget-0123456789";

it("a request held by the limiter does not run past its budget (attempts and waits included) however many windows the server announces", async () => {
  let answered = 0;
  const s = await serve((_req, res) => {
    answered++;
    json(res, 200, [], { "ratelimit-limit": "1", "ratelimit-remaining": "0", "ratelimit-reset": "1" });
  });
  const budgetMs = 1_500;
  const requestTimeoutMs = 1_000;
  const c = createHttpClient({ origin: s.url, service: "GitLab", credentials: { "PRIVATE-TOKEN": TOKEN }, limiters: new RateLimiterRegistry(), requestTimeoutMs, retry: { baseDelayMs: 5, budgetMs } });
  // One answer first: the route's budget is known (0 left, the window ending in 1 s) before the others queue.
  await c.send({ method: "GET", url: new URL("/api/v4/groups/0/projects", s.url), route: "GET /groups/:id/projects" });
  const started = Date.now();
  const errors: string[] = [];
  const took = await Promise.all(
    Array.from({ length: 5 }, async (_, i) => {
      await c.send({ method: "GET", url: new URL(`/api/v4/groups/${i + 1}/projects`, s.url), route: "GET /groups/:id/projects" }).catch((err: unknown) => errors.push(String(err)));
      return Date.now() - started;
    }),
  );
  // Each request either answered or failed within its budget, plus at most one attempt's deadline (retry.ts's own allowance).
  expect(Math.max(...took), `each request's time, ms: ${took.join(", ")}`).toBeLessThanOrEqual(budgetMs + requestTimeoutMs);
  // Those refused were never sent, nor retried, and say why: the server's budget header, and the time limit.
  expect(errors.length).toBeGreaterThan(0);
  expect(answered).toBe(1 + 5 - errors.length);
  expect(c.stats.totals.retries).toBe(0);
  for (const error of errors) expect(error).toMatch(/^HoldRefused: GET \/groups\/:id\/projects was not sent: GitLab's RateLimit-Remaining budget for this route is spent, and holding it \d+ s, until .* UTC, would take it past its time limit/);
}, 20_000);
