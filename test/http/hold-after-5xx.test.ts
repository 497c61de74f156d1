/**
 * The today8 review, on 0d5df36 ("a rate-limit hold counts against its request's time limit"). The hold's
 * refusal was thrown from inside the retry loop as a plain Error saying the request "was not sent". On a
 * retry that is false: the attempt before it was sent and answered 5xx (or lost its connection), which
 * retry.ts itself records as "may have applied"; mayHaveBeenMade() said no, and a DELETE/PUT GitLab may
 * have applied was reported as never made. retry.ts now throws the earlier attempt's outcome instead.
 */
import { expect, it } from "vitest";
import { createHttpClient, mayHaveBeenMade, RateLimiterRegistry } from "../../lib/http/index.ts";
import { json, serve } from "../support/server.ts";

const TOKEN = "glpat-hold-after-5xx-0123456789";

it("a retry refused by a rate-limit hold after a 5xx attempt still says the request may have been made", async () => {
  const s = await serve((_req, res) => {
    // GitLab (or the proxy) failed after acting, and says the route's budget is spent for the next 5 s.
    json(res, 503, { message: "503 Service Unavailable" }, { "ratelimit-limit": "1", "ratelimit-remaining": "0", "ratelimit-reset": "5" });
  });
  const c = createHttpClient({ origin: s.url, service: "GitLab", credentials: { "PRIVATE-TOKEN": TOKEN }, limiters: new RateLimiterRegistry(), requestTimeoutMs: 1_000, retry: { baseDelayMs: 5, budgetMs: 1_500 } });
  const err = await c.send({ method: "DELETE", url: new URL("/api/v4/projects/1/share/2", s.url), route: "DELETE /projects/:id/share/:group_id" }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeDefined();
  // The DELETE did reach GitLab once.
  expect(s.received.filter((r) => r.method === "DELETE").length).toBeGreaterThanOrEqual(1);
  // Safe behaviour: the error keeps the earlier attempt's ambiguity, and does not claim the request was never sent.
  expect(mayHaveBeenMade(err), String(err)).toBe(true);
  expect(String(err)).not.toMatch(/was not sent/);
}, 20_000);
