/**
 * The rate limiter's reading of a server's RateLimit-* headers, as a broken or hostile server
 * (or a proxy's own limiter) writes them. Every hold the limiter takes must end by the window's
 * RateLimit-Reset at the latest, whatever the other headers say.
 */
import { describe, expect, it } from "vitest";
import { createHttpClient, RateLimiterRegistry, type WaitEvent } from "../../lib/http/index.ts";
import { secondOutcome } from "../support/second-outcome.ts";
import { json, serve } from "../support/server.ts";

const TOKEN = "glpat-review-paging-token-0123456789";

/** The second of two GETs of a group, with `onWait` hearing every hold (test/support/second-outcome.ts). */
function secondGet(origin: string, ms: number, onWait?: (e: WaitEvent) => void): Promise<unknown> {
  const listening = onWait ? { waitNoticeMs: 0, onWait } : {};
  const c = createHttpClient({ origin, service: "GitLab", credentials: { "PRIVATE-TOKEN": TOKEN }, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 }, ...listening });
  return secondOutcome((signal) => c.send({ method: "GET", url: new URL("/api/v4/groups/7", origin), route: "GET /groups/:id", ...(signal ? { signal } : {}) }), ms);
}

describe("RateLimit-Remaining of a value no budget has", () => {
  // Some limiters (and proxies) write -1 for "unlimited" or "unknown". The spread of the time left over
  // the requests left, (reset - now) / (remaining + 1), divides by zero there: the next request on the
  // route is held for Infinity ms, which sleep() cuts to Node's longest timer, 24.8 days.
  it("`RateLimit-Remaining: -1` with a reset 2 s away holds the next request no longer than the reset, and no hold is reported as Infinity", async () => {
    const reset = String(Math.ceil(Date.now() / 1000) + 2);
    const s = await serve((_req, res) => json(res, 200, {}, { "ratelimit-limit": "100", "ratelimit-remaining": "-1", "ratelimit-reset": reset }));
    const holds: WaitEvent[] = [];
    const outcome = await secondGet(s.url, 8_000, (e) => (e.kind === "rate-limit" ? holds.push(e) : undefined));
    expect(holds.map((h) => h.message).join("\n")).not.toMatch(/Infinity/);
    expect(holds.every((h) => Number.isFinite(h.waitMs) && h.waitMs <= 5_000), `holds: ${holds.map((h) => h.waitMs).join(", ")}`).toBe(true);
    expect(outcome, "the second request, 8 s after a window that ended in 2 s").not.toBe("still waiting");
    expect(outcome).toMatchObject({ status: 200 });
  });

  it("`RateLimit-Remaining: -1`, with nobody listening for waits (no progress lines), does not hold the next request past the reset 2 s away", async () => {
    const reset = String(Math.ceil(Date.now() / 1000) + 2);
    const s = await serve((_req, res) => json(res, 200, {}, { "ratelimit-limit": "100", "ratelimit-remaining": "-1", "ratelimit-reset": reset }));
    const outcome = await secondGet(s.url, 8_000);
    expect(outcome, "the second request, 8 s after a window that ended in 2 s (held for 2^31 - 1 ms: 24.8 days)").not.toBe("still waiting");
    expect(outcome).toMatchObject({ status: 200 });
  });

  it("`RateLimit-Remaining: -0.999` (not a count) does not hold the next request for half an hour, past a reset 2 s away and the 900 s ceiling on any server-asked wait", async () => {
    const reset = String(Math.ceil(Date.now() / 1000) + 2);
    const s = await serve((_req, res) => json(res, 200, {}, { "ratelimit-limit": "100", "ratelimit-remaining": "-0.999", "ratelimit-reset": reset }));
    const holds: WaitEvent[] = [];
    const outcome = await secondGet(s.url, 8_000, (e) => (e.kind === "rate-limit" ? holds.push(e) : undefined));
    expect(holds.every((h) => h.waitMs <= 5_000), `holds (ms): ${holds.map((h) => Math.round(h.waitMs)).join(", ")}`).toBe(true);
    expect(outcome).toMatchObject({ status: 200 });
  });
});
