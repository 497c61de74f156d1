/**
 * What json-size.ts bounds, where it was not asked, run in a process of the functions' heap (256 MB,
 * lib/config/node-options.ts), where the fault shows: V8 ended the CLI and the functions with no report
 * and no word of Warden's (hostile review 14).
 * - An error answer's body is read for the service's message (errors.ts, serviceMessage), parsed as JSON
 *   where it is JSON: a 404 or 500 of `[{},{},…]` of 24 MB (well under the byte cap) was parsed whole.
 * - Keeping only the fields a caller reads (json-fields.ts) runs before the bounds, and built its kept text
 *   from a part for every item and member it kept: an n8n page `{"data":[{},{},…]}` of 60 MB (20 million
 *   items) filled the heap before the bound was asked.
 */
import { describe, expect, it } from "vitest";
import { HttpError } from "../../lib/http/index.ts";
import { serviceMessage } from "../../lib/http/errors.ts";
import { keepFields } from "../../lib/http/json-fields.ts";
import { MAX_JSON_CONTAINERS } from "../../lib/http/json-size.ts";
import { serve } from "../support/server.ts";
import { inSmallHeap } from "../support/small-heap.ts";

const client = new URL("../../lib/http/index.ts", import.meta.url).href;

/** Serves `body` with `status` to one GET of `path`, sent from a process with the functions' heap settings; what it printed and how it ended. */
async function getFromSmallHeap(status: number, body: Buffer, path: string, fields?: object): Promise<{ out: string; code: number | null; signal: string | null }> {
  const s = await serve((_req, res) => {
    res.writeHead(status, { "content-type": "application/json", "content-length": String(body.length) });
    res.end(body);
  });
  const script = `
    const { createHttpClient, RateLimiterRegistry } = await import(${JSON.stringify(client)});
    const http = createHttpClient({ origin: ${JSON.stringify(s.url)}, service: "n8n", credentials: { "X-N8N-API-KEY": "n8n-api-key-small-heap-0123456789" }, limiters: new RateLimiterRegistry(), retry: { maxRetries: 0 } });
    const url = new URL(${JSON.stringify(path)}, ${JSON.stringify(s.url)});
    const res = await http.send({ method: "GET", url, route: "GET /x", expect: "json", ${fields ? `fields: ${JSON.stringify(fields)}` : ""} }).catch((e) => e);
    console.log(res instanceof Error ? res.name + ": " + res.message.slice(0, 300) : "parsed");
  `;
  return inSmallHeap(script);
}

describe("an error answer of more JSON than Warden parses", () => {
  it.each([
    [404, ""],
    [500, " (gave up after 1 attempts)"],
  ])("a %i whose body is 24 MB of `[{},{},…]` is an HttpError naming it, not the end of the process", async (status, detail) => {
    const run = await getFromSmallHeap(status, Buffer.from(`[${"{},".repeat(8_000_000 - 1)}{}]`), "/api/v1/workflows/7");
    expect(run).toEqual({ out: `HttpError: GET /api/v1/workflows/7 answered ${status}: JSON of more than 1,000,000 objects and arrays, more than Warden parses of one answer: it was not parsed${detail}\n`, code: 0, signal: null });
  }, 60_000);

  it("a message beside fewer objects is quoted as before", { timeout: 60_000 }, () => {
    const text = JSON.stringify({ message: "404 Project Not Found", junk: Array.from({ length: MAX_JSON_CONTAINERS - 2 }, () => ({})) });
    expect(serviceMessage(text, "application/json")).toBe("404 Project Not Found");
    expect(new HttpError({ status: 404, method: "GET", route: "GET /x", path: "/x", serviceMessage: serviceMessage("[]"), headers: {} }).message).toBe("GET /x answered 404: []");
  });
});

describe("an n8n page of more items than Warden parses", () => {
  it.each([
    ["objects", "{}", "more than 1,000,000 objects and arrays", "60.0 MB"],
    ["numbers", "10", "more than 5,000,000 values", "60.0 MB"],
  ])("of 20 million %s is refused unparsed, naming it, not the end of the process", async (_, item, beyond, size) => {
    const body = Buffer.from(`{"data":[${`${item},`.repeat(20_000_000 - 1)}${item}],"nextCursor":null}`);
    const run = await getFromSmallHeap(200, body, "/api/v1/workflows?limit=250", { keep: ["id", "name"], in: "data" });
    expect(run).toEqual({ out: `UnexpectedAnswerError: GET /api/v1/workflows?limit=250 answered 200 with JSON of ${beyond}, more than Warden parses of one answer: it was not parsed (application/json, ${size})\n`, code: 0, signal: null });
  }, 60_000);

  it("a page of workflows is still kept to their fields, however large what is passed over", () => {
    const workflow = (id: string) => ({ id, name: `wf ${id}`, nodes: Array.from({ length: 1000 }, () => []) });
    const text = JSON.stringify({ data: Array.from({ length: 250 }, (_, i) => workflow(String(i))), nextCursor: null });
    const kept = JSON.parse(keepFields(text, { keep: ["id", "name"], in: "data" })) as { data: object[] };
    expect(kept.data).toHaveLength(250);
    expect(kept.data[7]).toEqual({ id: "7", name: "wf 7" });
  });
});
