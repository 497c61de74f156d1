/**
 * When the server pushes back: a 429 is retried for as long as the request's budget and the caller's
 * signal allow, never for a count, and spends none of the attempts other failures have; the requests
 * in flight to the origin halve on each pushback and grow back by one per run of successes.
 */
import { describe, expect, it } from "vitest";
import { createHttpClient, HttpError, RateLimiterRegistry, type HttpClientOptions, type WaitEvent } from "../../lib/http/index.ts";
import { json, serve, type ScriptedHandler } from "../support/server.ts";


function client(origin: string, opts: Partial<HttpClientOptions> = {}) {
  return createHttpClient({ origin, service: "GitLab", credentials: { "PRIVATE-TOKEN": "glpat-pushback-0123" }, limiters: new RateLimiterRegistry(), ...opts, retry: { baseDelayMs: 5, rateLimitedBaseMs: 2, ...opts.retry } });
}

const get = (c: ReturnType<typeof client>, path: string, extra: object = {}) => c.send({ method: "GET", url: new URL(path, c.origin), route: `GET ${path}`, ...extra });

/** A server that answers after `ms` and refuses with a bare 429 whatever would put more than `max` in flight. */
async function narrowServer(max: number, ms: number) {
  let inFlight = 0;
  let most = 0;
  const handler: ScriptedHandler = (_req, res) => {
    if (inFlight >= max) return json(res, 429, "Retry later");
    inFlight++;
    most = Math.max(most, inFlight);
    setTimeout(() => {
      inFlight--;
      json(res, 200, {});
    }, ms);
  };
  return { s: await serve(handler), most: () => most };
}

describe("a 429 never ends a request by count", () => {
  it("twelve 429s with Retry-After: 0, then an answer", async () => {
    const s = await serve((_req, res, n) => (n <= 12 ? json(res, 429, "Retry later", { "retry-after": "0" }) : json(res, 200, [1])));
    const c = client(s.url);
    await expect(get(c, "/a")).resolves.toMatchObject({ status: 200 });
    expect(c.stats.snapshot()).toMatchObject({ requests: 13, rateLimited: 12, retries: 12 });
  });

  it("nine bare 429s in a row, each wait twice the one before, then an answer", async () => {
    const s = await serve((_req, res, n) => (n <= 9 ? json(res, 429, "Retry later") : json(res, 200, [1])));
    const waits: number[] = [];
    const c = client(s.url, { onRetry: (e) => waits.push(e.waitMs) });
    await expect(get(c, "/a")).resolves.toMatchObject({ status: 200 });
    // Equal jitter: each wait is between half and all of 2 ms × 2^(429s in a row before it).
    expect(waits).toHaveLength(9);
    waits.forEach((w, i) => expect(w).toBeGreaterThanOrEqual(Math.floor(2 ** i)));
    waits.forEach((w, i) => expect(w).toBeLessThanOrEqual(2 * 2 ** i));
  });

  it("429s spend none of the attempts 5xx have: six 500s among 429s still end in the answer", async () => {
    const script = [500, 429, 500, 429, 429, 500, 500, 429, 500, 429, 500, 200];
    const s = await serve((_req, res, n) => json(res, script[n - 1]!, {}, script[n - 1] === 429 ? { "retry-after": "0" } : {}));
    const c = client(s.url, { retry: { maxRetries: 6 } });
    await expect(get(c, "/a")).resolves.toMatchObject({ status: 200 });
    expect(s.received).toHaveLength(script.length);
  });

  it("is bounded by the request's budget: the wait that would end past it is not begun", async () => {
    const s = await serve((_req, res) => json(res, 429, "Retry later", { "retry-after": "1" }));
    const started = Date.now();
    const err = await get(client(s.url, { retry: { budgetMs: 2_900 } }), "/a").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).message).toMatch(/^GET \/a answered 429: .* \(gave up after 3 attempts: the next would start past the request's 3 s budget\)$/);
    // Two waits of 1 s, then the third would end past 2.9 s: given up at about 2 s, not at 3.
    expect(Date.now() - started).toBeLessThan(2_900);
  });
});

describe("the requests in flight adapt to the server's pushback", () => {
  it("40 requests at once to a server that takes 3: the limit comes down to what it takes, every request is answered, and the next 40 meet few 429s", async () => {
    const { s, most } = await narrowServer(3, 40);
    const c = client(s.url);
    const batch = () => Promise.all(Array.from({ length: 40 }, (_, i) => get(c, `/r${i}`)));
    expect((await batch()).every((r) => r.status === 200)).toBe(true);
    expect(most()).toBeLessThanOrEqual(3);
    expect(c.limiter.concurrency.lowest).toBeLessThanOrEqual(3);
    expect(c.stats.snapshot().lowestConcurrency).toBe(c.limiter.concurrency.lowest);
    // Learnt once: the next batch goes about 3 at a time (probing one more now and then), not 40 at once.
    const before = c.stats.snapshot().rateLimited;
    expect((await batch()).every((r) => r.status === 200)).toBe(true);
    expect(c.stats.snapshot().rateLimited - before).toBeLessThan(15);
  });

  it("each run of as many successes as the limit grows it back by one", async () => {
    const { s } = await narrowServer(2, 5);
    const c = client(s.url);
    await Promise.all(Array.from({ length: 8 }, (_, i) => get(c, `/r${i}`)));
    const after = c.limiter.concurrency.limit;
    expect(after).toBeLessThanOrEqual(4);
    for (let i = 0; i < after; i++) await get(c, `/s${i}`);
    expect(c.limiter.concurrency.limit).toBe(after + 1);
    for (let i = 0; i <= after; i++) await get(c, `/t${i}`);
    expect(c.limiter.concurrency.limit).toBe(after + 2);
  });

  it("a 503 with Retry-After halves it too; a 503 without does not", async () => {
    const s = await serve((req, res) => (req.url === "/busy" ? json(res, 503, {}, { "retry-after": "0" }) : req.url === "/broken" ? json(res, 503, {}) : json(res, 200, {})));
    const c = client(s.url, { retry: { maxRetries: 0 } });
    await Promise.all([get(c, "/ok1"), get(c, "/ok2"), get(c, "/broken").catch(() => undefined)]);
    expect(c.limiter.concurrency.limit).toBe(Infinity);
    await Promise.all([get(c, "/ok1"), get(c, "/ok2"), get(c, "/ok3"), get(c, "/busy").catch(() => undefined)]);
    expect(c.limiter.concurrency.limit).toBeLessThanOrEqual(2);
  });

  it("removals, listings and group reads share it: one limit per origin and token, for every client and route", async () => {
    const { s } = await narrowServer(1, 30);
    const limiters = new RateLimiterRegistry();
    const [a, b] = [client(s.url, { limiters }), client(s.url, { limiters })];
    await Promise.all([get(a, "/groups/1"), get(b, "/projects"), get(a, "/groups/2"), get(b, "/groups/3")]);
    expect(a.limiter).toBe(b.limiter);
    expect(a.limiter.concurrency.lowest).toBe(1);
    expect(a.stats.snapshot().lowestConcurrency).toBe(1);
    expect(b.stats.snapshot().lowestConcurrency).toBe(1);
  });

  /** A client whose limit is 1, held by a slow answer: /slow is in flight, /x met a 429 and waits for the place. */
  async function heldToOne(slowMs: number, opts: Partial<HttpClientOptions> = {}) {
    const { s } = await narrowServer(1, slowMs);
    const c = client(s.url, opts);
    const pending = [get(c, "/slow")];
    await new Promise((r) => setTimeout(r, 50));
    pending.push(get(c, "/x"));
    await new Promise((r) => setTimeout(r, 50));
    expect(c.limiter.concurrency.limit).toBe(1);
    return { s, c, pending };
  }

  it("a wait for a place ends with the caller's signal, and sends nothing", async () => {
    const { s, c, pending } = await heldToOne(1_500);
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error("stopped by caller")), 100);
    const started = Date.now();
    await expect(get(c, "/waiting", { signal: ac.signal })).rejects.toThrow("stopped by caller");
    expect(Date.now() - started).toBeLessThan(1_000);
    await Promise.all(pending);
    expect(s.received.map((r) => r.url)).not.toContain("/waiting");
  });

  it("a long wait for a place is reported, naming the route and why", async () => {
    const events: WaitEvent[] = [];
    const { c, pending } = await heldToOne(1_000, { waitNoticeMs: 300, onWait: (e) => events.push(e) });
    await Promise.all([...pending, get(c, "/next")]);
    expect(events).toContainEqual(
      expect.objectContaining({ kind: "rate-limit", route: "GET /next", message: "holding GET /next for 1 s so far: GitLab pushed back, so requests to it go 1 at a time; this one goes when one in flight is answered" }),
    );
  });
});

describe("a 5xx whose Retry-After has passed", () => {
  it("is backed off from, as a 429's is, not attempted again at once", async () => {
    const past = new Date(Date.now() - 60_000).toUTCString();
    const s = await serve((_req, res, n) => (n <= 3 ? json(res, 503, {}, { "retry-after": past }) : json(res, 200, [])));
    const started = performance.now();
    await get(client(s.url, { retry: { baseDelayMs: 100, random: () => 1 } }), "/x");
    expect(s.received).toHaveLength(4);
    // Full jitter at its top: at least 100, 200 and 400 ms (a timer may fire a millisecond early).
    expect(performance.now() - started).toBeGreaterThanOrEqual(690);
  });
});
