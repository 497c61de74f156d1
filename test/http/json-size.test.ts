/**
 * An answer whose JSON would make more than a heap holds (lib/http/json-size.ts): `[{},{},…]` of 24 MB,
 * or `[1.5,"",…]` of 60 MB (a hostile review's finding: one array, so one container, of 18 million
 * values), well under the byte cap, made V8 end the CLI (256 MB of heap) with no report and no word of
 * Warden's. Such an answer is refused unparsed, as one over the byte cap is, naming what it was; brackets
 * and commas inside strings (a workflow's code) are not counted.
 */
import { describe, expect, it } from "vitest";
import { createHttpClient, RateLimiterRegistry, UnexpectedAnswerError } from "../../lib/http/index.ts";
import { beyondBounds, MAX_JSON_CONTAINERS, MAX_JSON_VALUES } from "../../lib/http/json-size.ts";
import { serve } from "../support/server.ts";

describe("beyondBounds", () => {
  const bounds = (containers: number, values: number) => ({ containers, values });
  it("counts objects and arrays outside strings, stopping at the bound", () => {
    expect(beyondBounds(`[${"{},".repeat(5)}{}]`, bounds(6, 100))).toBe("more than 6 objects and arrays");
    expect(beyondBounds(`[${"{},".repeat(4)}{}]`, bounds(6, 100))).toBeUndefined();
    // Brackets in strings, escaped quotes included, are text.
    const code = JSON.stringify([{ code: 'if (a) { b = [1, "{["]; }'.repeat(4) }, { code: "\\\"{[{[" }]);
    expect(beyondBounds(code, bounds(3, 100))).toBeUndefined();
    expect(beyondBounds(code, bounds(2, 100))).toBe("more than 2 objects and arrays");
  });

  it("counts values by their commas outside strings, in one array as in many", () => {
    expect(beyondBounds(`[${"1.5,".repeat(7)}""]`, bounds(100, 8))).toBeUndefined();
    expect(beyondBounds(`[${"1.5,".repeat(8)}""]`, bounds(100, 8))).toBe("more than 8 values");
    expect(beyondBounds(JSON.stringify(["a,b,c,d,e,f,g,h,i,j", 1]), bounds(100, 3))).toBeUndefined();
  });
});

/** A loopback server answering each request with the JSON `bodyFor` its path gives, and a GitLab client of it. */
async function answering(bodyFor: (path: string) => Buffer) {
  const s = await serve((req, res) => {
    const body = bodyFor(req.url ?? "/");
    res.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) });
    res.end(body);
  });
  const http = createHttpClient({ origin: s.url, service: "GitLab", credentials: { "PRIVATE-TOKEN": "glpat-json-size-token-0123456789" }, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 1 } });
  const get = (path: string) => http.send({ method: "GET", url: new URL(path, s.url), route: `GET ${path}`, expect: "json" });
  return { s, get };
}

describe("an answer of more objects than Warden parses", () => {
  it("is refused unparsed with Warden's own error, not asked again; an answer of many but fewer is read", async () => {
    const many = (n: number) => Buffer.from(`[${"{},".repeat(n - 1)}{}]`);
    const { s, get } = await answering((path) => many(path.startsWith("/fewer") ? MAX_JSON_CONTAINERS - 1 : MAX_JSON_CONTAINERS));
    const err = await get("/projects").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnexpectedAnswerError);
    expect((err as Error).message).toBe("GET /projects answered 200 with JSON of more than 1,000,000 objects and arrays, more than Warden parses of one answer: it was not parsed (application/json, 3.0 MB)");
    expect(s.received).toHaveLength(1);
    const fewer = await get("/fewer");
    expect((fewer.json as unknown[]).length).toBe(MAX_JSON_CONTAINERS - 1);
  });
});

describe("an answer of more values than Warden parses, in one array", () => {
  it("is refused unparsed with Warden's own error, not asked again", async () => {
    const body = Buffer.from(`[${"1,".repeat(MAX_JSON_VALUES)}1]`);
    const { s, get } = await answering(() => body);
    const err = await get("/user").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnexpectedAnswerError);
    expect((err as Error).message).toBe("GET /user answered 200 with JSON of more than 5,000,000 values, more than Warden parses of one answer: it was not parsed (application/json, 10.0 MB)");
    expect(s.received).toHaveLength(1);
  });
});
