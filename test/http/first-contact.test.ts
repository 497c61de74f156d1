/**
 * The first request to a service fails fast when the service is not where it was looked for: a refused
 * port, an unknown host, https:// to a plain-http server, a connection reset before any answer. Retries
 * of such failures begin only once the service has answered in this run (a client's lifetime); the
 * NetworkError keeps its code, for the caller to name the setting.
 */
import { createServer as createTcpServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import { Agent } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpClient, NetworkError, RateLimiterRegistry, type HttpClientOptions } from "../../lib/http/index.ts";
import { json, serve } from "../support/server.ts";

const tcpServers: Server[] = [];
afterEach(() => Promise.all(tcpServers.splice(0).map((s) => new Promise((r) => s.close(r)))));

function client(origin: string, opts: Partial<HttpClientOptions> = {}) {
  // lib/http's own defaults for retries: the point is how soon they give up.
  return createHttpClient({ origin, service: "GitLab", credentials: { "PRIVATE-TOKEN": "glpat-first-contact-0123" }, limiters: new RateLimiterRegistry(), ...opts });
}

const get = (c: ReturnType<typeof client>, path = "/api/v4/user") => c.send({ method: "GET", url: new URL(path, c.origin), route: "GET /user" });

/** The first request of a client for `origin` fails within `ms`, with a NetworkError of that code, retried `tries - 1` times. */
async function failsFast(origin: string, code: string | RegExp, opts: Partial<HttpClientOptions> = {}, tries = 1, ms = 2_000): Promise<NetworkError> {
  const retries: string[] = [];
  const started = Date.now();
  const err = await get(client(origin, { ...opts, onRetry: (e) => retries.push(e.reason) })).catch((e: unknown) => e);
  expect(Date.now() - started).toBeLessThan(ms);
  expect(err).toBeInstanceOf(NetworkError);
  expect((err as NetworkError).code).toMatch(code);
  expect(retries).toHaveLength(tries - 1);
  return err as NetworkError;
}

/** A port that was bound and closed: nothing listens there. */
async function refusedOrigin(): Promise<string> {
  const s = await serve(() => {});
  await s.close();
  return s.url;
}

/** A TCP server that resets every connection as soon as it is made, or (`onData`) closes it on the first bytes it gets, unanswered. */
async function resettingOrigin(how: "reset" | "close-on-data" = "reset"): Promise<{ origin: string; connections: () => number }> {
  let connections = 0;
  const server = createTcpServer((socket) => {
    connections++;
    if (how === "reset") socket.resetAndDestroy();
    else socket.once("data", () => socket.destroy());
  });
  tcpServers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
}

describe("a first contact that cannot reach the service fails at once", () => {
  it("a refused port: within 2 s, ECONNREFUSED, tried once", async () => {
    await failsFast(await refusedOrigin(), "ECONNREFUSED");
  });

  it("https:// to a plain-http server: within 2 s, with the TLS code, and no request reaches it", async () => {
    const s = await serve((_req, res) => json(res, 200, {}));
    await failsFast(s.url.replace("http://", "https://"), /^(ERR_SSL_|EPROTO)/);
    expect(s.received).toEqual([]);
  });

  it("an unknown host: within 2 s, ENOTFOUND (the resolver answers as for a name that does not exist)", async () => {
    const s = await serve((_req, res) => json(res, 200, {}));
    let lookups = 0;
    const dispatcher = new Agent({
      connect: {
        lookup: (_host, _opts, callback) => {
          lookups++;
          callback(Object.assign(new Error("getaddrinfo ENOTFOUND gitlab.example.invalid"), { code: "ENOTFOUND" }), "", 4);
        },
      },
    });
    await failsFast(s.url.replace("127.0.0.1", "gitlab.example.invalid"), "ENOTFOUND", { dispatcher });
    expect(lookups).toBe(1);
    await dispatcher.close();
  });

  // A connection closed unanswered may also be a blip (a proxy dropping it): it gets one more try, not six.
  it("a port that closes the connection unanswered, as a TLS port does to http://: within 2 s, UND_ERR_SOCKET, two tries", async () => {
    const { origin, connections } = await resettingOrigin("close-on-data");
    await failsFast(origin, "UND_ERR_SOCKET", {}, 2);
    expect(connections()).toBe(2);
  });

  it("a connection reset before any answer: within 2 s, ECONNRESET, two tries", async () => {
    const { origin, connections } = await resettingOrigin();
    await failsFast(origin, "ECONNRESET", {}, 2);
    expect(connections()).toBe(2);
  });

  it("a connection dropped once and then answered is not taken for a setting: the request completes", async () => {
    const s = await serve((req, res, n) => (n === 1 ? req.socket.destroy() : json(res, 200, { id: 1 })));
    await expect(get(client(s.url))).resolves.toMatchObject({ status: 200 });
    expect(s.received).toHaveLength(2);
  });
});

describe("once the service has answered in this run, the same failures are retried", () => {
  it("a refused connection after an answer is retried with backoff, and then given up with its code", async () => {
    const s = await serve((_req, res) => json(res, 200, {}));
    const retries: string[] = [];
    const c = client(s.url, { retry: { baseDelayMs: 5, maxRetries: 3 }, onRetry: (e) => retries.push(e.reason) });
    await get(c);
    await s.close();
    await expect(get(c)).rejects.toMatchObject({ name: "NetworkError", code: "ECONNREFUSED" });
    expect(retries).toEqual(["ECONNREFUSED", "ECONNREFUSED", "ECONNREFUSED"]);
  });

  it("each client is its own run: a new client's first contact fails fast again", async () => {
    const s = await serve((_req, res) => json(res, 200, {}));
    await get(client(s.url));
    await s.close();
    await failsFast(s.url, "ECONNREFUSED");
  });
});
