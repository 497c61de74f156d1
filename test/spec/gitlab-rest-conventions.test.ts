/**
 * Spec conformance: docs/api-contract.md (GitLab REST API v4), rule by rule, exercised through
 * Warden's own GitLab client (lib/gitlab, lib/paging, lib/http) against the GitLab simulator over
 * loopback sockets. Where the simulator alone cannot show a rule (a GitLab under a path prefix, an
 * intermediary that decodes paths, a hosted instance that drops headers, X-PREV-CURSOR, the retired
 * `Links` header), a reverse proxy from ./support.ts sits in front of it.
 *
 * Rules that describe the service only:
 * - §1 offerings (hosted, self-managed, dedicated), tiers (free, premium, ultimate) and the uses
 *   named: nothing in a client depends on them. Hosted vs self-managed differences that reach a
 *   client are tested where the sheet states them (§4 offset rule 3, §8 rate limits).
 * - §2 fields `name`, `description` (project create), `namespace`, `path`, `override_params`
 *   (project import), `import_sources`: Warden creates and imports no projects. The hash encoding
 *   they use is tested under §4 "hash parameter".
 * - §3 states and transitions, §6 events: "not shown".
 * - §4 operations POST /projects and POST /projects/import (multipart): Warden never calls them.
 * - §4 keyset rule 4, second half ("no pagination headers beyond those listed are exposed") and
 *   rule 5 ("keyset runtime is independent of collection size"): properties of the server. What
 *   Warden does about rule 5 (prefers keyset for /projects at any size) is tested.
 * - §4 release notes (16.5 deprecation, 17.0 removal) are history; the resulting rule for clients
 *   (no offset on /users) is tested under §4 Pagination and §8.
 * - §5 token kinds, how tokens are obtained, scopes, the answer to missing or invalid credentials:
 *   "not shown".
 * - §8 values of the maximum offset, the query-string limit and the rate limits: "value not shown"
 *   (the tests set them on the simulator; Warden's query limit is an option).
 * - §9 items 2–7 (semantic versioning, minor version not in the path, major changes only with a
 *   major release, documented deprecations, items excluded from deprecation, EE→CE revert): release
 *   policy of the service. The one client-visible consequence, the fixed /api/v4 prefix, is tested.
 */
import { afterEach, describe, expect, it } from "vitest";
import { fillPath, isTrue, serializeQuery, type GitLabClient, type GitLabClientOptions, type Group, type Project } from "../../lib/gitlab/index.ts";
import { createHttpClient, HttpError, RateLimiterRegistry, type RetryEvent } from "../../lib/http/index.ts";
import { gitlabListing, KEYSET_SUPPORT, keysetSupportFor, PagingError, type ListingOrder, type PageMeta } from "../../lib/paging/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabDataset, type GitLabSim, type GitLabSimOptions, type SimProject } from "../../sim/gitlab/index.ts";
import type { RetryStyle } from "../../sim/gitlab/retry-headers.ts";
import { parseParams } from "../../sim/gitlab/query.ts";
import { Closer, gitlabClient, headerValue, nextLinkOf, queryOf, rawQueryOf, requestTarget, startProxy, tap } from "./support.ts";

const closer = new Closer();
afterEach(() => closer.closeAll());

const enc = encodeURIComponent;
const byId = (a: number, b: number): number => a - b;
/** The totals a page announced (its meta also holds the server's Date). */
const totals = ({ total, totalPages }: PageMeta) => ({ total, totalPages });

interface Setup {
  sim: GitLabSim;
  client: GitLabClient;
  dataset: GitLabDataset;
}

/** A recording simulator with a seeded organisation, and Warden's client for it. */
async function gitlab(
  opts: Omit<GitLabSimOptions, "dataset"> & { projects?: number; dataset?: GitLabDataset } = {},
  clientOpts: Partial<GitLabClientOptions> = {},
): Promise<Setup> {
  const { projects = 300, dataset = generateOrganisation({ projects, seed: 11 }).dataset, ...simOpts } = opts;
  const sim = closer.add(await startGitLabSim({ recordRequests: true, ...simOpts, dataset }));
  return { sim, dataset, client: gitlabClient(sim.url, sim.token, clientOpts) };
}

/** A listing made the way Warden makes one, but by a caller without a token. */
function anonymousListing<T extends { id: number }>(origin: string, path: string, order?: ListingOrder, perPage?: number) {
  const http = createHttpClient({ origin, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  return gitlabListing<T>({ http, basePath: "/api/v4", path, route: `GET ${path}`, order, authenticated: false, perPage });
}

const renamedOf = (dataset: GitLabDataset): SimProject => dataset.projects.find((p) => p.previous_paths.length > 0)!;
/** A project at least two namespaces deep (`acme/mobile/ios-client.12`), never renamed. */
const deepProject = (dataset: GitLabDataset): SimProject =>
  dataset.projects.find((p) => p.path_with_namespace.split("/").length >= 3 && p.previous_paths.length === 0)!;
const urlsOf = (sim: GitLabSim, prefix: string): string[] => sim.requests.filter((r) => r.url.startsWith(prefix)).map((r) => r.url);

describe("§1 What the service does", () => {
  it("A client sends a request to an endpoint; the instance answers with a status code and, where applicable, the requested data", async () => {
    const { sim, client, dataset } = await gitlab();
    const project = dataset.projects.find((p) => p.shared_with_groups.length > 0)!;
    const groupId = project.shared_with_groups[0]!.group_id;
    // 204 without data, then 200 with data.
    await expect(client.unshareProject(project.id, groupId)).resolves.toBe("removed");
    const fetched = await client.getProject(project.id);
    expect(fetched.id).toBe(project.id);
    expect(fetched.shared_with_groups!.map((s) => s.group_id)).not.toContain(groupId);
    expect(sim.counters.status).toEqual({ "204": 1, "200": 1 });
  });

  it("Responses are JSON; some endpoints also answer plain text, which Warden keeps as the error's message", async () => {
    // No budget: a 429 is retried until the request's budget ends, whatever maxRetries says.
    const { sim, client, dataset } = await gitlab({}, { retry: { maxRetries: 0, budgetMs: 0 } });
    const project = dataset.projects[3]!;
    const fetched = await client.getProject(project.id);
    expect(headerValue(sim.requests[0]!.headers, "accept")).toBe("application/json");
    expect(fetched).toMatchObject({ id: project.id, path_with_namespace: project.path_with_namespace, default_branch: "main" });
    // GitLab's 429 body is the plain text "Retry later".
    sim.addFaults({ kind: "429", headers: "none", route: "GET /projects/:id", times: 1 });
    const err = await client.getProject(project.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect(err).toMatchObject({ status: 429, serviceMessage: "Retry later" });
  });
});

describe("§2 Resources and their fields", () => {
  it("Single-resource requests use iid in the path; GET /projects/P/issues/I by global id is invalid", async () => {
    const { sim, client, dataset } = await gitlab();
    const project = dataset.projects[5]!;
    const issue = await client.getIssue(project.id, 2);
    expect(issue).toMatchObject({ iid: 2, project_id: project.id });
    expect(issue.id).not.toBe(issue.iid);
    expect(sim.requests.at(-1)!.url).toBe(`/api/v4/projects/${project.id}/issues/2`);
    // The global id in the iid slot does not name the issue.
    const err = await client.getIssue(project.id, issue.id).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: "HttpError", status: 404 });
    // Nested resources hang off the iid too.
    const notes = await client.listIssueNotes(project.id, 2).collect();
    expect(sim.requests.at(-1)!.url).toMatch(new RegExp(`^/api/v4/projects/${project.id}/issues/2/notes\\?`));
    expect(notes).toHaveLength(24);
    expect(notes.every((n) => (n as unknown as { noteable_id: number }).noteable_id === issue.id)).toBe(true);
  });

  it("Not every resource that has an iid is fetched by iid: a created pipeline comes back with its global id and its per-project iid, kept apart", async () => {
    const { sim, client, dataset } = await gitlab();
    const [a, b] = [dataset.projects[2]!, dataset.projects[4]!];
    await client.createPipeline(a.id, "main", []);
    await client.createPipeline(a.id, "main", []);
    const pipeline = await client.createPipeline(b.id, "develop", []);
    expect(pipeline).toMatchObject({ id: sim.pipelines[2]!.id, iid: 1, project_id: b.id, ref: "develop" });
    expect(pipeline.id).toBe(3);
  });

  it("Boolean response fields may be null; null is treated as false", async () => {
    const dataset = generateOrganisation({ projects: 20, seed: 11 }).dataset;
    const project = dataset.projects[6]!;
    (project as { archived: boolean | null }).archived = null;
    const tokens = { "glpat-sim-admin": { admin: true }, "glpat-null-admin": { admin: null as unknown as boolean, username: "carol" } };
    const { sim, client } = await gitlab({ dataset, tokens });
    const fetched = await client.getProject(project.id);
    expect(fetched.archived).toBeNull();
    expect(isTrue(fetched.archived)).toBe(false);
    const user = await gitlabClient(sim.url, "glpat-null-admin").currentUser();
    expect(user.is_admin).toBeNull();
    expect(isTrue(user.is_admin)).toBe(false);
    expect(isTrue(user.is_auditor)).toBe(false);
    expect([isTrue(true), isTrue(false), isTrue(null), isTrue(undefined)]).toEqual([true, false, false, false]);
  });

  it("Boolean request arguments accept only true or false: Warden sends them literally", async () => {
    const { sim, client } = await gitlab();
    await client.listGroupProjects("acme").collect();
    const query = rawQueryOf(urlsOf(sim, "/api/v4/groups/")[0]!);
    expect(query.split("&")).toEqual(expect.arrayContaining(["include_subgroups=true", "with_shared=false"]));
    expect(serializeQuery({ simple: true, archived: false })).toBe("simple=true&archived=false");
  });

  it("Boolean request arguments are never null: null is refused inside a hash or an array parameter too, before sending", async () => {
    const { sim, client } = await gitlab();
    const nested = { filter: { archived: null } } as unknown as Parameters<typeof serializeQuery>[0];
    const listed = { flags: [true, null] } as unknown as Parameters<typeof serializeQuery>[0];
    await expect(client.get("/projects", {}, { query: nested })).rejects.toThrow(TypeError);
    await expect(client.get("/projects", {}, { query: listed })).rejects.toThrow(TypeError);
    expect(sim.requests.map((r) => r.url)).toEqual([]);
  });

  it("A project's path need not equal its name: Warden addresses a project by its path", async () => {
    const { sim, client, dataset } = await gitlab();
    const project = dataset.projects.find((p) => p.name !== p.path && p.path_with_namespace.startsWith("acme/"))!;
    const fetched = await client.getProject(project.path_with_namespace);
    expect(fetched).toMatchObject({ id: project.id, name: project.name, path: project.path });
    expect(sim.requests[0]!.url).toBe(`/api/v4/projects/${enc(project.path_with_namespace)}`);
  });
});

describe("§4 Request conventions", () => {
  it("Parameter location: GET sends its parameters in the query string; POST and PUT send them in a body", async () => {
    const { sim, client, dataset } = await gitlab();
    const project = dataset.projects[8]!;
    await client.getFile(project.id, "README.md", "develop");
    expect(sim.requests[0]).toMatchObject({ method: "GET", url: `/api/v4/projects/${project.id}/repository/files/README.md?ref=develop` });
    await client.createPipeline(project.id, "develop", [{ key: "DEPLOY", value: "no" }]);
    // No query string at all: ref and variables reached GitLab through the body.
    expect(sim.requests[1]).toMatchObject({ method: "POST", url: `/api/v4/projects/${project.id}/pipeline` });
    expect(sim.pipelines[0]).toMatchObject({ project_id: project.id, ref: "develop", variables: [{ key: "DEPLOY", value: "no" }] });
  });

  it("JSON body: sent with the header Content-Type: application/json and a JSON object", async () => {
    const { sim, client, dataset } = await gitlab();
    const project = dataset.projects[8]!;
    await client.createPipeline(project.id, "main", [{ key: "A", value: "1" }]);
    await client.getProject(project.id);
    expect(headerValue(sim.requests[0]!.headers, "content-type")).toBe("application/json");
    // Only requests with a body say they have one.
    expect(headerValue(sim.requests[1]!.headers, "content-type")).toBeUndefined();
    expect(sim.pipelines[0]!.variables).toEqual([{ key: "A", value: "1" }]);
  });

  it("Path parameters: the whole :token, colon included, is replaced by the value", async () => {
    const { sim, client, dataset } = await gitlab();
    const project = dataset.projects.find((p) => p.shared_with_groups.length > 0)!;
    const groupId = project.shared_with_groups[0]!.group_id;
    await client.unshareProject(project.id, groupId);
    expect(sim.requests[0]).toMatchObject({ method: "DELETE", url: `/api/v4/projects/${project.id}/share/${groupId}` });
    expect(fillPath("/projects/:id/issues/:iid/notes", { id: 12, iid: 3 })).toBe("/projects/12/issues/3/notes");
    // A token left unfilled is an error here, not a request for a literal ":iid".
    await expect(client.get("/projects/:id/issues/:iid", { id: project.id })).rejects.toThrow(/:iid/);
    expect(sim.requests).toHaveLength(1);
  });

  it("URL encoding of path parameters is required: every path parameter Warden sends is encoded, and so matches its endpoint", async () => {
    const { sim, client } = await gitlab();
    const namespace = await client.getNamespace("acme/mobile");
    const group = await client.getGroup("acme/Web.Team");
    const projects = await client.listGroupProjects("acme/mobile").collect();
    expect(namespace).toMatchObject({ full_path: "acme/mobile", kind: "group" });
    expect(group.full_path).toBe("acme/Web.Team");
    expect(projects.length).toBeGreaterThan(0);
    expect(projects.every((p) => p.path_with_namespace.startsWith("acme/mobile/"))).toBe(true);
    expect(sim.requests.map((r) => r.url.split("?")[0])).toEqual([
      "/api/v4/namespaces/acme%2Fmobile",
      "/api/v4/groups/acme%2FWeb.Team",
      "/api/v4/groups/acme%2Fmobile/projects",
    ]);
    expect(sim.counters.status["404"]).toBeUndefined();
  });

  it("Namespaced project reference: <namespace>/<project_path> is URL-encoded as a path parameter, / becoming %2F", async () => {
    const { sim, client, dataset } = await gitlab();
    const project = deepProject(dataset);
    const fetched = await client.getProject(project.path_with_namespace);
    expect(fetched.id).toBe(project.id);
    expect(sim.requests.map((r) => r.url)).toEqual([`/api/v4/projects/${project.path_with_namespace.split("/").join("%2F")}`]);
  });

  it("Paths, branch names and tag names containing / have it encoded as %2F", async () => {
    const { sim, client, dataset } = await gitlab();
    const project = dataset.projects[0]!;
    const file = await client.getFile(project.id, "docs/c++ notes.md", "release/1.0");
    const tag = await client.getTag(project.path_with_namespace, "stable/2024.06");
    expect(file.file_path).toBe("docs/c++ notes.md");
    expect(Buffer.from(file.content, "base64").toString("utf8")).toContain("plus signs");
    expect(tag.name).toBe("stable/2024.06");
    expect(sim.requests.map((r) => r.url)).toEqual([
      `/api/v4/projects/${project.id}/repository/files/docs%2Fc%2B%2B%20notes.md?ref=release%2F1.0`,
      `/api/v4/projects/${enc(project.path_with_namespace)}/repository/tags/stable%2F2024.06`,
    ]);
    // Warden has no call of its own for branch commits; the path filler all calls share encodes :branch the same way.
    expect(fillPath("/projects/:id/branches/:branch/commits", { id: project.id, branch: "feature/login" })).toBe(
      `/projects/${project.id}/branches/feature%2Flogin/commits`,
    );
  });

  it("array parameter: repeated name[]=<value> pairs", async () => {
    const { sim, client } = await gitlab();
    await client.get("/projects", {}, { query: { topic: ["ci cd", "c++", "go"], per_page: 1 } });
    const raw = rawQueryOf(sim.requests[0]!.url);
    expect(raw).toBe("topic[]=ci%20cd&topic[]=c%2B%2B&topic[]=go&per_page=1");
    expect(parseParams(raw)["topic"]).toEqual(["ci cd", "c++", "go"]);
  });

  it("hash parameter: name[key]=<value>", async () => {
    const { sim, client } = await gitlab();
    await client.get("/projects", {}, { query: { override_params: { visibility: "private", "merge method": "ff" }, per_page: 1 } });
    const raw = rawQueryOf(sim.requests[0]!.url);
    expect(raw).toBe("override_params[visibility]=private&override_params[merge%20method]=ff&per_page=1");
    expect({ ...(parseParams(raw)["override_params"] as object) }).toEqual({ visibility: "private", "merge method": "ff" });
  });

  it("array of hashes: variables[0][key]=<k>&variables[0][value]=<v>&variables[1][key]=… in a query, or a JSON array of objects in a JSON body", async () => {
    const { sim, client, dataset } = await gitlab();
    const project = dataset.projects[1]!;
    const variables = [
      { key: "TZ", value: "+02:00" },
      { key: "NOTE", value: "a b&c" },
    ];
    await client.call("POST", "/projects/:id/pipeline", { id: project.id }, { query: { ref: "main", variables } });
    expect(rawQueryOf(sim.requests[0]!.url)).toBe(
      "ref=main&variables[0][key]=TZ&variables[0][value]=%2B02%3A00&variables[1][key]=NOTE&variables[1][value]=a%20b%26c",
    );
    await client.createPipeline(project.id, "main", variables);
    expect(headerValue(sim.requests[1]!.headers, "content-type")).toBe("application/json");
    expect(sim.pipelines.map((p) => p.variables)).toEqual([variables, variables]);
  });

  it("+ in a query value must be sent as %2B, otherwise it is read as a space", async () => {
    const { sim, client } = await gitlab();
    const since = "2024-06-01T10:00:00+02:00";
    await client.get("/projects", {}, { query: { last_activity_after: since, per_page: 1 } });
    // Listings build their URL differently (lib/paging); the rule holds there too.
    await client.listProjects({ query: { last_activity_after: since }, list: { maxPages: 1 } }).collect();
    for (const { url } of sim.requests) {
      const raw = rawQueryOf(url);
      expect(raw).not.toContain("+");
      expect(raw).toContain("%2B02");
      expect(parseParams(raw)["last_activity_after"]).toBe(since);
    }
    expect(sim.requests).toHaveLength(2);
  });

  it("Oversized query string yields 414; use a body instead", async () => {
    const { sim, client, dataset } = await gitlab();
    const project = dataset.projects[1]!;
    const variables = Array.from({ length: 60 }, (_, i) => ({ key: `VAR_${i}`, value: "x".repeat(200) }));
    // As a query, this would pass GitLab's (the simulator's 8,192) limit: Warden refuses it before sending.
    expect(serializeQuery({ ref: "main", variables }).length).toBeGreaterThan(8_192);
    const refused = await client.call("POST", "/projects/:id/pipeline", { id: project.id }, { query: { ref: "main", variables } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Error);
    expect(String(refused)).toMatch(/414/);
    expect(String(refused)).toMatch(/body/);
    expect(sim.counters.requests).toBe(0);
    // The same parameters in a body go through.
    const pipeline = await client.createPipeline(project.id, "main", variables);
    expect(pipeline.ref).toBe("main");
    expect(sim.pipelines[0]!.variables).toEqual(variables);
    expect(sim.counters.status).toEqual({ "201": 1 });
  });
});

describe("§4 Operations shown", () => {
  it("GET /projects answers a JSON array of projects", async () => {
    const { client, dataset } = await gitlab();
    const projects = await client.listProjects().collect();
    expect(projects.map((p) => p.id)).toEqual(dataset.projects.map((p) => p.id).sort(byId));
    expect(projects.every((p) => typeof p.path_with_namespace === "string" && Array.isArray(p.shared_with_groups))).toBe(true);
  });

  it("GET /projects/:id takes a numeric id or a URL-encoded <namespace>/<project_path>", async () => {
    const { sim, client, dataset } = await gitlab();
    const project = deepProject(dataset);
    const byNumber = await client.getProject(project.id);
    const byPath = await client.getProject(project.path_with_namespace);
    expect(byPath).toEqual(byNumber);
    expect(sim.requests.map((r) => r.url)).toEqual([`/api/v4/projects/${project.id}`, `/api/v4/projects/${enc(project.path_with_namespace)}`]);
  });

  it("GET /projects/:id of a renamed project answers moved-permanently with the new address (by numeric id) in Location; Warden follows it, same origin, with the token", async () => {
    const { sim, client, dataset } = await gitlab();
    const renamed = renamedOf(dataset);
    const old = renamed.previous_paths[0]!;
    const fetched = await client.getProject(old);
    expect(fetched).toMatchObject({ id: renamed.id, path_with_namespace: renamed.path_with_namespace });
    expect(sim.requests.map((r) => r.url)).toEqual([`/api/v4/projects/${enc(old)}`, `/api/v4/projects/${renamed.id}`]);
    expect(sim.requests.map((r) => headerValue(r.headers, "private-token"))).toEqual([sim.token, sim.token]);
    expect(sim.counters.status).toEqual({ "301": 1, "200": 1 });
  });

  it("DELETE /projects/:id/share/:group_id removes a share (project id, group id, authentication header)", async () => {
    const { sim, client, dataset } = await gitlab();
    const project = dataset.projects.find((p) => p.shared_with_groups.length > 1)!;
    const [gone, kept] = project.shared_with_groups.map((s) => s.group_id) as [number, number];
    expect(await client.unshareProject(project.path_with_namespace, gone)).toBe("removed");
    expect(project.shared_with_groups.map((s) => s.group_id)).not.toContain(gone);
    expect(project.shared_with_groups.map((s) => s.group_id)).toContain(kept);
    // Repeating it is harmless: GitLab's 404 means the share is already gone.
    expect(await client.unshareProject(project.id, gone)).toBe("already-gone");
    expect(sim.requests.map((r) => [r.method, r.url, headerValue(r.headers, "private-token")])).toEqual([
      ["DELETE", `/api/v4/projects/${enc(project.path_with_namespace)}/share/${gone}`, sim.token],
      ["DELETE", `/api/v4/projects/${project.id}/share/${gone}`, sim.token],
    ]);
  });

  it("GET /projects/:id/issues/:iid answers the issue, by numeric id or path", async () => {
    const { client, dataset } = await gitlab();
    const project = deepProject(dataset);
    const byPath = await client.getIssue(project.path_with_namespace, 3);
    expect(byPath).toEqual(await client.getIssue(project.id, 3));
    expect(byPath).toMatchObject({ iid: 3, project_id: project.id, title: expect.stringContaining("Issue 3") });
  });

  it("GET /projects/:id/issues/:iid/notes pages with per_page and page, with pagination headers and a Link header", async () => {
    const { sim, client, dataset } = await gitlab();
    const project = dataset.projects[9]!;
    const listing = client.list<{ id: number; body: string }>("/projects/:id/issues/:iid/notes", { id: project.id, iid: 3 }, { query: { per_page: 10 } });
    const pages = await Array.fromAsync(listing.pages());
    expect(pages.map((p) => p.items.length)).toEqual([10, 10, 10, 6]);
    expect(pages.map((p) => totals(p.meta))).toEqual(Array(4).fill({ total: 36, totalPages: 4 }));
    expect(pages.flatMap((p) => p.items.map((n) => n.body))).toEqual(Array.from({ length: 36 }, (_, i) => `Note ${i + 1}`));
    expect(sim.requests.map((r) => queryOf(r.url).get("page"))).toEqual([null, "2", "3", "4"]);
  });

  it("GET /projects/:id/repository/files/:file_path with ref answers the file, its path URL-encoded", async () => {
    const { sim, client, dataset } = await gitlab();
    const project = dataset.projects[0]!;
    const file = await client.getFile(project.path_with_namespace, "src/app.ts", "main");
    expect(file).toMatchObject({ file_path: "src/app.ts", ref: "main" });
    expect(Buffer.from(file.content, "base64").toString("utf8")).toBe(`export const project = ${JSON.stringify(project.path_with_namespace)};\n`);
    expect(sim.requests[0]!.url).toBe(`/api/v4/projects/${enc(project.path_with_namespace)}/repository/files/src%2Fapp.ts?ref=main`);
  });

  it("GET /projects/:id/repository/tags/:tag answers the tag, its name URL-encoded", async () => {
    const { sim, client, dataset } = await gitlab();
    const project = dataset.projects[0]!;
    expect((await client.getTag(project.id, "v1.1.0")).name).toBe("v1.1.0");
    expect((await client.getTag(project.id, "stable/2024.06")).name).toBe("stable/2024.06");
    expect(sim.requests.at(-1)!.url).toBe(`/api/v4/projects/${project.id}/repository/tags/stable%2F2024.06`);
  });

  it("POST /projects/:id/pipeline with ref and variables (authentication header) answers a JSON pipeline", async () => {
    const { sim, client, dataset } = await gitlab();
    const project = dataset.projects.find((p) => p.branches.includes("feature/login"))!;
    const pipeline = await client.createPipeline(project.path_with_namespace, "feature/login", [{ key: "STAGE", value: "qa" }]);
    expect(pipeline).toMatchObject({ iid: 1, project_id: project.id, ref: "feature/login", status: "created" });
    expect(pipeline.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(sim.pipelines).toEqual([{ id: pipeline.id, project_id: project.id, ref: "feature/login", sha: pipeline.sha, variables: [{ key: "STAGE", value: "qa" }], status: "created", user: "root" }]);
    expect(headerValue(sim.requests[0]!.headers, "private-token")).toBe(sim.token);
  });

  it("GET /namespaces with per_page and page (authentication header) answers a JSON array of namespaces", async () => {
    const { sim, client, dataset } = await gitlab({ projects: 6_000 });
    const namespaces = await client.listNamespaces().collect();
    // 120 groups and 5 users: two pages of 100.
    const expected = [...dataset.groups.map((g) => g.id), ...dataset.users.map((u) => u.namespace_id)].sort(byId);
    expect(namespaces.map((n) => n.id)).toEqual(expected);
    expect(new Set(namespaces.map((n) => n.kind))).toEqual(new Set(["group", "user"]));
    expect(sim.requests.map((r) => [queryOf(r.url).get("page"), queryOf(r.url).get("per_page"), headerValue(r.headers, "private-token")])).toEqual([
      [null, "100", sim.token],
      ["2", "100", sim.token],
    ]);
  });

  it("GET /groups answers a JSON array of groups", async () => {
    const { client, dataset } = await gitlab();
    const groups = await client.listGroups().collect();
    expect(groups.map((g) => g.id).sort(byId)).toEqual(dataset.groups.map((g) => g.id));
    expect(groups.every((g) => typeof g.full_path === "string")).toBe(true);
  });
});

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
    const proxy = closer.add(
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
    const proxy = closer.add(
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
    const proxy = closer.add(
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

describe("§4 Keyset support by resource", () => {
  type Sort = "asc" | "desc";
  interface Row {
    resource: string;
    path: string;
    orderBy: readonly (string | undefined)[];
    sort: readonly (Sort | undefined)[];
    access: "authenticated only" | "unauthenticated only" | "authenticated and unauthenticated";
    since?: string;
  }
  const ISSUE_ORDERS = ["created_at", "updated_at", "title", "id", "weight", "due_date", "relative_position"];
  // The sheet's table, row by row; paths have their parameters encoded, as Warden's listings pass them.
  const TABLE: Row[] = [
    { resource: "Group audit events", path: "/groups/acme%2Fmobile/audit_events", orderBy: ["id"], sort: ["desc"], access: "authenticated only" },
    { resource: "Groups", path: "/groups", orderBy: ["name"], sort: ["asc"], access: "unauthenticated only" },
    { resource: "Instance audit events", path: "/audit_events", orderBy: ["id"], sort: ["desc"], access: "authenticated only" },
    { resource: "Package pipelines", path: "/projects/acme%2Fweb/packages/17/pipelines", orderBy: ["id"], sort: ["desc"], access: "authenticated only" },
    { resource: "Project jobs", path: "/projects/42/jobs", orderBy: ["id"], sort: ["desc"], access: "authenticated only" },
    { resource: "Project audit events", path: "/projects/acme%2Fweb/audit_events", orderBy: ["id"], sort: ["desc"], access: "authenticated only" },
    { resource: "Projects", path: "/projects", orderBy: ["id"], sort: ["asc", "desc"], access: "authenticated and unauthenticated" },
    {
      resource: "Users",
      path: "/users",
      orderBy: ["id", "name", "username", "created_at", "updated_at"],
      sort: ["asc", "desc"],
      access: "authenticated and unauthenticated",
    },
    { resource: "Registry repository tags", path: "/projects/42/registry/repositories/7/tags", orderBy: ["name"], sort: ["asc", "desc"], access: "authenticated only" },
    { resource: "Repository tree listing", path: "/projects/acme%2Fweb/repository/tree", orderBy: [undefined], sort: [undefined], access: "authenticated and unauthenticated", since: "17.1" },
    { resource: "Project issues", path: "/projects/acme%2Fweb/issues", orderBy: ISSUE_ORDERS, sort: ["asc", "desc"], access: "authenticated and unauthenticated", since: "18.3" },
  ];

  it.each(TABLE)("$resource: order_by $orderBy, sort $sort, $access", (row) => {
    const callers = row.access === "authenticated and unauthenticated" ? [true, false] : [row.access === "authenticated only"];
    for (const authenticated of callers) {
      for (const orderBy of row.orderBy) {
        for (const sort of row.sort) {
          const found = keysetSupportFor(row.path, { orderBy, sort }, authenticated);
          expect(found, `${orderBy} ${sort} authenticated=${authenticated}`).toBeDefined();
          expect(row.resource.toLowerCase().startsWith(found!.resource)).toBe(true);
          expect(found!.since).toBe(row.since);
        }
      }
    }
    const [orderBy, sort, authenticated] = [row.orderBy[0], row.sort[0], callers[0]!];
    // The other kind of caller, where the row is for one kind only.
    if (callers.length === 1) expect(keysetSupportFor(row.path, { orderBy, sort }, !authenticated)).toBeUndefined();
    // An order_by the row does not list (for the repository tree, any order_by at all).
    expect(keysetSupportFor(row.path, { orderBy: "star_count", sort }, authenticated)).toBeUndefined();
    // A sort the row does not list.
    for (const other of (["asc", "desc"] as const).filter((s) => orderBy !== undefined && !row.sort.includes(s))) {
      expect(keysetSupportFor(row.path, { orderBy, sort: other }, authenticated)).toBeUndefined();
    }
  });

  it("No resource has keyset in Warden beyond the sheet's table", () => {
    expect(KEYSET_SUPPORT).toHaveLength(TABLE.length);
    for (const path of ["/groups/1/projects", "/namespaces", "/groups/1/descendant_groups", "/projects/1/issues/2/notes", "/projects/1/pipelines"]) {
      for (const orderBy of [undefined, "id", "name"]) expect(keysetSupportFor(path, { orderBy }, true), `${path} ${orderBy}`).toBeUndefined();
    }
  });

  it("Projects (order_by=id, authenticated and unauthenticated): a real listing picks keyset by itself, ascending and descending, with and without a token", async () => {
    const { sim, client, dataset } = await gitlab({ projects: 230 });
    const all = dataset.projects.map((p) => p.id).sort(byId);
    const withToken = await client.list<Project>("/projects", {}, { order: { orderBy: "id", sort: "desc" } }).collect();
    const anonymous = await anonymousListing<Project>(sim.url, "/projects", { orderBy: "id", sort: "asc" }).collect();
    expect(withToken.map((p) => p.id)).toEqual([...all].reverse());
    expect(anonymous.map((p) => p.id)).toEqual(all);
    expect(sim.requests.map((r) => [queryOf(r.url).get("pagination"), queryOf(r.url).get("sort"), headerValue(r.headers, "private-token") !== undefined])).toEqual([
      ...Array(3).fill(["keyset", "desc", true]),
      ...Array(3).fill(["keyset", "asc", false]),
    ]);
  });

  it("Groups (order_by=name, sort=asc, unauthenticated only): an anonymous listing picks keyset; Warden's authenticated client lists groups by offset", async () => {
    const { sim, client, dataset } = await gitlab({ projects: 300 });
    const anonymous = await anonymousListing<Group>(sim.url, "/groups", { orderBy: "name", sort: "asc" }).collect();
    expect(anonymous.map((g) => g.id).sort(byId)).toEqual(dataset.groups.filter((g) => g.visibility === "public").map((g) => g.id));
    const first = sim.requests[0]!;
    expect([queryOf(first.url).get("pagination"), queryOf(first.url).get("order_by"), queryOf(first.url).get("sort")]).toEqual(["keyset", "name", "asc"]);
    expect(headerValue(first.headers, "private-token")).toBeUndefined();

    sim.resetCounters();
    const authenticated = await client.list<Group>("/groups", {}, { order: { orderBy: "name", sort: "asc" } }).collect();
    expect(authenticated.map((g) => g.name)).toEqual(dataset.groups.map((g) => g.name).sort());
    expect(sim.requests.every((r) => !queryOf(r.url).has("pagination") && queryOf(r.url).get("order_by") === "name")).toBe(true);
    expect(sim.counters.status["405"]).toBeUndefined();
  });
});

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
    const { sim, dataset } = await gitlab({ projects: 120 });
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
    const decoding = closer.add(await startProxy({ target: sim.url, decodePath: true }));
    const faithful = closer.add(await startProxy({ target: sim.url }));
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
    const proxy = closer.add(await startProxy({ target: sim.url, prefix: "/gitlab" }));
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
