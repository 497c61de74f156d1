/**
 * An answer whose JSON would make more objects than a heap holds (lib/http/json-size.ts): `[{},{},…]`
 * of 24 MB, well under the byte cap, made V8 end the CLI (256 MB of heap) with no report and no word of
 * Warden's. Such an answer is refused unparsed, as one over the byte cap is, naming what it was; brackets
 * inside strings (a workflow's code) are not counted.
 */
import { describe, expect, it } from "vitest";
import { createHttpClient, RateLimiterRegistry, UnexpectedAnswerError } from "../../lib/http/index.ts";
import { MAX_JSON_CONTAINERS, moreContainersThan } from "../../lib/http/json-size.ts";
import { serve } from "../support/server.ts";

describe("moreContainersThan", () => {
  it("counts objects and arrays outside strings, stopping at the bound", () => {
    expect(moreContainersThan(`[${"{},".repeat(5)}{}]`, 6)).toBe(true);
    expect(moreContainersThan(`[${"{},".repeat(4)}{}]`, 6)).toBe(false);
    // Brackets in strings, escaped quotes included, are text.
    const code = JSON.stringify([{ code: 'if (a) { b = [1, "{["]; }'.repeat(4) }, { code: "\\\"{[{[" }]);
    expect(moreContainersThan(code, 3)).toBe(false);
    expect(moreContainersThan(code, 2)).toBe(true);
  });
});

describe("an answer of more objects than Warden parses", () => {
  it("is refused unparsed with Warden's own error, not asked again; an answer of many but fewer is read", async () => {
    const many = (n: number) => Buffer.from(`[${"{},".repeat(n - 1)}{}]`);
    const s = await serve((req, res) => {
      const body = many(req.url?.startsWith("/fewer") ? MAX_JSON_CONTAINERS - 1 : MAX_JSON_CONTAINERS);
      res.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) });
      res.end(body);
    });
    const http = createHttpClient({ origin: s.url, service: "GitLab", credentials: { "PRIVATE-TOKEN": "glpat-json-size-token-0123456789" }, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 1 } });
    const err = await http.send({ method: "GET", url: new URL("/projects", s.url), route: "GET /projects", expect: "json" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnexpectedAnswerError);
    expect((err as Error).message).toBe("GET /projects answered 200 with JSON of more than 1,000,000 objects and arrays, more than Warden parses of one answer: it was not parsed (application/json, 3.0 MB)");
    expect(s.received).toHaveLength(1);
    const fewer = await http.send({ method: "GET", url: new URL("/fewer", s.url), route: "GET /fewer", expect: "json" });
    expect((fewer.json as unknown[]).length).toBe(MAX_JSON_CONTAINERS - 1);
  });
});
