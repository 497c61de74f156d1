/** Spec conformance, docs/api-contract.md (GitLab REST API v4): §5 authentication, §7 errors, §8 limits and §9 versioning, through Warden's client against the simulator. */
import { describe, expect, it } from "vitest";
import { serializeQuery, type Group, type Project } from "../../../lib/gitlab/index.ts";
import { HttpError, type RetryEvent } from "../../../lib/http/index.ts";
import { PagingError } from "../../../lib/paging/index.ts";
import type { RetryStyle } from "../../../sim/gitlab/retry-headers.ts";
import { gitlabClient, headerValue, queryOf, startProxy } from "../../support/spec.ts";
import { afterTest } from "../../support/cleanup.ts";
import { anonymousListing, byId, deepProject, enc, gitlab, publicOrganisation, renamedOf, totals } from "../../support/spec-gitlab.ts";

describe("§5 Authentication", () => {
  it("Authenticated requests send the header PRIVATE-TOKEN: <ACCESS_TOKEN> — on every page, every redirect hop and every method", async () => {
    const { sim, client, dataset } = await gitlab({ projects: 300 });
    const shared = dataset.projects.find((p) => p.shared_with_groups.length > 0)!;
    await client.listProjects().collect();
    await client.listGroupProjects("acme").collect();
    await client.getProject(renamedOf(dataset).previous_paths[0]!);
    await client.unshareProject(shared.id, shared.shared_with_groups[0]!.group_id);
    await client.createPipeline(shared.id, "main", []);
    expect(new Set(sim.requests.map((r) => r.method))).toEqual(new Set(["GET", "DELETE", "POST"]));
    expect(sim.requests.length).toBeGreaterThanOrEqual(10);
    expect(sim.requests.filter((r) => headerValue(r.headers, "private-token") !== sim.token)).toEqual([]);
    // The token travels in the header only, never in a URL.
    expect(sim.requests.filter((r) => r.url.includes(sim.token) || /private_token|access_token/.test(r.url))).toEqual([]);
  });

  it("Some endpoints are open to unauthenticated users: a caller without a token sends no PRIVATE-TOKEN and lists them", async () => {
    // Public projects, which are what an anonymous caller lists (sim/gitlab/store.ts canSeeProject).
    const { sim, dataset } = await gitlab({ dataset: publicOrganisation(120) });
    const projects = await anonymousListing<Project>(sim.url, "/projects", { orderBy: "id", sort: "asc" }).collect();
    expect(projects).toHaveLength(dataset.projects.length);
    expect(sim.requests.filter((r) => headerValue(r.headers, "private-token") !== undefined)).toEqual([]);
  });

  it("Keyset availability for authenticated versus unauthenticated callers follows the table: Warden's GitLab client lists as an authenticated caller", async () => {
    const { sim, client } = await gitlab();
    // Groups by name is keyset for unauthenticated callers only: with a token, GitLab would refuse keyset (405).
    await client.list<Group>("/groups", {}, { order: { orderBy: "name", sort: "asc" } }).collect();
    // Projects by id is keyset for both.
    await client.listProjects().collect();
    expect(sim.requests.map((r) => `${r.url.split("?")[0]} ${queryOf(r.url).get("pagination")} ${headerValue(r.headers, "private-token") === sim.token}`)).toEqual([
      "/api/v4/groups null true",
      ...Array(3).fill("/api/v4/projects keyset true"),
    ]);
  });
});

describe("§7 Errors", () => {
  it("URL-encoded query string too long: 414 Request-URI Too Large, surfaced as such and not retried", async () => {
    // The instance's limit (value not shown) below Warden's own guard of 8,000 characters.
    const { sim, client } = await gitlab({ maxQueryLength: 500 });
    const err = await client.get("/projects", {}, { query: { search: "x".repeat(600) } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect(err).toMatchObject({ status: 414, serviceMessage: "Request-URI Too Large", route: "GET /projects" });
    expect(sim.counters.requests).toBe(1);
  });

  it("Path parameter needing URL encoding sent unencoded, or decoded by an intermediary: 404, the path matches no endpoint", async () => {
    const { sim, dataset } = await gitlab();
    const project = deepProject(dataset);
    const decoding = afterTest.add(await startProxy({ target: sim.url, decodePath: true }));
    const faithful = afterTest.add(await startProxy({ target: sim.url }));
    const err = await gitlabClient(decoding.url, sim.token).getProject(project.path_with_namespace).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect(err).toMatchObject({ status: 404, route: "GET /projects/:id" });
    // Warden sent it encoded; the intermediary undid that.
    expect(decoding.requests[0]!.url).toBe(`/api/v4/projects/${enc(project.path_with_namespace)}`);
    expect(sim.requests.at(-1)!.url).toBe(`/api/v4/projects/${project.path_with_namespace}`);
    // A proxy that leaves encoded path parameters alone is fine.
    expect((await gitlabClient(faithful.url, sim.token).getProject(project.path_with_namespace)).id).toBe(project.id);
  });

  it("Resource path changed: a redirect-style response whose Location holds the new address; the client uses that address", async () => {
    const { sim, client, dataset } = await gitlab();
    const renamed = renamedOf(dataset);
    const old = renamed.previous_paths[0]!;
    const issue = await client.getIssue(old, 2);
    const notes = await client.listIssueNotes(old, 1).collect();
    expect(issue).toMatchObject({ iid: 2, project_id: renamed.id });
    expect(notes).toHaveLength(12);
    expect(sim.requests.map((r) => r.url.split("?")[0])).toEqual([
      `/api/v4/projects/${enc(old)}/issues/2`,
      `/api/v4/projects/${renamed.id}/issues/2`,
      `/api/v4/projects/${enc(old)}/issues/1/notes`,
      `/api/v4/projects/${renamed.id}/issues/1/notes`,
    ]);
  });

  it("null sent for a boolean argument is not allowed: Warden refuses it before sending", async () => {
    const { sim, client } = await gitlab();
    const query = { archived: null } as unknown as Parameters<typeof serializeQuery>[0];
    await expect(client.get("/projects", {}, { query })).rejects.toThrow(TypeError);
    await expect(client.get("/projects", {}, { query })).rejects.toThrow(/true or false/);
    expect(sim.counters.requests).toBe(0);
  });
});

describe("§8 Limits", () => {
  it("per_page default 20: Warden never relies on it; every page request names per_page", async () => {
    const { sim, client } = await gitlab({ projects: 300 });
    await client.listProjects().collect();
    await client.listGroupProjects("acme").collect();
    await client.listNamespaces().collect();
    await client.listIssueNotes(1, 3).collect();
    expect(sim.requests.length).toBeGreaterThanOrEqual(8);
    expect(sim.requests.filter((r) => !queryOf(r.url).has("per_page"))).toEqual([]);
  });

  it("per_page maximum 100: Warden asks for exactly the maximum", async () => {
    const { sim, client } = await gitlab({ projects: 1_000 });
    const pages = await Array.fromAsync(client.listProjects().pages());
    await client.listGroupProjects("acme").collect();
    expect(pages.map((p) => p.items.length)).toEqual(Array(10).fill(100));
    expect(new Set(sim.requests.map((r) => queryOf(r.url).get("per_page")))).toEqual(new Set(["100"]));
  });

  it("page default 1: the first page request names no page and returns the first records", async () => {
    const { sim, client, dataset } = await gitlab({ projects: 300 });
    const [first] = await Array.fromAsync(client.listGroupProjects("acme", { maxPages: 1 }).pages());
    expect(queryOf(sim.requests[0]!.url).has("page")).toBe(false);
    expect(first!.items.map((p) => p.id)).toEqual(dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/")).slice(0, 100).map((p) => p.id));
  });

  it("Maximum offset for offset pagination: an offset listing past it fails with a PagingError that names keyset; the keyset listing never meets it", async () => {
    const { sim, client, dataset } = await gitlab({ projects: 1_000, offsetLimit: 300 });
    const seen: number[] = [];
    const err = await (async () => {
      for await (const p of client.list<Project>("/projects", {}, { order: { orderBy: "created_at", sort: "asc" } })) seen.push(p.id);
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PagingError);
    expect((err as Error).message).toMatch(/keyset/);
    expect((err as Error).message).toMatch(/order_by=id/);
    expect(seen).toHaveLength(300);
    expect(sim.counters.status["405"]).toBe(1);

    const all = await client.listProjects().collect();
    expect(all.map((p) => p.id)).toEqual(dataset.projects.map((p) => p.id).sort(byId));
    expect(sim.counters.status["405"]).toBe(1);
  });

  it("Threshold above which x-total, x-total-pages and rel=last are omitted: 10,000 records", async () => {
    const firstPage = async (projects: number) => {
      const { client } = await gitlab({ projects, recordRequests: false });
      const [page] = await Array.fromAsync(client.list<Project>("/projects", {}, { order: { orderBy: "created_at" }, list: { maxPages: 1 } }).pages());
      return totals(page!.meta);
    };
    expect(await firstPage(10_000)).toEqual({ total: 10_000, totalPages: 100 });
    expect(await firstPage(10_001)).toEqual({ total: "unknown", totalPages: "unknown" });
  });

  it("Users endpoint: keyset is forced above 50,000 requested records; Warden lists users by keyset for every order GitLab offers", async () => {
    const { sim, client } = await gitlab();
    const orders = ["id", "name", "username", "created_at", "updated_at"];
    // The simulator answers /users only by username (400 here); the request line is what matters.
    for (const orderBy of orders) await client.list("/users", {}, { order: { orderBy } }).collect().catch(() => undefined);
    expect(sim.requests.map((r) => [queryOf(r.url).get("pagination"), queryOf(r.url).get("order_by")])).toEqual(orders.map((o) => ["keyset", o]));
  });

  it("URL-encoded query string length: a limit exists; a query at the limit is sent, one character more is refused before sending", async () => {
    const { sim, client } = await gitlab({ maxQueryLength: 200 }, { maxQueryLength: 200 });
    const query = (n: number) => ({ search: "q".repeat(n - "search=".length) });
    expect(serializeQuery(query(200)).length).toBe(200);
    await expect(client.get<unknown[]>("/projects", {}, { query: query(200) })).resolves.toEqual(expect.any(Array));
    await expect(client.get("/projects", {}, { query: query(201) })).rejects.toThrow(/414/);
    expect(sim.counters.status).toEqual({ "200": 1 });
  });

  const RATE_LIMITED: [string, RetryStyle, [number, number], string][] = [
    ["Retry-After", "retry-after", [1_000, 1_000], "429"],
    ["only RateLimit-Reset", "reset-only", [900, 2_000], "429"],
    ["no header at all", "none", [500, 1_000], "429 without Retry-After"],
  ];
  it.each(RATE_LIMITED)("Rate limits: a 429 with %s mid-listing leads to the right wait and a complete listing", async (_label, style, [min, max], reason) => {
    const events: RetryEvent[] = [];
    const { sim, client, dataset } = await gitlab(
      { projects: 400, recordRequests: false },
      { onRetry: (e) => events.push(e), retry: { baseDelayMs: 5, rateLimitedBaseMs: 1_000 } },
    );
    const ids: number[] = [];
    let faultAt = 0;
    for await (const page of client.listProjects().pages()) {
      ids.push(...page.items.map((p) => p.id));
      if (faultAt === 0) {
        sim.addFaults({ kind: "429", headers: style, seconds: 1, route: "GET /projects", times: 1 });
        faultAt = Date.now();
      }
    }
    const elapsed = Date.now() - faultAt;
    expect(ids).toEqual(dataset.projects.map((p) => p.id).sort(byId));
    expect(sim.counters.status["429"]).toBe(1);
    expect(client.http.stats.snapshot()).toMatchObject({ rateLimited: 1, retries: 1, pages: 4 });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ route: "GET /projects", attempt: 1, reason });
    expect(events[0]!.waitMs).toBeGreaterThanOrEqual(min);
    expect(events[0]!.waitMs).toBeLessThanOrEqual(max);
    expect(elapsed).toBeGreaterThanOrEqual(events[0]!.waitMs - 5);
  });

  it("Rate limits: request rate limit settings apply to all REST API requests; a listing throttled by the instance completes", async () => {
    const { sim, client, dataset } = await gitlab({ projects: 500, recordRequests: false, rateLimits: [{ limit: 3, windowMs: 1_000 }] });
    const ids = (await client.listProjects().collect()).map((p) => p.id);
    expect(ids).toEqual(dataset.projects.map((p) => p.id).sort(byId));
    const rejected = sim.counters.status["429"] ?? 0;
    expect(client.http.stats.snapshot().rateLimited).toBe(rejected);
    expect(sim.counters.status["200"]).toBe(5);
  });
});

describe("§9 Versioning", () => {
  it("The path prefix is /api/v4: every request Warden sends is under it", async () => {
    const { sim, client, dataset } = await gitlab();
    const project = dataset.projects[1]!;
    await client.listProjects().collect();
    await client.listGroupProjects("acme").collect();
    await client.getProject(renamedOf(dataset).previous_paths[0]!);
    await client.getFile(project.id, "README.md", "main");
    await client.createPipeline(project.id, "main", []);
    expect(sim.requests.length).toBeGreaterThan(5);
    expect(sim.requests.filter((r) => !r.url.startsWith("/api/v4/"))).toEqual([]);
  });

  it("A GitLab URL with a path prefix keeps it: requests, Link pages and redirects stay under <prefix>/api/v4", async () => {
    const { sim, dataset } = await gitlab({ projects: 250 });
    const proxy = afterTest.add(await startProxy({ target: sim.url, prefix: "/gitlab" }));
    const client = gitlabClient(`${proxy.url}/gitlab/`, sim.token);
    expect(client.basePath).toBe("/gitlab/api/v4");
    const renamed = renamedOf(dataset);
    expect((await client.getProject(renamed.previous_paths[0]!)).id).toBe(renamed.id);
    expect((await client.listProjects().collect()).length).toBe(250);
    expect((await client.listGroupProjects("acme").collect()).length).toBeGreaterThan(200);
    expect(proxy.requests.length).toBeGreaterThanOrEqual(8);
    expect(proxy.requests.filter((r) => !r.url.startsWith("/gitlab/api/v4/"))).toEqual([]);
    expect(sim.counters.status["404"]).toBeUndefined();
  });
});
