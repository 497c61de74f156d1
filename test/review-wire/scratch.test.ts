import { createServer } from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { createHttpClient, RateLimiterRegistry } from "../../lib/http/index.ts";
import { gitlabOffset, Listing, n8nCursor } from "../../lib/paging/index.ts";
import { json, serve } from "../support/server.ts";

describe("scratch", () => {
  it("cl+chunked", async () => {
    const srv = net.createServer((sock) => {
      sock.on("data", () => {
        sock.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n[1,2]\r\n0\r\n\r\n");
      });
    });
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    const origin = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
    const c = createHttpClient({ origin, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 1 } });
    const r = await c.send({ method: "GET", url: new URL("/x", origin), route: "GET /x", expect: "json" }).catch((e) => e);
    console.log("CLCHUNK", r?.json ?? r?.message, r?.code);
    srv.close();
  });
  it("big ids", async () => {
    const s = await serve((_r, res) => { res.writeHead(200, { "content-type": "application/json" }); res.end('[{"id":9007199254740993},{"id":9007199254740992}]'); });
    const http = createHttpClient({ origin: s.url, limiters: new RateLimiterRegistry() });
    const items = await Array.fromAsync(new Listing(gitlabOffset({ http, basePath: "/api/v4", path: "/projects", route: "GET /projects" })));
    console.log("IDS", items);
  });
  it("big cursor", async () => {
    const seen: number[] = [];
    const server = createServer({ maxHeaderSize: 64 * 1024 * 1024 }, (req, res) => {
      seen.push(req.url!.length);
      const n = seen.length;
      json(res, 200, { data: [{ id: `w${n}` }], nextCursor: n < 5 ? String(n).padEnd(4_000_000, "A") : null });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const http = createHttpClient({ origin, limiters: new RateLimiterRegistry() });
    const items = await Array.fromAsync(new Listing(n8nCursor({ http, url: new URL(`${origin}/api/v1/workflows`), route: "GET /workflows" }))).catch((e) => e);
    console.log("CURSOR", seen, Array.isArray(items) ? items.length : items.message);
    server.closeAllConnections(); server.close();
  });
});
