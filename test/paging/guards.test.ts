import { afterEach, describe, expect, it } from "vitest";
import { createHttpClient, RateLimiterRegistry } from "../../lib/http/index.ts";
import { gitlabKeyset, gitlabOffset, Listing, n8nCursor, PagingError, type Checkpoint } from "../../lib/paging/index.ts";
import { json, scriptedServer, type ScriptedServer } from "../support/server.ts";

let server: ScriptedServer | undefined;
afterEach(() => server?.close());

async function gitlabLike(handler: Parameters<typeof scriptedServer>[0]) {
  server = await scriptedServer(handler);
  const http = createHttpClient({ origin: server.url, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 1 } });
  return { http, req: { http, basePath: "/api/v4", path: "/projects", route: "GET /projects" } };
}

const link = (url: string, rel = "next") => ({ link: `<${url}>; rel="${rel}"` });

describe("paging guards", () => {
  it("a repeated next link is an error, not an endless loop", async () => {
    let id = 0;
    const { req } = await gitlabLike((_r, res) => json(res, 200, [{ id: ++id }], link(`${server!.url}/api/v4/projects?page=2`)));
    await expect(Array.fromAsync(new Listing(gitlabOffset(req)))).rejects.toThrow(PagingError);
    expect(server!.received.length).toBe(2);
  });

  it("a server that sends a new next link on every page is stopped past what its totals announced", async () => {
    const { req } = await gitlabLike((r, res) => {
      const page = Number(new URL(r.url, "http://x").searchParams.get("page") ?? "1");
      json(res, 200, [{ id: page }], { ...link(`${server!.url}/api/v4/projects?page=${page + 1}`), "x-total-pages": "3", "x-total": "300" });
    });
    await expect(Array.fromAsync(new Listing(gitlabOffset(req)))).rejects.toThrow(
      new PagingError("GET /projects (gitlab-offset): 16 pages read and the server still sends a next page, more than twice the 3 its totals announced; stopping instead of running on"),
    );
    expect(server!.received.length).toBe(16);
  });

  it("without totals, a listing stops at the page ceiling (n8n's cursor, new on every page)", async () => {
    const { http } = await gitlabLike((r, res) => {
      const n = Number(new URL(r.url, "http://x").searchParams.get("cursor") ?? "0");
      json(res, 200, { data: [{ id: String(n) }], nextCursor: String(n + 1) });
    });
    const listing = new Listing(n8nCursor({ http, url: new URL(`${server!.url}/api/v1/workflows`), route: "GET /workflows" }), { pageCeiling: 40 });
    await expect(Array.fromAsync(listing)).rejects.toThrow(/^GET \/workflows \(n8n-cursor\): 40 pages read .* past the ceiling of 40 pages/);
    expect(server!.received.length).toBe(40);
  });

  it("a listing whose totals grow a little as it runs is not stopped", async () => {
    const { req } = await gitlabLike((r, res) => {
      const page = Number(new URL(r.url, "http://x").searchParams.get("page") ?? "1");
      const next = page < 12 ? link(`${server!.url}/api/v4/projects?page=${page + 1}`) : {};
      json(res, 200, [{ id: page }], { ...next, "x-total-pages": "10" });
    });
    expect(await Array.fromAsync(new Listing(gitlabOffset(req)))).toHaveLength(12);
  });

  it("a page that is not JSON names the listing's request instead of a bare parse error", async () => {
    const { req } = await gitlabLike((_r, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<!doctype html><title>Sign in</title>");
    });
    await expect(Array.fromAsync(new Listing(gitlabOffset(req)))).rejects.toThrow(
      "GET /api/v4/projects?per_page=100 answered 200 with an HTML page (text/html, 37 B)",
    );
  });

  it("offset pages that bring nothing new under a new link each time (a server ignoring the page asked for) are stopped after three, not at the ceiling", async () => {
    const { req } = await gitlabLike((r, res) => {
      const page = Number(new URL(r.url, "http://x").searchParams.get("page") ?? "1");
      json(res, 200, [{ id: 1 }, { id: 2 }], link(`${server!.url}/api/v4/projects?page=${page + 1}&per_page=100`));
    });
    await expect(Array.fromAsync(new Listing(gitlabOffset(req), { pageCeiling: 50 }))).rejects.toThrow(
      new PagingError("GET /projects (gitlab-offset): 3 pages in a row brought nothing new (each only what the page before held, or nothing) and the server still sends a next page; stopping instead of looping"),
    );
    expect(server!.received.length).toBe(4);
  });

  it("an n8n page served again under a new cursor is an error at once: two pages served in turn are not handed out again and again up to the ceiling", async () => {
    const { http } = await gitlabLike((r, res) => {
      const n = Number(new URL(r.url, "http://x").searchParams.get("cursor") ?? "0");
      json(res, 200, { data: n % 2 === 0 ? [{ id: "a" }, { id: "b" }] : [{ id: "c" }, { id: "d" }], nextCursor: String(n + 1) });
    });
    const seen: string[] = [];
    const listing = new Listing(n8nCursor<{ id: string }>({ http, url: new URL(`${server!.url}/api/v1/workflows`), route: "GET /workflows" }), { pageCeiling: 200 });
    const err = await (async () => {
      for await (const wf of listing) seen.push(wf.id);
    })().catch((e: unknown) => e);
    expect(err).toEqual(new PagingError("GET /workflows (n8n-cursor): page 3 holds the same items as page 1: the server went back to where it had been; stopping instead of looping"));
    expect(seen).toEqual(["a", "b", "c", "d"]);
    expect(server!.received.length).toBe(3);
  });

  it("a repeated n8n cursor is an error too", async () => {
    const { http } = await gitlabLike((_r, res) => json(res, 200, { data: [{ id: String(Math.random()) }], nextCursor: "same" }));
    const listing = new Listing(n8nCursor({ http, url: new URL(`${server!.url}/api/v1/workflows`), route: "GET /workflows" }));
    await expect(Array.fromAsync(listing)).rejects.toThrow(/same next position twice/);
  });

  it("a keyset cursor that loops back under a new name (audit events by id, newest first) is an error at the first page that goes back", async () => {
    // Three pages, then the first again: each cursor a new string, so no position repeats.
    const pages = [[9, 8, 7], [6, 5, 4], [3, 2, 1]];
    const { req } = await gitlabLike((r, res) => {
      const n = Number(new URL(r.url, "http://x").searchParams.get("n") ?? "0");
      json(res, 200, pages[n % pages.length]!.map((id) => ({ id })), link(`${server!.url}/api/v4/audit_events?pagination=keyset&order_by=id&sort=desc&cursor=${n + 1}x&n=${n + 1}`));
    });
    const listing = new Listing(gitlabKeyset({ ...req, path: "/audit_events", route: "GET /audit_events" }, { orderBy: "id", sort: "desc" }), { pageCeiling: 50 });
    await expect(Array.fromAsync(listing)).rejects.toThrow(
      new PagingError("GET /audit_events (gitlab-keyset): id 9 listed after id 1, in a listing by id descending: the server went back to where it had been; stopping instead of looping"),
    );
    expect(server!.received.length).toBe(4);
  });

  it("a keyset listing by id whose ids are strings is refused at its first page, before they could slip past the order guard", async () => {
    const pages = [["9", "8", "7"], ["6", "5", "4"]];
    const { req } = await gitlabLike((r, res) => {
      const n = Number(new URL(r.url, "http://x").searchParams.get("n") ?? "0");
      json(res, 200, pages[n % 2]!.map((id) => ({ id })), link(`${server!.url}/api/v4/audit_events?pagination=keyset&order_by=id&sort=desc&cursor=${n + 1}x&n=${n + 1}`));
    });
    const listing = new Listing(gitlabKeyset({ ...req, path: "/audit_events", route: "GET /audit_events" }, { orderBy: "id", sort: "desc" }), { pageCeiling: 100 });
    await expect(Array.fromAsync(listing)).rejects.toThrow(
      new PagingError("GET /audit_events (gitlab-keyset): item 1 of page 1 has an id that is a string, not a number; stopping instead of guessing what it is"),
    );
    expect(server!.received.length).toBe(1);
  });

  it("where ids are hints (audit events), an item no listing takes (a string id, a null, an id out of order) is passed and the listing goes on; one that loops back is still stopped", async () => {
    const keysetOver = async (pages: unknown[][], ceiling = 50) => {
      const { req } = await gitlabLike((r, res) => {
        const n = Number(new URL(r.url, "http://x").searchParams.get("n") ?? "0");
        const next = n + 1 < ceiling ? link(`${server!.url}/api/v4/audit_events?pagination=keyset&order_by=id&sort=desc&cursor=${n + 1}x&n=${n + 1}`) : {};
        json(res, 200, pages[n % pages.length], next);
      });
      const passed: unknown[] = [];
      const listing = new Listing(gitlabKeyset({ ...req, path: "/audit_events", route: "GET /audit_events" }, { orderBy: "id", sort: "desc" }), { idsAreHints: true, passed: (item) => passed.push(item), pageCeiling: ceiling });
      return { listing, passed };
    };
    const ended = await keysetOver([[{ id: "9" }, null, { id: 8 }, { id: 12 }, { id: 7 }], [{ id: 6 }, { id: 2 ** 64 }, { id: 5 }]], 2);
    expect((await Array.fromAsync(ended.listing)).map((e) => e.id)).toEqual([8, 7, 6, 5]);
    // 2^64 is no id JSON.parse reads exactly.
    expect(ended.passed).toEqual([{ id: "9" }, null, { id: 12 }, { id: 2 ** 64 }]);
    // An id of 0 first does not become the order guard's last id: the real ones after it are taken.
    const zeroFirst = await keysetOver([[0, 10, 9, 8], [7, 6]].map((ids) => ids.map((id) => ({ id }))), 2);
    expect((await Array.fromAsync(zeroFirst.listing)).map((e) => e.id)).toEqual([10, 9, 8, 7, 6]);
    expect(zeroFirst.passed).toEqual([{ id: 0 }]);

    // Three pages, then the first again, each under a new cursor: its items come out of order, and the page is one served before.
    const looping = await keysetOver([[9, 8, 7], [6, 5, 4], [3, 2, 1]].map((ids) => ids.map((id) => ({ id }))));
    await expect(Array.fromAsync(looping.listing)).rejects.toThrow("page 4 holds the same items as page 1");
    // Pages that bring nothing a listing by id takes, under new cursors for ever: stopped after three, not at the ceiling.
    const useless = await keysetOver([[{ id: "1" }, null]]);
    await expect(Array.fromAsync(useless.listing)).rejects.toThrow("3 pages in a row brought nothing new");
    expect(server!.received.length).toBe(3);
  });

  it("items of the wrong shape are a PagingError naming the listing and the item, never quoting it: null, no id, an array, an n8n id that is no string", async () => {
    let body: unknown;
    const { req, http } = await gitlabLike((r, res) => json(res, 200, r.url.startsWith("/api/v1/") ? { data: body, nextCursor: null } : body));
    const failure = (page: unknown) => {
      body = page;
      return Array.fromAsync(new Listing(gitlabOffset(req))).catch((e: unknown) => e);
    };
    expect(await failure([{ id: 1 }, null])).toEqual(new PagingError("GET /projects (gitlab-offset): item 2 of page 1 is null, not an object; stopping instead of guessing what it is"));
    expect(await failure([{ name: "a" }, { name: "b" }, { name: "c" }])).toEqual(new PagingError("GET /projects (gitlab-offset): item 1 of page 1 has no id; stopping instead of guessing what it is"));
    expect(await failure([{ id: 1 }, ["secret-looking"]])).toEqual(new PagingError("GET /projects (gitlab-offset): item 2 of page 1 is an array, not an object; stopping instead of guessing what it is"));
    const workflows = (page: unknown) => {
      body = page;
      return Array.fromAsync(new Listing(n8nCursor({ http, url: new URL(`${server!.url}/api/v1/workflows`), route: "GET /workflows" }))).catch((e: unknown) => e);
    };
    expect(await workflows([null])).toEqual(new PagingError("GET /workflows (n8n-cursor): item 1 of page 1 is null, not an object; stopping instead of guessing what it is"));
    expect(await workflows([{ id: "wf1" }, { id: 2 }])).toEqual(
      new PagingError("GET /workflows (n8n-cursor): item 2 of page 1 has an id that is a number, not a string; stopping instead of guessing what it is"),
    );
  });

  it("n8n's nextCursor ends a listing only when null, absent or empty: a number is an error, not a listing cut short as if complete", async () => {
    let nextCursor: unknown;
    const { http } = await gitlabLike((_r, res) => json(res, 200, { data: [{ id: "wf1" }], ...(nextCursor !== undefined && { nextCursor }) }));
    const listed = (cursor: unknown) => {
      nextCursor = cursor;
      return Array.fromAsync(new Listing(n8nCursor({ http, url: new URL(`${server!.url}/api/v1/workflows`), route: "GET /workflows" }))).catch((e: unknown) => e);
    };
    expect(await listed(2)).toEqual(new PagingError("GET /workflows: n8n's nextCursor is a number, neither a cursor nor null; stopping instead of guessing whether more pages follow"));
    expect(await listed({ offset: 250 })).toEqual(new PagingError("GET /workflows: n8n's nextCursor is an object, neither a cursor nor null; stopping instead of guessing whether more pages follow"));
    expect(await listed("")).toEqual([{ id: "wf1" }]);
    expect(await listed(null)).toEqual([{ id: "wf1" }]);
    expect(await listed(undefined)).toEqual([{ id: "wf1" }]);
  });

  it("items are de-duplicated by id when an offset listing shifts under us", async () => {
    const pages: Record<string, { ids: number[]; next?: string }> = {
      "1": { ids: [1, 2, 3], next: "2" },
      "2": { ids: [3, 4, 5], next: "3" },
      "3": { ids: [5, 6] },
    };
    const { req } = await gitlabLike((r, res) => {
      const page = pages[new URL(r.url, "http://x").searchParams.get("page") ?? "1"]!;
      json(res, 200, page.ids.map((id) => ({ id })), page.next ? link(`${server!.url}/api/v4/projects?page=${page.next}&per_page=100`) : {});
    });
    const ids = (await Array.fromAsync(new Listing(gitlabOffset<{ id: number }>(req)))).map((p) => p.id);
    expect(ids).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("a page served again and again (twice repeated, under new links) counts its items once", async () => {
    const { req } = await gitlabLike((r, res) => {
      const page = Number(new URL(r.url, "http://x").searchParams.get("page") ?? "1");
      const ids = page < 4 ? [1, 2, 3] : [4];
      json(res, 200, ids.map((id) => ({ id })), page < 4 ? link(`${server!.url}/api/v4/projects?page=${page + 1}&per_page=100`) : {});
    });
    const ids = (await Array.fromAsync(new Listing(gitlabOffset<{ id: number }>(req)))).map((p) => p.id);
    expect(ids).toEqual([1, 2, 3, 4]);
  });

  it("a next link that leaves /api/v4 is refused, and only path and query of a link are used", async () => {
    const { req } = await gitlabLike((r, res) =>
      r.url.startsWith("/api/v4/projects?page=2")
        ? json(res, 200, [{ id: 2 }], link("https://evil.example/other/path?page=3"))
        : json(res, 200, [{ id: 1 }], link("https://proxy.internal:8443/api/v4/projects?page=2&per_page=100")),
    );
    await expect(Array.fromAsync(new Listing(gitlabOffset(req)))).rejects.toThrow(/leaves \/api\/v4/);
    // The second request went to the configured origin, not the host the link named.
    expect(server!.received.map((r) => r.url)).toEqual(["/api/v4/projects?per_page=100", "/api/v4/projects?page=2&per_page=100"]);
  });

  it("falls back to x-next-page only when there is no Link, and totals are unknown without x-total", async () => {
    const { req } = await gitlabLike((r, res) => {
      const page = Number(new URL(r.url, "http://x").searchParams.get("page") ?? "1");
      json(res, 200, [{ id: page }], { "x-next-page": page < 3 ? String(page + 1) : "" });
    });
    const pages = await Array.fromAsync(new Listing(gitlabOffset(req)).pages());
    expect(pages.map((p) => p.items[0]!.id)).toEqual([1, 2, 3]);
    expect(pages[0]!.meta).toMatchObject({ total: "unknown", totalPages: "unknown" });
  });

  it("X-Next-Page naming a next page that Link does not (only rel=first and last) is an error, not a listing ended after page 1 as if complete", async () => {
    const { req } = await gitlabLike((r, res) => {
      const page = Number(new URL(r.url, "http://x").searchParams.get("page") ?? "1");
      const ends = `<${server!.url}/api/v4/projects?page=1&per_page=100>; rel="first", <${server!.url}/api/v4/projects?page=2&per_page=100>; rel="last"`;
      json(res, 200, [{ id: page }], { link: ends, "x-page": String(page), "x-next-page": page < 2 ? "2" : "", "x-total-pages": "2", "x-total": "2" });
    });
    await expect(Array.fromAsync(new Listing(gitlabOffset(req)))).rejects.toThrow(
      new PagingError('GET /projects: X-Next-Page names a next page but Link has no rel="next"; stopping instead of ending the listing early'),
    );
    expect(server!.received.length).toBe(1);
  });

  it("a next link that is not a URL (`<http://[::1>`) is a PagingError naming the listing and the page it came with, not a bare TypeError", async () => {
    const { req } = await gitlabLike((_r, res) => json(res, 200, [{ id: 1 }], link("http://[::1")));
    await expect(Array.fromAsync(new Listing(gitlabOffset(req)))).rejects.toThrow(
      new PagingError("GET /projects: the next link after /api/v4/projects?per_page=100 is not a URL; refusing to follow it"),
    );
  });

  it("maxPages and maxItems stop early; a checkpoint resumes where the listing stopped", async () => {
    const { req } = await gitlabLike((r, res) => {
      const after = Number(new URL(r.url, "http://x").searchParams.get("id_after") ?? "0");
      const ids = after >= 9 ? [] : [after + 1, after + 2, after + 3];
      json(res, 200, ids.map((id) => ({ id })), ids.length ? link(`${server!.url}/api/v4/projects?pagination=keyset&order_by=id&sort=asc&id_after=${after + 3}`) : {});
    });
    const order = { orderBy: "id", sort: "asc" } as const;
    const firstTwo = await Array.fromAsync(new Listing(gitlabKeyset(req, order), { maxPages: 2 }).pages());
    const checkpoint: Checkpoint = JSON.parse(JSON.stringify(firstTwo.at(-1)!.checkpoint));
    expect(checkpoint).toEqual({ strategy: "gitlab-keyset", next: "/api/v4/projects?pagination=keyset&order_by=id&sort=asc&id_after=6", pages: 2, items: 6 });
    const rest = await Array.fromAsync(new Listing(gitlabKeyset<{ id: number }>(req, order), { from: checkpoint }));
    expect(rest.map((p) => p.id)).toEqual([7, 8, 9]);
    const limited = await Array.fromAsync(new Listing(gitlabKeyset<{ id: number }>(req, order), { maxItems: 4 }));
    expect(limited.map((p) => p.id)).toEqual([1, 2, 3, 4]);
  });

  it("a checkpoint of another strategy is refused", async () => {
    const { req } = await gitlabLike((_r, res) => json(res, 200, []));
    expect(() => new Listing(gitlabOffset(req), { from: { strategy: "n8n-cursor", next: "x", pages: 1, items: 1 } })).toThrow(PagingError);
  });
});
