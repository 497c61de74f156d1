/**
 * What a hostile server (or proxy) chooses in a listing, beyond the page's bytes: ids past 2^53, which
 * JSON.parse rounds so that two projects share one (one dropped as the other's duplicate, the other
 * addressed by an id not its own); and strings of megabytes where n8n sends a few dozen characters (a
 * nextCursor, a workflow id), which the listing and the workflows job keep, so that some sixty pages of
 * 4 MB each took the 256 MB heap past its end with no report (a hostile review's findings). Each is
 * refused with the listing's own error, naming where, never quoting it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createHttpClient, RateLimiterRegistry } from "../../lib/http/index.ts";
import { gitlabOffset, Listing, n8nCursor, PagingError } from "../../lib/paging/index.ts";
import { scriptedServer, type ScriptedServer } from "../support/server.ts";

let server: ScriptedServer | undefined;
afterEach(() => server?.close());

/** A server answering every request with `body`, as is. */
async function answering(body: string) {
  server = await scriptedServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(body);
  });
  return createHttpClient({ origin: server.url, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 1 } });
}

const projects = (http: ReturnType<typeof createHttpClient>) => new Listing(gitlabOffset<{ id: number }>({ http, basePath: "/api/v4", path: "/projects", route: "GET /projects" }));
const workflows = (http: ReturnType<typeof createHttpClient>) => new Listing(n8nCursor<{ id: string }>({ http, url: new URL(`${server!.url}/api/v1/workflows`), route: "GET /workflows" }));

describe("a listing's ids and cursors, as a hostile server chooses them", () => {
  it("two projects whose ids differ past 2^53 are refused, not merged into one", async () => {
    const http = await answering('[{"id":9007199254740993,"path_with_namespace":"acme/a"},{"id":9007199254740992,"path_with_namespace":"acme/b"}]');
    await expect(Array.fromAsync(projects(http))).rejects.toThrow(
      new PagingError("GET /projects (gitlab-offset): item 1 of page 1 has an id that is not a positive whole number below 2^53 (JSON.parse would not read it exactly); stopping instead of guessing what it is"),
    );
  });

  it.each([["a fraction", "1.5"], ["zero", "0"], ["a negative", "-3"]])("a numeric id that is %s is refused", async (_what, id) => {
    const http = await answering(`[{"id":${id}}]`);
    await expect(Array.fromAsync(projects(http))).rejects.toThrow(/item 1 of page 1 has an id that is not a positive whole number/);
  });

  it("a workflow id of 4 MB is refused at once, naming its length, not kept", async () => {
    const http = await answering(JSON.stringify({ data: [{ id: "w".padEnd(4 << 20, "x") }], nextCursor: null }));
    const err = await Array.fromAsync(workflows(http)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PagingError);
    expect((err as Error).message).toBe("GET /workflows (n8n-cursor): item 1 of page 1 has an id of 4194304 characters (1 to 256); stopping instead of guessing what it is");
  });

  it("a nextCursor of 4 MB is refused at once, not sent back", async () => {
    const http = await answering(JSON.stringify({ data: [{ id: "w1" }], nextCursor: "c".padEnd(4 << 20, "A") }));
    await expect(Array.fromAsync(workflows(http))).rejects.toThrow(
      new PagingError("GET /workflows: n8n's nextCursor is 4194304 characters, more than the 4096 Warden sends back; stopping instead of following it"),
    );
    expect(server!.received).toHaveLength(1);
  });
});
