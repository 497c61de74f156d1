/** Spec conformance, docs/api-contract.md (GitLab REST API v4): §4 the operations shown, through Warden's client against the simulator (resources.test.ts says what is left untested, and why). */
import { describe, expect, it } from "vitest";
import { headerValue, queryOf } from "../../support/spec.ts";
import { byId, deepProject, enc, gitlab, renamedOf, totals } from "../../support/spec-gitlab.ts";

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
