/**
 * lib/http against servers that misbehave: answers that never finish, waits long enough to notice,
 * waits their headers ask for (a hostile server's, or one whose clock is off), answers that are not
 * the JSON the API sends, and which failures a request is repeated after.
 */
import { describe, expect, it } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { createHttpClient, HttpError, NetworkError, RateLimiterRegistry, UnexpectedAnswerError, type HttpClientOptions, type WaitEvent } from "../../lib/http/index.ts";
import { N8nClient } from "../../lib/n8n/index.ts";
import { secondOutcome } from "../support/second-outcome.ts";
import { json, serve, type ScriptedHandler } from "../support/server.ts";

const TOKEN = "glpat-hostile-token-0123456789";

const client = (origin: string, opts: Partial<HttpClientOptions> = {}) =>
  createHttpClient({ origin, service: "GitLab", credentials: { "PRIVATE-TOKEN": TOKEN }, limiters: new RateLimiterRegistry(), ...opts, retry: { baseDelayMs: 5, ...opts.retry } });

const send = (c: ReturnType<typeof client>, method: "GET" | "POST" | "DELETE", route: string, extra: object = {}) =>
  c.send({ method, url: new URL(route.replace(/^\w+ /, "").replace(/:id/, "7"), c.origin), route, ...extra });

const CLOCK = /\d\d:\d\d:\d\d UTC/.source;

describe("which failures are retried", () => {
  it("a DELETE answered 500 then 404 is retried, and the 404 says an earlier attempt may have applied", async () => {
    const s = await serve((_req, res, n) => json(res, n === 1 ? 500 : 404, { message: "404 Group Link Not Found" }));
    const res = await send(client(s.url), "DELETE", "DELETE /projects/:id", { accept: [404] });
    expect(res).toMatchObject({ status: 404, earlierAttemptMayHaveApplied: true });
    expect(s.received).toHaveLength(2);
  });

  it("a DELETE answered 429 then 404 carries no such flag: the 429 was refused before anything happened", async () => {
    const s = await serve((_req, res, n) => (n === 1 ? json(res, 429, "Retry later", { "retry-after": "0" }) : json(res, 404, {})));
    const res = await send(client(s.url), "DELETE", "DELETE /projects/:id", { accept: [404] });
    expect(res.status).toBe(404);
    expect(res.earlierAttemptMayHaveApplied).toBeUndefined();
  });
});

describe("every wait is bounded", () => {
  it("a server that sends headers and then drips its body is given up on at the deadline: at first contact after one attempt, once it has answered after two", async () => {
    const s = await serve((req, res) => {
      if (req.url === "/ok") return json(res, 200, []);
      res.writeHead(200, { "content-type": "application/json" });
      res.write("[");
      const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write(" ")), 100);
    });
    const c = client(s.url, { requestTimeoutMs: 500 });
    const started = Date.now();
    const err = await send(c, "GET", "GET /projects").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ code: "ANSWER_TIMEOUT", mayHaveReachedServer: true });
    expect((err as Error).message).toBe("GET /projects: no complete answer from GitLab within 1 s");
    expect(s.received).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1_500);

    await c.send({ method: "GET", url: new URL("/ok", s.url), route: "GET /ok" });
    await expect(send(c, "GET", "GET /projects")).rejects.toMatchObject({ code: "ANSWER_TIMEOUT" });
    expect(s.received.filter((r) => r.url !== "/ok")).toHaveLength(3);
  });

  it("a server that never sends headers: a first contact costs one deadline; once it has answered, two, not three", async () => {
    const s = await serve((req, res) => (req.url === "/ok" ? json(res, 200, []) : undefined));
    const c = client(s.url, { requestTimeoutMs: 300 });
    const started = Date.now();
    await expect(send(c, "GET", "GET /projects")).rejects.toMatchObject({ code: "ANSWER_TIMEOUT" });
    expect(s.received).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1_000);

    await c.send({ method: "GET", url: new URL("/ok", s.url), route: "GET /ok" });
    await expect(send(c, "GET", "GET /projects")).rejects.toMatchObject({ code: "ANSWER_TIMEOUT" });
    expect(s.received.filter((r) => r.url !== "/ok")).toHaveLength(3);
  });

  it("a POST that timed out is not repeated: it may have been applied", async () => {
    const s = await serve(() => {});
    await expect(send(client(s.url, { requestTimeoutMs: 300 }), "POST", "POST /p", { body: "{}" })).rejects.toBeInstanceOf(NetworkError);
    expect(s.received).toHaveLength(1);
  });

  it("the caller's own abort wins over the deadline and keeps its reason", async () => {
    const s = await serve(() => {});
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error("stopped by caller")), 100);
    await expect(send(client(s.url, { requestTimeoutMs: 5_000 }), "GET", "GET /x", { signal: ac.signal })).rejects.toThrow("stopped by caller");
    expect(s.received).toHaveLength(1);
  });

  it("the budget counts the attempts too, not only the waits between them", async () => {
    const s = await serve((_req, res) => setTimeout(() => json(res, 503, {}, { "retry-after": "0" }), 400));
    const err = await send(client(s.url, { retry: { budgetMs: 1_000 } }), "GET", "GET /x").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect(s.received.length).toBeLessThanOrEqual(3);
  });
});

describe("every long wait is reported", () => {
  const watch = async (handler: ScriptedHandler, opts: Partial<HttpClientOptions> = {}) => {
    const events: WaitEvent[] = [];
    const s = await serve(handler);
    return { s, events, c: client(s.url, { waitNoticeMs: 300, onWait: (e) => events.push(e), ...opts }) };
  };

  it("a rate limit says what the server asked for and when the request resumes", async () => {
    const { c, events } = await watch((_req, res, n) => (n === 1 ? json(res, 429, "Retry later", { "retry-after": "1" }) : json(res, 200, [])));
    await send(c, "GET", "GET /groups/:id/projects");
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: "retry", route: "GET /groups/:id/projects", attempt: 1, waitMs: 1_000 });
    expect(events[0]!.message).toMatch(new RegExp(`^GitLab asked to wait 1 s \\(Retry-After\\) on GET /groups/:id/projects; resuming at ${CLOCK}$`));
  });

  it("short waits in a row (a 429 storm saying retry after 1 s) are reported once they add up to the notice's threshold, and again each time they double", async () => {
    const { c, events } = await watch((_req, res, n) => (n <= 5 ? json(res, 429, "Retry later", { "retry-after": "1" }) : json(res, 200, [])), { waitNoticeMs: 1_500 });
    await send(c, "GET", "GET /groups/:id/projects");
    // Waits of 1 s: the 2nd brings them to 2 s (past 1.5 s), the 3rd to 3 s (past twice that); the 5th to 5 s, short of 6 s.
    expect(events.map((e) => e.attempt)).toEqual([2, 3]);
    expect(events[0]!.message).toMatch(new RegExp(`^GitLab asked to wait 1 s \\(Retry-After\\) on GET /groups/:id/projects; resuming at ${CLOCK} \\(2 s of waits on this request by then\\)$`));
  }, 15_000);

  it("short waits of many requests (a listing's every page refused once for a second) are reported once they add up, and again each time they double", async () => {
    // Each request waited 1 s once: alone, none was worth a line, and a listing of a thousand pages was an hour without one.
    const { c, events } = await watch((_req, res, n) => (n % 2 === 1 ? json(res, 429, "Retry later", { "retry-after": "1" }) : json(res, 200, [])), { waitNoticeMs: 1_500 });
    for (let page = 0; page < 6; page++) await send(c, "GET", "GET /groups/:id/projects");
    // 1 s each: the 2nd brings them to 2 s (past 1.5 s), the 3rd to 3 s (past twice that), the 6th to 6 s (four times).
    expect(events.map((e) => e.message.replace(/^.*; short waits/, "short waits"))).toEqual([2, 3, 6].map((n) => `short waits like it have held requests ${n} s in all so far`));
  }, 15_000);

  it("a 5xx says what was answered, how long until the next attempt and which one it is; short waits are not reported", async () => {
    const { c, events } = await watch((_req, res, n) => (n === 1 ? json(res, 503, {}, { "retry-after": "1" }) : n === 2 ? json(res, 502, {}) : json(res, 204, {})));
    await send(c, "DELETE", "DELETE /projects/:id/share/:group_id");
    expect(events.map((e) => e.message)).toEqual([
      expect.stringMatching(new RegExp(`^GitLab answered 503 to DELETE /projects/:id/share/:group_id; retrying in 1 s \\(attempt 2 of at most 7\\), at ${CLOCK}$`)),
    ]);
  });

  it("an answer slow to come is reported once per attempt, with when the request is really given up", async () => {
    const { c, events } = await watch((_req, res) => setTimeout(() => json(res, 200, {}), 700));
    await send(c, "GET", "GET /projects/:id");
    expect(events).toEqual([{ kind: "slow-answer", method: "GET", route: "GET /projects/:id", attempt: 1, waitMs: 300, message: expect.any(String) }]);
    // A first contact that times out is not tried again: the request ends with this attempt.
    expect(events[0]!.message).toMatch(new RegExp(`^still waiting for GitLab to answer GET /projects/:id after 1 s \\(attempt 1\\); giving up at ${CLOCK}$`));
  });

  it("once the service has answered, the notice names the end of this attempt and of the one more that follows", async () => {
    const clock = (text: string) => Date.parse(`1970-01-01T${text.slice(0, 8)}Z`);
    const { c, events } = await watch((req, res) => (req.url === "/ok" ? json(res, 200, {}) : setTimeout(() => json(res, 200, {}), 700)), { requestTimeoutMs: 60_000 });
    await c.send({ method: "GET", url: new URL("/ok", c.origin), route: "GET /ok" });
    await send(c, "GET", "GET /projects/:id");
    const message = events[0]!.message;
    expect(message).toMatch(new RegExp(`^still waiting for GitLab to answer GET /projects/:id after 1 s \\(attempt 1\\); this attempt ends at ${CLOCK}, then one more: giving up by ${CLOCK}$`));
    // The attempt ends 60 s after it began; the request a deadline and a short backoff after that (times of day, so mod a day).
    const day = (ms: number) => ((ms % 86_400_000) + 86_400_000) % 86_400_000;
    const [ends, givesUp] = [...message.matchAll(/\d\d:\d\d:\d\d UTC/g)].map((m) => clock(m[0]));
    expect(day(ends! - Date.now())).toBeGreaterThan(55_000);
    expect(day(ends! - Date.now())).toBeLessThan(61_000);
    expect(day(givesUp! - ends!)).toBeGreaterThanOrEqual(59_000);
    expect(day(givesUp! - ends!)).toBeLessThanOrEqual(62_000);
  });

  it("the rate limiter names the route it holds and why: a 429's pause of the origin", async () => {
    const { c, events } = await watch((req, res, n) => (n === 1 ? json(res, 429, "Retry later", { "retry-after": "1" }) : json(res, 200, [req.url])));
    const first = send(c, "GET", "GET /first");
    await new Promise((r) => setTimeout(r, 100));
    await Promise.all([first, send(c, "GET", "GET /second")]);
    const hold = events.find((e) => e.kind === "rate-limit");
    expect(hold).toMatchObject({ route: "GET /second", method: "GET" });
    expect(hold!.message).toMatch(new RegExp(`^holding GET /second for 1 s: GitLab answered 429 on this origin, which pauses every request to it; resuming at ${CLOCK}$`));
  });

  it("one 429's pause is announced once, however many requests it holds", async () => {
    const { c, events } = await watch((req, res, n) => (n === 1 ? json(res, 429, "Retry later", { "retry-after": "1" }) : json(res, 200, [req.url])));
    const first = send(c, "GET", "GET /first");
    await new Promise((r) => setTimeout(r, 100));
    await Promise.all([first, ...["GET /a", "GET /b", "GET /c"].map((route) => send(c, "GET", route))]);
    expect(events.filter((e) => e.kind === "rate-limit")).toHaveLength(1);
  });

  it("the rate limiter names the route it holds and why: its RateLimit-Remaining budget is spent", async () => {
    const reset = String(Math.ceil(Date.now() / 1000) + 2);
    const { c, events } = await watch((_req, res) => json(res, 200, [], { "ratelimit-limit": "10", "ratelimit-remaining": "0", "ratelimit-reset": reset }));
    await send(c, "GET", "GET /groups/:id");
    await send(c, "GET", "GET /groups/:id");
    expect(events).toHaveLength(1);
    expect(events[0]!.message).toMatch(/^holding GET \/groups\/:id for [1-3] s: GitLab's RateLimit-Remaining budget for this route is spent; resuming at/);
  });
});

describe("an answer that is not what the API sends is named as such", () => {
  it("an answer without end (a hostile server or proxy) is read to 64 MiB and no further, refused naming its size and not asked again; one that says it is larger is refused unread", async () => {
    let sent = 0;
    const s = await serve((req, res) => {
      if (req.url?.startsWith("/declared")) {
        res.writeHead(200, { "content-type": "application/json", "content-length": "100000000" });
        return void (req.method === "HEAD" ? res.end() : res.write("["));
      }
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(1 << 20, 0x20);
      const pour = () => {
        while (!res.destroyed && res.write(chunk)) sent += chunk.length;
        if (!res.destroyed) res.once("drain", pour);
      };
      res.write("[");
      pour();
    });
    const c = client(s.url);
    const err = await send(c, "GET", "GET /projects", { expect: "json" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnexpectedAnswerError);
    expect((err as Error).message).toBe("GET /projects answered 200 with more than 67.1 MB, more than Warden reads of one answer: it was not read further (application/json, 67.1 MB)");
    // Refused for its size alone: a smaller page of the same listing may pass (lib/jobs/workflows/pages.ts).
    expect(err).toMatchObject({ tooLarge: true });
    // Not read on past the limit (what was in flight aside), and not asked again: the same server would send the same.
    expect(sent).toBeLessThan(96 * 2 ** 20);
    expect(s.received).toHaveLength(1);
    const declared = await c.send({ method: "GET", url: new URL("/declared", s.url), route: "GET /declared", expect: "json" }).catch((e: unknown) => e);
    expect((declared as Error).message).toBe("GET /declared answered 200 with more than 67.1 MB, more than Warden reads of one answer: it was not read further (application/json, 100.0 MB)");
    expect(s.received).toHaveLength(2);
    // A HEAD's length is that of the body it does not send.
    expect((await c.send({ method: "HEAD", url: new URL("/declared", s.url), route: "HEAD /declared" })).status).toBe(200);
  });

  it("decodes a body as UTF-8 whatever its chunks: a character split between two writes, a leading BOM dropped, a byte that is no UTF-8 replaced", async () => {
    const name = Buffer.from('{"name":"Jürgen ✓"}');
    const split = name.indexOf(Buffer.from("✓")) + 1;
    const s = await serve((req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      if (req.url === "/split") {
        // Two writes a moment apart: two chunks, the check mark's three bytes torn between them.
        res.write(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), name.subarray(0, split)]));
        return void setTimeout(() => res.end(name.subarray(split)), 20);
      }
      res.end(Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff]), Buffer.from('"}')]));
    });
    const c = client(s.url);
    expect((await c.send({ method: "GET", url: new URL("/split", s.url), route: "GET /split", expect: "json" })).json).toEqual({ name: "Jürgen ✓" });
    expect((await c.send({ method: "GET", url: new URL("/bad", s.url), route: "GET /bad", expect: "json" })).json).toEqual({ name: "\ufffd" });
  });

  const LOGIN_PAGE = `<!DOCTYPE html><html><head><title>Sign in</title></head><body>${"x".repeat(2_000)}</body></html>`;

  it("a sign-in proxy's HTML page in front of GitLab", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(LOGIN_PAGE);
    });
    const gitlab = new GitLabClient({ url: s.url, token: TOKEN, limiters: new RateLimiterRegistry() });
    const err = await gitlab.currentUser().catch((e: unknown) => e);
    expect(err).toMatchObject({ name: "UnexpectedAnswerError", status: 200, contentType: "text/html", looksLike: "an HTML page", tooLarge: false });
    expect((err as Error).message).toBe(
      "GET /api/v4/user answered 200 with an HTML page (text/html, 2.1 kB): is GITLAB_URL the GitLab host, or is a sign-in proxy in front of it?",
    );
    expect(s.received).toHaveLength(1);
  });

  it("an n8n address that is not the API names N8N_URL", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("OK");
    });
    const n8n = new N8nClient({ url: s.url, apiKey: "n8n-hostile-key-abcdef", limiters: new RateLimiterRegistry() });
    await expect(n8n.getWorkflow("1")).rejects.toThrow(
      "GET /api/v1/workflows/1 answered 200 with plain text (text/plain, 2 B): is N8N_URL the n8n instance address (without /api/v1), or is a sign-in proxy in front of it?",
    );
  });

  it("a JSON body cut short on a GET is retried like a dropped connection", async () => {
    const s = await serve((_req, res, n) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(n === 1 ? '[{"id":1},{"id"' : '[{"id":1},{"id":2}]');
    });
    const res = await send(client(s.url), "GET", "GET /projects", { expect: "json" });
    expect(res.json).toEqual([{ id: 1 }, { id: 2 }]);
    expect(s.received).toHaveLength(2);
  });

  it("a JSON body cut short on a POST is not retried, and the error quotes no body", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(201, { "content-type": "application/json" });
      res.end('{"id":1,"web_url":"http');
    });
    const err = await send(client(s.url), "POST", "POST /p", { body: "{}", expect: "json" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toBe("POST /p answered 201 with JSON cut short (application/json, 23 B)");
    expect(s.received).toHaveLength(1);
  });

  it("a body shorter than its Content-Length is retried on a GET", async () => {
    const s = await serve((req, res, n) => {
      if (n > 1) return json(res, 200, { ok: true });
      res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      res.write('{"ok":');
      setTimeout(() => req.socket.destroy(), 20);
    });
    const res = await send(client(s.url), "GET", "GET /x", { expect: "json" });
    expect(res.json).toEqual({ ok: true });
    expect(s.received).toHaveLength(2);
  });

  it("an HTML error page becomes a short description in the HttpError, never markup", async () => {
    const page = `<html><body><h1>502 Bad Gateway</h1>${"<p>nginx</p>".repeat(280)}</body></html>`;
    const s = await serve((_req, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end(page);
    });
    const err = (await send(client(s.url, { retry: { maxRetries: 0 } }), "GET", "GET /x").catch((e: unknown) => e)) as HttpError;
    expect(err).toBeInstanceOf(HttpError);
    expect(err.serviceMessage).toBe("an HTML page, 3.4 kB");
    expect(err.message).not.toContain("<");
  });

  it("an empty 204 is fine", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    const res = await send(client(s.url), "DELETE", "DELETE /x", { expect: "json" });
    expect(res.status).toBe(204);
    expect(res.json).toBeUndefined();
  });
});

/** The second of two GETs of a group (test/support/second-outcome.ts). */
const secondGet = (c: ReturnType<typeof client>, ms: number) => secondOutcome((signal) => send(c, "GET", "GET /groups/:id", signal ? { signal } : {}), ms);

describe("the rate limiter's own holds are bounded like a Retry-After", () => {
  it("a 200 saying RateLimit-Remaining: 0 until a reset an hour away holds nothing back; the 429 that may follow asking for the hour fails at once", async () => {
    const reset = String(Math.ceil(Date.now() / 1000) + 3600);
    let n = 0;
    const s = await serve((_req, res) =>
      ++n === 1 ? json(res, 200, {}, { "ratelimit-limit": "10", "ratelimit-remaining": "0", "ratelimit-reset": reset }) : json(res, 429, { message: "Retry later" }, { "retry-after": "3600" }),
    );
    const c = client(s.url);
    const outcome = await secondGet(c, 3_000);
    // Held for the hour before; now sent, and refused as a Retry-After of 3600 s is, above the 900 s ceiling.
    expect(outcome).toBeInstanceOf(HttpError);
    expect((outcome as Error).message).toMatch(/asked to wait 3600 s, above the 900 s ceiling/);
    expect(s.received).toHaveLength(2);
  });

  it("a low budget spread over a far reset (1 left of 1000, reset in 10 hours) does not hold the next request for hours", async () => {
    const reset = String(Math.ceil(Date.now() / 1000) + 36_000);
    const s = await serve((_req, res) => json(res, 200, {}, { "ratelimit-limit": "1000", "ratelimit-remaining": "1", "ratelimit-reset": reset }));
    const c = client(s.url);
    const outcome = await secondGet(c, 3_000);
    expect(outcome, "the second request is held for about 5 hours (10 h spread over the 2 requests left)").not.toBe("still waiting");
    expect(outcome).toMatchObject({ status: 200 });
  });
});

describe("a 429 storm never becomes a busy loop", () => {
  const storm = async (headers: () => Record<string, string>) => {
    const s = await serve((_req, res) => json(res, 429, { message: "Retry later" }, headers()));
    const err = await send(client(s.url, { retry: { budgetMs: 1_500 } }), "GET", "GET /groups/:id").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    return s.received.length;
  };

  it("control: bare 429s (no header) back off, a handful of requests in 1.5 s", async () => {
    expect(await storm(() => ({}))).toBeLessThan(15);
  });

  it("`Retry-After: -1` (not a delay-seconds, not an HTTP-date) is not read as a date in 2001, a wait of 0, over and over", async () => {
    expect(await storm(() => ({ "retry-after": "-1" }))).toBeLessThan(15);
  });

  it("`Retry-After: 1.5` is not read as 5 January 2001 either", async () => {
    expect(await storm(() => ({ "retry-after": "1.5" }))).toBeLessThan(15);
  });

  it("a RateLimit-Reset already past (the server's clock a minute behind ours) does not retry at once, over and over", async () => {
    expect(await storm(() => ({ "ratelimit-reset": String(Math.floor(Date.now() / 1000) - 60) }))).toBeLessThan(15);
  });
});

describe("a reset beyond what a timer can hold", () => {
  it("RateLimit-Reset in the year 5138 (remaining 0) neither spins the limiter on 1 ms timers nor reports a hold a thousand times a second", async () => {
    const s = await serve((_req, res) => json(res, 200, {}, { "ratelimit-limit": "10", "ratelimit-remaining": "0", "ratelimit-reset": "99999999999" }));
    const holds: string[] = [];
    const c = client(s.url, { waitNoticeMs: 0, onWait: (e) => (e.kind === "rate-limit" ? holds.push(e.message) : undefined) });
    const outcome = await secondGet(c, 1_000);
    // Each turn of the spin also prints a TimeoutOverflowWarning to stderr.
    expect(holds.length, `holds reported in 1 s; the first: ${holds[0]}`).toBeLessThanOrEqual(1);
    expect(outcome).not.toBe("still waiting");
  });
});
