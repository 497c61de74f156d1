import { describe, expect, it } from "vitest";
import { createHttpClient, HttpError, NetworkError, RateLimiterRegistry, RedirectError, type HttpClientOptions } from "../../lib/http/index.ts";
import { json, serve } from "../support/server.ts";

const TOKEN = "glpat-secret-token-123";

function client(origin: string, opts: Partial<HttpClientOptions> = {}) {
  return createHttpClient({
    origin,
    credentials: { "PRIVATE-TOKEN": TOKEN },
    limiters: new RateLimiterRegistry(),
    retry: { baseDelayMs: 5, rateLimitedBaseMs: 200, ...opts.retry },
    ...opts,
  });
}

const get = (c: ReturnType<typeof client>, path: string, extra: object = {}) =>
  c.send({ method: "GET", url: new URL(path, c.origin), route: "GET /x", ...extra });

describe("retries", () => {
  it("waits Retry-After seconds on a 429 and completes", async () => {
    const s = await serve((_req, res, n) => (n === 1 ? json(res, 429, "Retry later", { "retry-after": "1" }) : json(res, 200, [1])));
    const c = client(s.url);
    const res = await get(c, "/api/v4/projects");
    expect(res.status).toBe(200);
    expect(s.received[1]!.at - s.received[0]!.at).toBeGreaterThanOrEqual(950);
    expect(c.stats.snapshot()).toMatchObject({ requests: 2, retries: 1, rateLimited: 1 });
  });

  it("reads Retry-After given as an HTTP date", async () => {
    const s = await serve((_req, res, n) =>
      n === 1 ? json(res, 429, "Retry later", { "retry-after": new Date(Date.now() + 2000).toUTCString() }) : json(res, 200, []),
    );
    await get(client(s.url), "/a");
    // HTTP dates have whole seconds: at least one second, at most two.
    const waited = s.received[1]!.at - s.received[0]!.at;
    expect(waited).toBeGreaterThanOrEqual(900);
    expect(waited).toBeLessThan(2300);
  });

  it("reads RateLimit-Reset as a Unix time, not as a delay", async () => {
    const s = await serve((_req, res, n) =>
      n === 1 ? json(res, 429, "Retry later", { "ratelimit-reset": String(Math.ceil(Date.now() / 1000) + 1) }) : json(res, 200, []),
    );
    await get(client(s.url), "/a");
    // The reset is the next whole second plus one, so 1–2 s away: read as a delay it would be ~29 years,
    // and ignored (a 5 ms backoff) it would be almost nothing.
    const waited = s.received[1]!.at - s.received[0]!.at;
    expect(waited).toBeGreaterThanOrEqual(900);
    expect(waited).toBeLessThan(2100);
  });

  it("backs off on a bare 429 with no header at all", async () => {
    const s = await serve((_req, res, n) => (n === 1 ? json(res, 429, "Retry later") : json(res, 200, [])));
    const c = client(s.url, { retry: { rateLimitedBaseMs: 400 } });
    await get(c, "/a");
    expect(s.received[1]!.at - s.received[0]!.at).toBeGreaterThanOrEqual(190);
  });

  it("pauses every request to the origin after one 429, not just the one that got it", async () => {
    const s = await serve((req, res, n) => (n === 1 ? json(res, 429, "Retry later", { "retry-after": "1" }) : json(res, 200, [req.url])));
    const c = client(s.url);
    const first = get(c, "/first");
    await new Promise((r) => setTimeout(r, 100));
    const second = get(c, "/second");
    await Promise.all([first, second]);
    const secondAt = s.received.find((r) => r.url === "/second")!.at;
    expect(secondAt - s.received[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it("refuses a wait above the ceiling instead of sleeping for it", async () => {
    const s = await serve((_req, res) => json(res, 429, "Retry later", { "retry-after": "900" }));
    const err = await get(client(s.url, { retry: { maxServerWaitMs: 60_000 } }), "/a").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).message).toMatch(/asked to wait 900 s, above the 60 s ceiling/);
  });

  it("a wait refused for its length does not hold back the origin's other requests", async () => {
    const s = await serve((req, res) => (req.url === "/a" ? json(res, 429, "Retry later", { "retry-after": "900" }) : json(res, 200, [])));
    const c = client(s.url, { retry: { maxServerWaitMs: 60_000 } });
    await expect(get(c, "/a")).rejects.toThrow(/above the 60 s ceiling/);
    const started = Date.now();
    await get(c, "/b");
    expect(Date.now() - started).toBeLessThan(500);
  });

  it("a 503 waits for Retry-After, never for RateLimit-Reset, which is about the rate budget", async () => {
    const s = await serve((_req, res, n) => (n === 1 ? json(res, 503, {}, { "ratelimit-reset": String(Math.ceil(Date.now() / 1000) + 600) }) : json(res, 200, [])));
    const started = Date.now();
    await get(client(s.url), "/a");
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("allows GitLab's 900 s waits under the default ceiling (the wait is cut short by the caller's signal)", async () => {
    const s = await serve((_req, res) => json(res, 429, "Retry later", { "retry-after": "900" }));
    const ac = new AbortController();
    const started = Date.now();
    setTimeout(() => ac.abort(new Error("stopped by caller")), 150);
    await expect(get(client(s.url), "/a", { signal: ac.signal })).rejects.toThrow("stopped by caller");
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("retries 500 for every idempotent method, not for POST; retries 502/503/504 for idempotent methods", async () => {
    const s = await serve((_req, res, n) => json(res, n % 2 === 1 ? 500 : 200, {}));
    await get(client(s.url), "/a");
    expect(s.received).toHaveLength(2);
    for (const method of ["DELETE", "PUT", "OPTIONS"] as const) {
      const res = await client(s.url).send({ method, url: new URL("/b", s.url), route: `${method} /b` });
      expect(res).toMatchObject({ status: 200, earlierAttemptMayHaveApplied: true });
    }
    expect(s.received).toHaveLength(8);
    const post = await client(s.url).send({ method: "POST", url: new URL("/p", s.url), route: "POST /p", body: "{}" }).catch((e: unknown) => e);
    expect((post as HttpError).status).toBe(500);
    expect(s.received).toHaveLength(9);

    const g = await serve((_req, res, n) => json(res, [502, 503, 504][n - 1] ?? 204, {}));
    const res = await client(g.url).send({ method: "DELETE", url: new URL("/c", g.url), route: "DELETE /c" });
    expect(res.status).toBe(204);
    expect(g.received).toHaveLength(4);
  });

  it("never repeats a POST that may have reached the server (502, dropped connection)", async () => {
    const s = await serve((_req, res) => json(res, 502, { message: "bad gateway" }));
    const post = (c: ReturnType<typeof client>) => c.send({ method: "POST", url: new URL("/p", c.origin), route: "POST /p", body: "{}" });
    await expect(post(client(s.url))).rejects.toMatchObject({ status: 502 });
    expect(s.received).toHaveLength(1);

    const dropping = await serve((req) => req.socket.destroy());
    const err = await post(client(dropping.url)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).mayHaveReachedServer).toBe(true);
    expect(dropping.received).toHaveLength(1);
  });

  it("repeats a POST on 429, and when the connection failed before anything was sent", async () => {
    const s = await serve((_req, res, n) => (n === 1 ? json(res, 429, "Retry later", { "retry-after": "0" }) : json(res, 201, { id: 1 })));
    const created = await client(s.url).send({ method: "POST", url: new URL("/p", s.url), route: "POST /p", body: "{}" });
    expect(created.status).toBe(201);
    expect(s.received).toHaveLength(2);

    const closed = await serve((_req, res) => json(res, 200, {}));
    const origin = closed.url;
    const retries: string[] = [];
    const c = client(origin, { retry: { maxRetries: 2 }, onRetry: (e) => retries.push(e.reason) });
    // Refused connections are retried once the service has answered in this run (before, they fail at once).
    await get(c, "/ok");
    // Closed here, so that nothing listens; closing it again after the test is harmless.
    await closed.close();
    const err = await c.send({ method: "POST", url: new URL("/p", origin), route: "POST /p", body: "{}" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).mayHaveReachedServer).toBe(false);
    expect(retries).toEqual(["ECONNREFUSED", "ECONNREFUSED"]);
  });

  it("retries a GET whose headers time out, once the service has answered", async () => {
    const s = await serve((_req, res, n) => (n === 2 ? setTimeout(() => json(res, 200, "late"), 2500) : json(res, 200, "ok")));
    const c = client(s.url, { transport: { headersTimeoutMs: 200 } });
    await get(c, "/first");
    const res = await get(c, "/slow");
    expect(JSON.parse(res.text)).toBe("ok");
  });
});

describe("rate limiter", () => {
  it("spaces requests to the configured rate, shared by all clients of one origin and token", async () => {
    const s = await serve((_req, res) => json(res, 200, []));
    const limiters = new RateLimiterRegistry();
    const a = client(s.url, { limiters, rateLimit: { ratePerSecond: 20 } });
    const b = client(s.url, { limiters, rateLimit: { ratePerSecond: 20 } });
    const started = Date.now();
    await Promise.all(Array.from({ length: 10 }, (_, i) => get(i % 2 ? a : b, `/r${i}`)));
    expect(Date.now() - started).toBeGreaterThanOrEqual(430);
  });

  it("slows down as RateLimit-Remaining runs low", async () => {
    const reset = () => String(Math.ceil(Date.now() / 1000) + 1);
    const s = await serve((_req, res) => json(res, 200, [], { "ratelimit-limit": "100", "ratelimit-remaining": "3", "ratelimit-reset": reset() }));
    const c = client(s.url);
    await get(c, "/first");
    const started = Date.now();
    await Promise.all([get(c, "/a"), get(c, "/b")]);
    // Three left until the reset (≤ 1 s away): spread them rather than spend them at once.
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });
});

describe("redirects and credentials", () => {
  it("follows a same-origin 301 for GET with the credential", async () => {
    const s = await serve((req, res) =>
      req.url === "/api/v4/projects/acme%2Fold" ? json(res, 301, { message: "301 Moved Permanently" }, { location: "/api/v4/projects/7" }) : json(res, 200, { id: 7 }),
    );
    const res = await get(client(s.url), "/api/v4/projects/acme%2Fold");
    expect(JSON.parse(res.text)).toEqual({ id: 7 });
    expect(res.url.pathname).toBe("/api/v4/projects/7");
    expect(s.received.map((r) => r.headers["private-token"])).toEqual([TOKEN, TOKEN]);
  });

  it("refuses a redirect to another origin by default, sending nothing there", async () => {
    const other = await serve((_req, res) => json(res, 200, {}));
    const s = await serve((_req, res) => json(res, 302, {}, { location: `${other.url}/steal` }));
    await expect(get(client(s.url), "/api/v4/projects/1")).rejects.toBeInstanceOf(RedirectError);
    expect(other.received).toHaveLength(0);
  });

  it("a Location that is not a URL (`http://[::1`) is a RedirectError naming the request, redacted, and not the header's text", async () => {
    const s = await serve((_req, res) => json(res, 302, {}, { location: `http://[::1/${TOKEN}` }));
    const err = await get(client(s.url), `/api/v4/projects/1?private_token=${TOKEN}`).catch((e: unknown) => e);
    expect(err).toEqual(new RedirectError("GET /api/v4/projects/1?private_token=[REDACTED] redirected to a Location that is not a URL; refused"));
    expect(s.received).toHaveLength(1);
  });

  it("follows a cross-origin redirect without any credential when allowed", async () => {
    const other = await serve((_req, res) => json(res, 200, { ok: true }));
    const s = await serve((_req, res) => json(res, 307, {}, { location: `${other.url}/elsewhere` }));
    const c = createHttpClient({
      origin: s.url,
      credentials: { "PRIVATE-TOKEN": TOKEN, "X-N8N-API-KEY": "n8n-key-secret", Authorization: "Bearer abcdef" },
      crossOriginRedirects: "follow-without-credentials",
      limiters: new RateLimiterRegistry(),
    });
    await get(c, "/api/v4/x");
    const headers = other.received[0]!.headers;
    expect(headers["private-token"]).toBeUndefined();
    expect(headers["x-n8n-api-key"]).toBeUndefined();
    expect(headers["authorization"]).toBeUndefined();
    expect(JSON.stringify(other.received)).not.toMatch(/glpat|n8n-key-secret|abcdef/);
  });

  // Retries sit outside redirects (client.ts): with each hop retried on its own, each had a budget of its own, and
  // a server refusing every hop once for most of a budget (503 Retry-After), then redirecting, held one request six budgets.
  it("a GET redirected hop after hop, each hop first refused with 503 Retry-After, still ends within its one request budget", async () => {
    const seen = new Map<string, number>();
    const s = await serve((req, res) => {
      const path = new URL(req.url, "http://x").pathname;
      const n = (seen.get(path) ?? 0) + 1;
      seen.set(path, n);
      const hop = Number(/\/hop\/(\d+)$/.exec(path)?.[1] ?? 0);
      if (n === 1) return json(res, 503, { message: "busy" }, { "retry-after": "1" });
      if (hop < 5) return json(res, 301, {}, { location: `/api/v4/hop/${hop + 1}` });
      json(res, 200, { id: 1 });
    });
    const budgetMs = 1_500;
    const requestTimeoutMs = 1_000;
    const started = Date.now();
    await get(client(s.url, { requestTimeoutMs, retry: { baseDelayMs: 5, budgetMs } }), "/api/v4/hop/0").catch(() => undefined);
    const took = Date.now() - started;
    // The request either answered or failed within its budget, plus at most one attempt's deadline (retry.ts's own allowance).
    expect(took, `the request took ${took} ms over ${s.received.length} attempts`).toBeLessThanOrEqual(budgetMs + requestTimeoutMs);
  }, 30_000);

  it("does not follow a redirect for POST", async () => {
    const s = await serve((_req, res) => json(res, 301, {}, { location: "/elsewhere" }));
    await expect(client(s.url).send({ method: "POST", url: new URL("/p", s.url), route: "POST /p", body: "{}" })).rejects.toMatchObject({ status: 301 });
    expect(s.received).toHaveLength(1);
  });
});

describe("errors", () => {
  it("are typed and carry status, method, redacted path and the service's message — never a credential", async () => {
    const s = await serve((_req, res) => json(res, 403, { message: `403 Forbidden for token ${TOKEN}` }));
    const err = (await get(client(s.url), `/api/v4/projects?private_token=${TOKEN}&page=2`).catch((e: unknown) => e)) as HttpError;
    expect(err).toBeInstanceOf(HttpError);
    expect(err).toMatchObject({ status: 403, method: "GET", route: "GET /x" });
    expect(err.path).toBe("/api/v4/projects?private_token=[REDACTED]&page=2");
    expect(err.serviceMessage).toBe("403 Forbidden for token [REDACTED]");
    expect(`${err.message} ${err.stack} ${JSON.stringify(err)}`).not.toContain(TOKEN);
  });

  it("consume error bodies, so the connection is reused", async () => {
    const s = await serve((_req, res) => json(res, 404, { message: "x".repeat(100_000) }));
    const c = client(s.url);
    for (let i = 0; i < 6; i++) await get(c, "/missing").catch(() => undefined);
    // An unread body pins its socket: six errors would then need six connections.
    const ports = new Set(s.received.map((r) => r.port));
    expect(ports.size).toBeLessThanOrEqual(2);
    expect(c.stats.snapshot().bytes).toBeGreaterThan(600_000);
  });

  it("count requests, retries, 429s and bytes by route", async () => {
    const s = await serve((_req, res, n) => (n === 1 ? json(res, 429, "Retry later", { "retry-after": "0" }) : json(res, 200, [1, 2])));
    const c = client(s.url);
    await get(c, "/a");
    expect(c.stats.snapshot().byRoute["GET /x"]).toMatchObject({ requests: 2, retries: 1, rateLimited: 1 });
  });

  it("tell whether only reads were sent (a run refused mid-way may go again only then)", async () => {
    const s = await serve((_req, res) => json(res, 200, {}));
    const c = client(s.url);
    await get(c, "/a");
    await c.send({ method: "HEAD", url: new URL("/a", c.origin), route: "HEAD /x" });
    expect(c.stats.onlyReads()).toBe(true);
    await c.send({ method: "DELETE", url: new URL("/a", c.origin), route: "DELETE /x" });
    expect(c.stats.onlyReads()).toBe(false);
  });
});
