/**
 * Spec conformance: docs/api-contract.md (GitLab REST API v4), rule by rule (this folder, a file per
 * group of sections: here §1, §2 and §4's request conventions), exercised through
 * Warden's own GitLab client (lib/gitlab, lib/paging, lib/http) against the GitLab simulator over
 * loopback sockets. Where the simulator alone cannot show a rule (a GitLab under a path prefix, an
 * intermediary that decodes paths, a hosted instance that drops headers, X-PREV-CURSOR, the retired
 * `Links` header), a reverse proxy from test/support/spec.ts sits in front of it.
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
import { describe, expect, it } from "vitest";
import { fillPath, isTrue, serializeQuery } from "../../../lib/gitlab/index.ts";
import { HttpError } from "../../../lib/http/index.ts";
import { generateOrganisation } from "../../../sim/gitlab/index.ts";
import { parseParams } from "../../../sim/gitlab/query.ts";
import { gitlabClient, headerValue, rawQueryOf } from "../../support/spec.ts";
import { deepProject, enc, gitlab, urlsOf } from "../../support/spec-gitlab.ts";

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
