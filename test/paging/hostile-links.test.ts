/**
 * GitLab's offset listings against a server (or a proxy) that writes the `Link` header.
 * A next link may point anywhere; only its path and query are taken, and the path must stay under
 * /api/v4. What a careful operator expects beyond that: a listing stays the listing it was asked
 * for (the same resource, the same filters), and a server that serves the same pages in turn under
 * ever-new links is caught as a loop, not handed out again and again up to the page ceiling.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createHttpClient, RateLimiterRegistry } from "../../lib/http/index.ts";
import { gitlabKeyset, gitlabOffset, Listing, PagingError, type GitLabListRequest } from "../../lib/paging/index.ts";
import { json, scriptedServer, type ScriptedServer } from "../support/server.ts";

const TOKEN = "glpat-review-paging-token-0123456789";
let server: ScriptedServer | undefined;
afterEach(() => server?.close());

async function gitlabLike(handler: Parameters<typeof scriptedServer>[0], path: string, query?: string): Promise<GitLabListRequest> {
  server = await scriptedServer(handler);
  const http = createHttpClient({ origin: server.url, credentials: { "PRIVATE-TOKEN": TOKEN }, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 1 } });
  return { http, basePath: "/api/v4", path, route: `GET ${path.replace(/\/\d+\//, "/:id/")}`, ...(query ? { query } : {}) };
}

const link = (url: string) => ({ link: `<${url}>; rel="next"` });
const pageOf = (url: string) => Number(new URL(url, "http://x").searchParams.get("page") ?? "1");

/** Every item the listing hands out, and how it ended. */
async function drain(listing: Listing<{ id: number }>): Promise<{ ids: number[]; error: unknown }> {
  const ids: number[] = [];
  try {
    for await (const item of listing) ids.push(item.id);
    return { ids, error: undefined };
  } catch (error) {
    return { ids, error };
  }
}

describe("a next link stays the listing it was asked for", () => {
  it("a next link to another group's projects (same origin, under /api/v4) is refused: the token is not sent there and the listing is not passed off as group 5's", async () => {
    const req = await gitlabLike((r, res) => {
      if (r.url.startsWith("/api/v4/groups/6/")) return json(res, 200, [{ id: 600 }, { id: 601 }]);
      json(res, 200, [{ id: 500 }], link(`${server!.url}/api/v4/groups/6/projects?page=2&per_page=100`));
    }, "/groups/5/projects");
    const { ids, error } = await drain(new Listing(gitlabOffset<{ id: number }>(req)));
    expect(server!.received.map((r) => r.url), "requests sent with the token").toEqual(["/api/v4/groups/5/projects?per_page=100"]);
    expect(error).toBeInstanceOf(PagingError);
    expect(ids, "the listing fails at the page whose link leaves it").toEqual([]);
  });

  it("a next link that drops the listing's filter (with_shared=false, which keeps projects shared in from outside out of scope) is refused, not followed", async () => {
    const req = await gitlabLike((r, res) => {
      if (pageOf(r.url) === 2) return json(res, 200, [{ id: 900 }]);
      json(res, 200, [{ id: 500 }], link(`${server!.url}/api/v4/groups/5/projects?include_subgroups=true&page=2&per_page=100`));
    }, "/groups/5/projects", "include_subgroups=true&with_shared=false");
    const { ids, error } = await drain(new Listing(gitlabOffset<{ id: number }>(req)));
    expect(server!.received).toHaveLength(1);
    expect(error).toBeInstanceOf(PagingError);
    expect(ids, "the listing fails at the page whose link leaves it").toEqual([]);
  });
  // GitLab writes its links from the parameters as it read them: a time as Ruby writes it, other ids beside them.
  it.each(["2026-10-31T12:00:00%2B00:00", "2026-10-31+12:00:00+UTC"])("a link that writes the listing's time otherwise (%s for .000Z) and adds parameters of its own is followed", async (written) => {
    const req = await gitlabLike((r, res) => {
      if (pageOf(r.url) === 2) return json(res, 200, [{ id: 2 }]);
      json(res, 200, [{ id: 1 }], link(`${server!.url}/api/v4/groups/5/audit_events?created_after=${written}&id=5&page=2&per_page=100`));
    }, "/groups/5/audit_events", "created_after=2026-10-31T12%3A00%3A00.000Z");
    const { ids, error } = await drain(new Listing(gitlabOffset<{ id: number }>(req)));
    expect(error).toBeUndefined();
    expect(ids).toEqual([1, 2]);
  });

  it("a link that moves the listing's time to another instant is refused", async () => {
    const req = await gitlabLike((r, res) => json(res, 200, [{ id: 1 }], link(`${server!.url}/api/v4/groups/5/audit_events?created_after=2020-01-01T00:00:00Z&page=2`)), "/groups/5/audit_events", "created_after=2026-10-31T12%3A00%3A00.000Z");
    const { error } = await drain(new Listing(gitlabOffset<{ id: number }>(req)));
    expect(String(error)).toMatch(/next link changes the parameter created_after of the listing/);
  });
});

// Real links as GitLab writes them carry parameters of its own: a listing must follow them.
describe("GitLab's own additions to a next link", () => {
  // As GitLab writes them: its declared defaults, and the path's parameters under its names.
  it.each([
    ["/projects/8/merge_requests/3/notes", "GET /projects/:id/merge_requests/:iid/notes", "id=8&noteable_id=3&order_by=created_at&sort=desc&page=2&per_page=100"],
    ["/groups/5/subgroups", "GET /groups/:id/subgroups", "all_available=false&id=5&order_by=name&owned=false&page=2&per_page=100&sort=asc&statistics=false&with_custom_attributes=false"],
    ["/groups/5/projects", "GET /groups/:id/projects", "id=5&include_ancestor_groups=false&include_subgroups=true&owned=false&page=2&per_page=100&simple=false&starred=false&with_custom_attributes=false&with_issues_enabled=false&with_merge_requests_enabled=false&with_security_reports=false&with_shared=false"],
  ])("GitLab's own additions are let be: %s", async (path, route, query) => {
    const req = await gitlabLike((r, res) => {
      if (pageOf(r.url) === 2) return json(res, 200, [{ id: 2 }]);
      json(res, 200, [{ id: 1 }], link(`${server!.url}/api/v4${path}?${query}`));
    }, path, path.endsWith("/projects") ? "include_subgroups=true&with_shared=false" : undefined);
    const { ids, error } = await drain(new Listing(gitlabOffset<{ id: number }>({ ...req, route })));
    expect(error).toBeUndefined();
    expect(ids).toEqual([1, 2]);
  });

  it("GitLab's own additions to a keyset link on /projects (GitLab.com's) are let be", async () => {
    const defaults = "imported=false&include_hidden=false&membership=false&owned=false&repository_checksum_failed=false&simple=false&starred=false&statistics=false&wiki_checksum_failed=false&with_custom_attributes=false&with_issues_enabled=false&with_merge_requests_enabled=false";
    const req = await gitlabLike((r, res) => {
      if (new URL(r.url, "http://x").searchParams.has("id_after")) return json(res, 200, [{ id: 2 }]);
      json(res, 200, [{ id: 1 }], link(`${server!.url}/api/v4/projects?${defaults}&id_after=1&order_by=id&pagination=keyset&per_page=100&sort=asc`));
    }, "/projects");
    const { ids, error } = await drain(new Listing(gitlabKeyset<{ id: number }>(req, { orderBy: "id", sort: "asc" })));
    expect(error).toBeUndefined();
    expect(ids).toEqual([1, 2]);
  });
});

describe("pages served in turn under ever-new links", () => {
  // Offset listings are exempt from the check on pages served before (their items shift as the listing
  // runs), and de-duplicated against the page before alone: two pages served in turn bring "something
  // new" every time, so neither the stale-page guard nor the served-page guard fires.
  it("two pages served in turn (A, B, A, B, … under page=2, 3, 4, …), no totals: stopped within a few pages, and no project handed out twice", async () => {
    const req = await gitlabLike((r, res) => {
      const page = pageOf(r.url);
      const ids = page % 2 === 1 ? [1, 2, 3] : [4, 5, 6];
      json(res, 200, ids.map((id) => ({ id })), link(`${server!.url}/api/v4/projects?page=${page + 1}&per_page=100`));
    }, "/projects");
    const { ids, error } = await drain(new Listing(gitlabOffset<{ id: number }>(req), { pageCeiling: 200 }));
    expect(error).toBeInstanceOf(PagingError);
    expect(new Set(ids).size, `ids handed out: ${ids.length}, distinct: ${new Set(ids).size}`).toBe(ids.length);
    expect(server!.received.length, "pages requested before the loop was caught").toBeLessThanOrEqual(6);
  });

  it("three pages served in turn, with totals announcing 40 pages: the same 9 projects are not handed out 30 times over", async () => {
    const req = await gitlabLike((r, res) => {
      const page = pageOf(r.url);
      const ids = [[1, 2, 3], [4, 5, 6], [7, 8, 9]][(page - 1) % 3]!;
      json(res, 200, ids.map((id) => ({ id })), { ...link(`${server!.url}/api/v4/projects?page=${page + 1}&per_page=100`), "x-total-pages": "40", "x-total": "4000" });
    }, "/projects");
    const { ids, error } = await drain(new Listing(gitlabOffset<{ id: number }>(req)));
    expect(error).toBeInstanceOf(PagingError);
    expect(ids.length, "items handed out").toBeLessThanOrEqual(9);
  });
});
