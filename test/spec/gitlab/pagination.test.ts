/** Spec conformance, docs/api-contract.md (GitLab REST API v4): §4 pagination, offset and keyset, through Warden's paging library against the simulator. */
import { describe, expect, it } from "vitest";
import { type Group, type Project } from "../../../lib/gitlab/index.ts";
import { gitlabClient, nextLinkOf, queryOf, requestTarget, startProxy, tap } from "../../support/spec.ts";
import { afterTest } from "../../support/cleanup.ts";
import { anonymousListing, byId, gitlab, totals, urlsOf } from "../../support/spec-gitlab.ts";

describe("§4 Pagination", () => {
  it("Offset-based pagination is the default: where no keyset row applies, Warden lists by offset", async () => {
    const { sim, client, dataset } = await gitlab({ projects: 600 });
    const acme = await client.listGroupProjects("acme").collect();
    const namespaces = await client.listNamespaces().collect();
    const subgroups = await client.listDescendantGroups("acme").collect();
    expect(acme.length).toBe(dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/")).length);
    expect(namespaces.length).toBe(dataset.groups.length + dataset.users.length);
    expect(subgroups.length).toBe(dataset.groups.filter((g) => g.full_path.startsWith("acme/")).length);
    expect(sim.requests.length).toBeGreaterThan(6);
    expect(sim.requests.filter((r) => queryOf(r.url).has("pagination"))).toEqual([]);
  });

  it("Offset is available on every endpoint except the users endpoint: Warden never lists /users by offset", async () => {
    const { sim, client } = await gitlab();
    // The simulator answers /users only by username (400 here); the request line is what matters.
    await client.list("/users", {}, {}).collect().catch(() => undefined);
    expect(sim.requests).toHaveLength(1);
    expect(queryOf(sim.requests[0]!.url).get("pagination")).toBe("keyset");
  });

  it("Keyset-based pagination is available on selected endpoints and options only, and is preferred for large collections where available", async () => {
    const { sim, client, dataset } = await gitlab({ projects: 250 });
    const all = dataset.projects.map((p) => p.id).sort(byId);
    expect((await client.listProjects().collect()).map((p) => p.id)).toEqual(all);
    expect((await client.list<Project>("/projects", {}, { order: { orderBy: "id", sort: "desc" } }).collect()).map((p) => p.id)).toEqual([...all].reverse());
    // An order GitLab has no keyset for is listed by offset instead of failing.
    expect((await client.list<Project>("/projects", {}, { order: { orderBy: "created_at", sort: "asc" } }).collect()).map((p) => p.id)).toEqual(all);
    const modes = sim.requests.map((r) => `${queryOf(r.url).get("pagination") ?? "offset"} ${queryOf(r.url).get("order_by")}`);
    expect(modes).toEqual([...Array(6).fill("keyset id"), ...Array(3).fill("offset created_at")]);
    expect(sim.counters.status["405"]).toBeUndefined();
  });
});

describe("§4 Pagination — offset", () => {
  it("Every offset-paginated response carries a Link header; clients follow these URLs and do not build their own", async () => {
    const { sim, client, dataset } = await gitlab({ projects: 600 });
    const seen = tap(client.http);
    const projects = await client.listGroupProjects("acme").collect();
    expect(projects.length).toBe(dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/")).length);
    const requests = urlsOf(sim, "/api/v4/groups/");
    expect(requests.length).toBe(seen.length);
    expect(requests.length).toBeGreaterThanOrEqual(5);
    expect(seen.every((s) => (s.headers["link"] ?? "").includes('rel="first"'))).toBe(true);
    // Each request after the first is exactly the previous answer's rel="next", byte for byte.
    for (let i = 1; i < requests.length; i++) expect(requests[i]).toBe(requestTarget(nextLinkOf(seen[i - 1]!.headers)!));
    expect(nextLinkOf(seen.at(-1)!.headers)).toBeUndefined();
  });

  it("x-total and x-total-pages: Warden reports the total number of items and of pages as GitLab gives them", async () => {
    const { client, dataset } = await gitlab({ projects: 600 });
    const pages = await Array.fromAsync(client.listGroupProjects("acme").pages());
    const total = dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/")).length;
    expect(pages).toHaveLength(Math.ceil(total / 100));
    for (const page of pages) expect(totals(page.meta)).toEqual({ total, totalPages: Math.ceil(total / 100) });
  });

  it("On the hosted offering some pagination headers may be absent: a listing without any x-* header completes, totals unknown", async () => {
    const { sim, dataset } = await gitlab({ projects: 600 });
    const proxy = afterTest.add(
      await startProxy({
        target: sim.url,
        rewrite: (headers) => {
          for (const name of Object.keys(headers)) if (name.startsWith("x-")) delete headers[name];
        },
      }),
    );
    const client = gitlabClient(proxy.url, sim.token);
    const seen = tap(client.http);
    const pages = await Array.fromAsync(client.listGroupProjects("acme").pages());
    expect(seen.every((s) => !Object.keys(s.headers).some((h) => h.startsWith("x-")))).toBe(true);
    const ids = pages.flatMap((p) => p.items.map((i) => i.id));
    expect(ids).toEqual(dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/")).map((p) => p.id));
    expect(pages.map((p) => totals(p.meta))).toEqual(Array(pages.length).fill({ total: "unknown", totalPages: "unknown" }));
  });

  it("When a query would return more than 10,000 records, x-total, x-total-pages and rel=last are not returned", async () => {
    const { client, dataset } = await gitlab({ projects: 12_500 });
    const seen = tap(client.http);
    const pages = await Array.fromAsync(client.listGroupProjects("acme").pages());
    expect(seen.some((s) => "x-total" in s.headers || "x-total-pages" in s.headers || /rel="last"/.test(s.headers["link"] ?? ""))).toBe(false);
    // Not 0, not a guess: "unknown".
    expect(new Set(pages.map((p) => JSON.stringify(totals(p.meta))))).toEqual(new Set([JSON.stringify({ total: "unknown", totalPages: "unknown" })]));
    const ids = pages.flatMap((p) => p.items.map((i) => i.id));
    expect(ids).toEqual(dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/")).map((p) => p.id));
  });

  it("An offset listing of 12,000 records completes with the totals reported as unknown", async () => {
    const { sim, client, dataset } = await gitlab({ projects: 12_000 });
    // created_at has no keyset row: Warden falls back to offset on /projects.
    const pages = await Array.fromAsync(client.list<Project>("/projects", {}, { order: { orderBy: "created_at", sort: "asc" } }).pages());
    const ids = pages.flatMap((p) => p.items.map((i) => i.id));
    expect(ids).toHaveLength(12_000);
    expect(ids).toEqual(dataset.projects.map((p) => p.id).sort(byId));
    expect(pages).toHaveLength(120);
    expect(pages.every((p) => p.meta.total === "unknown" && p.meta.totalPages === "unknown")).toBe(true);
    expect(sim.requests.every((r) => !queryOf(r.url).has("pagination"))).toBe(true);
  });
});

describe("§4 Pagination — keyset", () => {
  it("Keyset parameters: pagination=keyset, order_by and sort are sent on every page request, with per_page", async () => {
    const { sim, client } = await gitlab({ projects: 450 });
    await client.listProjects().collect();
    expect(sim.requests).toHaveLength(5);
    for (const { url } of sim.requests) {
      const q = queryOf(url);
      expect([q.get("pagination"), q.get("order_by"), q.get("sort"), q.get("per_page")]).toEqual(["keyset", "id", "asc", "100"]);
    }
  });

  it("The rel=next Link repeats the original parameters plus an id_after filter when ordering by id; Warden uses it as given", async () => {
    const { sim, client, dataset } = await gitlab({ projects: 450 });
    const seen = tap(client.http);
    const projects = await client.listProjects({ query: { simple: true } }).collect();
    expect(projects.map((p) => p.id)).toEqual(dataset.projects.map((p) => p.id).sort(byId));
    expect(sim.requests).toHaveLength(5);
    // simple=true held on every page: no page carried the full entity.
    expect(projects.some((p) => "shared_with_groups" in p)).toBe(false);
    const urls = sim.requests.map((r) => r.url);
    for (let i = 1; i < urls.length; i++) {
      expect(urls[i]).toBe(requestTarget(nextLinkOf(seen[i - 1]!.headers)!));
      const q = queryOf(urls[i]!);
      expect([q.get("pagination"), q.get("order_by"), q.get("sort"), q.get("simple")]).toEqual(["keyset", "id", "asc", "true"]);
      expect(q.get("id_after")).toBe(String(projects[i * 100 - 1]!.id));
    }
  });

  it("The rel=next Link carries a cursor=<opaque_cursor> filter for orderings other than id; Warden sends it back unchanged", async () => {
    const { sim, dataset } = await gitlab();
    const listing = anonymousListing<Group>(sim.url, "/groups", { orderBy: "name", sort: "asc" }, 2);
    const groups = await listing.collect();
    const visible = dataset.groups.filter((g) => g.visibility === "public");
    expect(groups.map((g) => g.id).sort(byId)).toEqual(visible.map((g) => g.id));
    expect(groups.map((g) => g.name)).toEqual([...groups.map((g) => g.name)].sort());
    const cursors = sim.requests.slice(1).map((r) => queryOf(r.url).get("cursor"));
    expect(cursors).toHaveLength(Math.ceil(visible.length / 2) - 1);
    expect(cursors.every((c) => typeof c === "string" && c.length > 0)).toBe(true);
  });

  it("X-NEXT-CURSOR holds the cursor for the next page; X-PREV-CURSOR the previous page's cursor when available", async () => {
    const { sim } = await gitlab({ projects: 300 });
    const proxy = afterTest.add(
      await startProxy({
        target: sim.url,
        rewrite: (headers, target) => {
          const after = queryOf(target).get("id_after");
          if (after) headers["x-prev-cursor"] = `before-${after}`;
        },
      }),
    );
    const client = gitlabClient(proxy.url, sim.token);
    const seen = tap(client.http);
    const pages = await Array.fromAsync(client.listProjects().pages());
    expect(pages).toHaveLength(3);
    expect(pages.map((p) => p.meta.nextCursor)).toEqual([seen[0]!.headers["x-next-cursor"], seen[1]!.headers["x-next-cursor"], undefined]);
    expect(pages[0]!.meta.nextCursor).toEqual(expect.any(String));
    expect(pages.map((p) => p.meta.prevCursor)).toEqual([
      undefined,
      `before-${pages[0]!.items.at(-1)!.id}`,
      `before-${pages[1]!.items.at(-1)!.id}`,
    ]);
  });

  it("At the end of a keyset collection there is no Link header and the result array is empty", async () => {
    const { sim, client, dataset } = await gitlab();
    const maxId = Math.max(...dataset.projects.map((p) => p.id));
    const seen = tap(client.http);
    const pages = await Array.fromAsync(client.listProjects({ idAfter: maxId }).pages());
    expect(pages.map((p) => p.items)).toEqual([[]]);
    expect(pages[0]!.checkpoint.next).toBeNull();
    expect(seen[0]!.headers["link"]).toBeUndefined();
    expect(sim.requests).toHaveLength(1);
    // A last page that still holds items but has no Link ends the listing as well: no extra request.
    sim.resetCounters();
    const tail = await client.listProjects({ idAfter: maxId - 150 }).collect();
    expect(tail.map((p) => p.id)).toEqual(dataset.projects.map((p) => p.id).filter((id) => id > maxId - 150));
    expect(sim.requests).toHaveLength(Math.max(1, Math.ceil(tail.length / 100)));
  });

  it("Clients use only the provided links; the older Links header was removed and Link is the one to use", async () => {
    const { sim, dataset } = await gitlab({ projects: 350 });
    const proxy = afterTest.add(
      await startProxy({
        target: sim.url,
        // A stale `Links` pointing past the end: following it would end the listing early.
        rewrite: (headers) => {
          if (headers["link"]) headers["links"] = headers["link"].replace(/id_after=\d+/, "id_after=999999999");
        },
      }),
    );
    const client = gitlabClient(proxy.url, sim.token);
    const projects = await client.listProjects().collect();
    expect(projects.map((p) => p.id)).toEqual(dataset.projects.map((p) => p.id).sort(byId));
    expect(proxy.requests.some((r) => r.url.includes("999999999"))).toBe(false);
    expect(proxy.requests).toHaveLength(4);
  });

  it("Keyset runtime is independent of collection size: Warden lists /projects by keyset whatever its size", async () => {
    for (const projects of [1, 250]) {
      const { sim, client } = await gitlab({ projects });
      await client.listProjects().collect();
      await client.list("/projects", {}, { order: { orderBy: "id" } }).collect();
      expect(sim.requests.every((r) => queryOf(r.url).get("pagination") === "keyset")).toBe(true);
    }
  });

  it("Listing 25,000 projects by keyset returns 25,000 unique ids in exactly 250 page requests", async () => {
    const { sim, client, dataset } = await gitlab({ projects: 25_000, recordRequests: false });
    const ids: number[] = [];
    for await (const project of client.listProjects()) ids.push(project.id);
    expect(ids).toHaveLength(25_000);
    expect(new Set(ids).size).toBe(25_000);
    expect(ids).toEqual(dataset.projects.map((p) => p.id).sort(byId));
    expect(sim.counters.byRoute["GET /projects"]).toBe(250);
    expect(sim.counters.requests).toBe(250);
  });
});
