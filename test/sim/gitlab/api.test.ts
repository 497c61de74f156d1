/** The GitLab simulator's REST surface: offset and keyset pages, paths and encoding, authentication, group projects, mutations. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim } from "../../../sim/gitlab/index.ts";
import type { GitLabSim, SimProject } from "../../../sim/gitlab/index.ts";
import { parseParams } from "../../../sim/gitlab/query.ts";
import { READER, TOKENS, api, getJson, links, json, ids, enc, renamedOf, sharedProject, withSim } from "../../support/gitlab-api.ts";

describe("GitLab simulator", () => {
  let sim: GitLabSim;
  const taken = new Set<number>(); // projects whose shares a test changes
  beforeAll(async () => {
    sim = await startGitLabSim({ tokens: TOKENS, recordRequests: true });
  });
  afterAll(() => sim.close());

  describe("offset pagination", () => {
    it("sends absolute, complete Link headers that repeat the other parameters", async () => {
      const total = sim.dataset.projects.length;
      const res = await api(sim, "/projects?order_by=id&sort=asc&per_page=5&page=2");
      const rel = links(res);
      expect(Object.keys(rel).sort()).toEqual(["first", "last", "next", "prev"]);
      for (const url of Object.values(rel)) {
        expect(url.startsWith(`${sim.url}/api/v4/projects?`)).toBe(true);
        const q = new URL(url).searchParams;
        expect([q.get("order_by"), q.get("sort"), q.get("per_page")]).toEqual(["id", "asc", "5"]);
      }
      expect(new URL(rel["next"]!).searchParams.get("page")).toBe("3");
      expect(new URL(rel["last"]!).searchParams.get("page")).toBe(String(Math.ceil(total / 5)));
      expect(Object.fromEntries(["x-page", "x-per-page", "x-next-page", "x-prev-page", "x-total", "x-total-pages"].map((h) => [h, res.headers.get(h)]))).toEqual({
        "x-page": "2",
        "x-per-page": "5",
        "x-next-page": "3",
        "x-prev-page": "1",
        "x-total": String(total),
        "x-total-pages": String(Math.ceil(total / 5)),
      });
      const sorted = sim.dataset.projects.map((p) => p.id).sort((a, b) => a - b);
      expect(ids(await json(res))).toEqual(sorted.slice(5, 10));
      expect(ids(await json(await fetch(rel["next"]!, { headers: { "PRIVATE-TOKEN": sim.token } })))).toEqual(sorted.slice(10, 15));
    });

    it("clamps per_page to 100, and following rel=next reaches every item once", async () => {
      const seen: number[] = [];
      let url: string | undefined = `${sim.url}/api/v4/namespaces?per_page=500`;
      while (url) {
        const res: Response = await fetch(url, { headers: { "PRIVATE-TOKEN": sim.token } });
        expect(res.headers.get("x-per-page")).toBe("100");
        seen.push(...ids(await json(res)));
        url = links(res)["next"];
      }
      expect(seen).toHaveLength(sim.dataset.groups.length + sim.dataset.users.length);
      expect(new Set(seen).size).toBe(seen.length);
    });

    it("stops counting above 10,000 records, and refuses offsets past the limit on /projects only", async () => {
      const { dataset } = generateOrganisation({ projects: 10_050 });
      await withSim({ dataset, offsetLimit: 1_000 }, async (big) => {
        const res = await api(big, "/projects?per_page=100");
        expect(res.headers.get("x-total")).toBeNull();
        expect(res.headers.get("x-total-pages")).toBeNull();
        expect(res.headers.get("x-next-page")).toBe("2");
        expect(Object.keys(links(res)).sort()).toEqual(["first", "next"]);

        expect((await api(big, "/projects?per_page=100&page=10")).status).toBe(200);
        const refused = await api(big, "/projects?per_page=100&page=11");
        expect(refused.status).toBe(405);
        expect(await refused.json()).toEqual({
          error:
            "Offset pagination has a maximum allowed offset of 1000 for requests that return objects of type Project. Remaining records can be retrieved using keyset pagination.",
        });
        expect((await api(big, "/groups/acme/projects?include_subgroups=true&per_page=100&page=11")).status).toBe(200);
      });
    });
  });

  describe("keyset pagination", () => {
    it("walks /projects by id with look-ahead: no Link on the last page, [] past the end", async () => {
      const sorted = sim.dataset.projects.map((p) => p.id).sort((a, b) => a - b);
      const seen: number[] = [];
      let url: string | undefined = `${sim.url}/api/v4/projects?pagination=keyset&order_by=id&sort=asc&per_page=50`;
      let pages = 0;
      while (url) {
        const res: Response = await fetch(url, { headers: { "PRIVATE-TOKEN": sim.token } });
        const page = ids(await json(res));
        seen.push(...page);
        pages++;
        url = links(res)["next"];
        if (url) {
          const q = new URL(url).searchParams;
          expect([q.get("pagination"), q.get("order_by"), q.get("sort"), q.get("per_page"), q.get("id_after")]).toEqual(["keyset", "id", "asc", "50", String(page.at(-1))]);
          expect(res.headers.get("x-next-cursor")).toBeTruthy();
        } else {
          expect(res.headers.get("link")).toBeNull();
        }
      }
      expect(seen).toEqual(sorted);
      expect(pages).toBe(Math.ceil(sorted.length / 50));

      const past = await api(sim, `/projects?pagination=keyset&order_by=id&sort=asc&id_after=${sorted.at(-1)}`);
      expect(await past.json()).toEqual([]);
      expect(past.headers.get("link")).toBeNull();
    });

    it("pages descending with id_before, and accepts X-NEXT-CURSOR as cursor", async () => {
      const first = await api(sim, "/projects?pagination=keyset&order_by=id&sort=desc&per_page=3");
      const next = new URL(links(first)["next"]!);
      const firstIds = ids(await json(first));
      expect(next.searchParams.get("id_before")).toBe(String(firstIds[2]));
      const viaLink = ids(await json(await fetch(next, { headers: { "PRIVATE-TOKEN": sim.token } })));
      expect(viaLink[0]!).toBeLessThan(firstIds[2]!);
      const cursor = first.headers.get("x-next-cursor")!;
      expect(ids(await getJson(sim, `/projects?pagination=keyset&order_by=id&sort=desc&per_page=3&cursor=${enc(cursor)}`))).toEqual(viaLink);
    });

    it("refuses keyset where GitLab has none", async () => {
      const message = { message: "Keyset pagination is not yet available for this type of request" };
      const byName = await api(sim, "/projects?pagination=keyset&order_by=name&sort=asc");
      expect([byName.status, await byName.json()]).toEqual([405, message]);
      const signedIn = await api(sim, "/groups?pagination=keyset&order_by=name&sort=asc");
      expect([signedIn.status, await signedIn.json()]).toEqual([405, message]);
    });

    it("walks /groups by name for anonymous callers with an opaque cursor", async () => {
      const names: string[] = [];
      let url: string | undefined = `${sim.url}/api/v4/groups?pagination=keyset&order_by=name&sort=asc&per_page=2`;
      while (url) {
        const res: Response = await fetch(url);
        expect(res.status).toBe(200);
        names.push(...(await json<{ name: string }[]>(res)).map((g) => g.name));
        url = links(res)["next"];
        if (url) expect(new URL(url).searchParams.get("cursor")).toBe(res.headers.get("x-next-cursor"));
      }
      const expected = sim.dataset.groups.filter((g) => g.visibility === "public").map((g) => g.name);
      expect(names).toEqual(expected.sort());
    });
  });

  describe("paths and encoding", () => {
    it("finds a project by encoded path; an unencoded slash matches no route", async () => {
      const project = sim.dataset.projects.find((p) => p.path_with_namespace.split("/").length === 3)!;
      expect((await getJson(sim, `/projects/${enc(project.path_with_namespace)}`)).id).toBe(project.id);
      const res = await api(sim, `/projects/${project.path_with_namespace}`);
      expect([res.status, await res.json()]).toEqual([404, { message: "404 Not Found" }]);
    });

    it("redirects an old path with 301 to the numeric address", async () => {
      const project = renamedOf(sim.dataset);
      const res = await api(sim, `/projects/${enc(project.previous_paths[0]!)}`);
      expect(res.status).toBe(301);
      expect(res.headers.get("location")).toBe(`${sim.url}/api/v4/projects/${project.id}`);
      expect(JSON.stringify(await res.json())).toMatch(/moved permanently/i);
      const followed = await fetch(`${sim.url}/api/v4/projects/${enc(project.previous_paths[0]!)}`, { headers: { "PRIVATE-TOKEN": sim.token } });
      expect((await json<SimProject>(followed)).path_with_namespace).toBe(project.path_with_namespace);
      // Any other method through the old path is refused, as GitLab's find_project! does.
      const post = await fetch(`${sim.url}/api/v4/projects/${enc(project.previous_paths[0]!)}/issues`, { method: "POST", headers: { "PRIVATE-TOKEN": sim.token, "content-type": "application/json" }, body: JSON.stringify({ title: "x" }) });
      expect([post.status, await post.json()]).toEqual([405, { message: "Non GET methods are not allowed for moved projects" }]);
    });

    it("serves files and tags whose names hold an encoded slash", async () => {
      const file = await getJson(sim, `/projects/1/repository/files/${enc("src/app.ts")}?ref=${enc("release/1.0")}`);
      expect([file.file_path, file.ref, file.encoding]).toEqual(["src/app.ts", "release/1.0", "base64"]);
      expect(Buffer.from(file.content, "base64").toString()).toContain("export const project");
      expect((await api(sim, "/projects/1/repository/files/src/app.ts?ref=main")).status).toBe(404);
      expect((await api(sim, `/projects/1/repository/files/${enc("docs/c++ notes.md")}?ref=main`)).status).toBe(200);
      expect((await getJson(sim, `/projects/1/repository/tags/${enc("stable/2024.06")}`)).name).toBe("stable/2024.06");
    });

    it("computes protected from the project's rules as GitLab does: * matches any run, slashes included", async () => {
      const dataset = generateOrganisation({ projects: 5, seed: 1 }).dataset;
      Object.assign(dataset.projects[0]!, { protected_branches: ["main", "release/*"], protected_tags: ["v1.0.0", "stable/*"] });
      const branch = async (sim: GitLabSim, name: string) => (await getJson(sim, `/projects/1/repository/branches/${enc(name)}`)).protected;
      const tag = async (sim: GitLabSim, name: string) => (await getJson(sim, `/projects/1/repository/tags/${enc(name)}`)).protected;
      await withSim({ dataset }, async (sim) => {
        sim.repositories.commit(dataset.projects[0]!, { "a.txt": "a" }, "release/x/y");
        sim.repositories.commit(dataset.projects[0]!, { "a.txt": "a" }, "releases");
        expect([await branch(sim, "main"), await branch(sim, "release/1.0"), await branch(sim, "release/x/y"), await branch(sim, "releases")]).toEqual([true, true, true, false]);
        expect([await tag(sim, "v1.0.0"), await tag(sim, "stable/2024.06"), await tag(sim, "v1.1.0")]).toEqual([true, true, false]);
        // A rule of exactly that name answers 200; a tag only a wildcard protects is no rule's name.
        expect((await api(sim, `/projects/1/protected_tags/${enc("v1.0.0")}`)).status).toBe(200);
        expect((await getJson(sim, `/projects/1/protected_tags/${enc("stable/*")}`)).name).toBe("stable/*");
        const none = await api(sim, `/projects/1/protected_tags/${enc("stable/2024.06")}`);
        expect([none.status, await none.json()]).toEqual([404, { message: "404 Not found" }]);
        expect((await getJson(sim, "/projects/1/protected_tags")).map((r: { name: string }) => r.name)).toEqual(["v1.0.0", "stable/*"]);
        // A new project protects its default branch alone.
        expect((await getJson(sim, `/projects/2/repository/branches/${enc("release/1.0")}`)).protected).toBe(false);
      });
      await withSim({ dataset, tagProtectedField: false }, async (old) => {
        expect("protected" in (await getJson(old, "/projects/1/repository/tags/v1.0.0"))).toBe(false);
      });
    });

    it("fetches issues by iid, not by global id, and paginates their notes", async () => {
      const issue = await getJson(sim, "/projects/1/issues/2");
      expect(issue.iid).toBe(2);
      expect((await api(sim, `/projects/1/issues/${issue.id}`)).status).toBe(404);
      const notes = await api(sim, "/projects/1/issues/2/notes?per_page=20&page=2");
      expect([notes.headers.get("x-total"), (await json(notes)).length]).toEqual(["24", 4]);
    });

    it("resolves namespaces and groups by id or encoded full path", async () => {
      const group = sim.dataset.groups.find((g) => g.full_path === "acme/mobile/ios")!;
      expect(await getJson(sim, `/namespaces/${enc(group.full_path)}`)).toMatchObject({ id: group.id, kind: "group", full_path: group.full_path });
      expect((await getJson(sim, `/groups/${group.id}`)).full_path).toBe(group.full_path);
      const user = sim.dataset.users[0]!;
      expect(await getJson(sim, `/namespaces/${user.namespace_id}`)).toMatchObject({ kind: "user", full_path: user.username });
      const sub = await getJson<{ parent_id: number }[]>(sim, "/groups/acme/subgroups?per_page=100");
      expect(sub.every((g) => g.parent_id === 1)).toBe(true);
      const all = await getJson<unknown[]>(sim, "/groups/acme/descendant_groups?per_page=100");
      expect(all.length).toBe(sim.dataset.groups.filter((g) => g.full_path.startsWith("acme/")).length);
    });

    it("reads +, a[], h[k] and variables[0][key] the way Rack does", () => {
      expect(parseParams("t=2024-01-01T10:00:00+01:00&u=%2B1&a[]=1&a[]=2&h[k]=v&variables[0][key]=K&variables[0][value]=x&v[][key]=a&v[][key]=b")).toEqual({
        t: "2024-01-01T10:00:00 01:00",
        u: "+1",
        a: ["1", "2"],
        h: { k: "v" },
        variables: { "0": { key: "K", value: "x" } },
        v: [{ key: "a" }, { key: "b" }],
      });
    });
  });

  describe("authentication", () => {
    it("answers 414 to an oversized query", async () => {
      const res = await api(sim, `/projects?search=${"x".repeat(9_000)}`);
      expect([res.status, await res.text()]).toEqual([414, "Request-URI Too Large"]);
    });

    it("answers 401 without a token where one is needed, and to a wrong token anywhere", async () => {
      const unauthorized = [401, { message: "401 Unauthorized" }];
      const none = await api(sim, "/namespaces", { token: null });
      expect([none.status, await none.json()]).toEqual(unauthorized);
      const wrong = await api(sim, "/projects", { token: "glpat-wrong" });
      expect([wrong.status, await wrong.json()]).toEqual(unauthorized);
      expect((await api(sim, "/projects", { token: null })).status).toBe(200);
      const groups = await getJson<{ visibility: string }[]>(sim, "/groups?per_page=100", null);
      expect(groups.every((g) => g.visibility === "public")).toBe(true);
      expect(await getJson(sim, "/user", READER)).toEqual({ id: sim.dataset.users[0]!.id, username: "alice", name: sim.dataset.users[0]!.name, is_admin: false });
    });

    it("hides shares to private groups from non-admin tokens", async () => {
      const privateIds = new Set(sim.dataset.groups.filter((g) => g.visibility === "private").map((g) => g.id));
      const project = sim.dataset.projects.find((p) => p.shared_with_groups.some((s) => privateIds.has(s.group_id)))!;
      const asAdmin = await getJson<SimProject>(sim, `/projects/${project.id}`);
      const asReader = await getJson<SimProject>(sim, `/projects/${project.id}`, READER);
      expect(asAdmin.shared_with_groups).toEqual(project.shared_with_groups);
      expect(asReader.shared_with_groups).toEqual(project.shared_with_groups.filter((s) => !privateIds.has(s.group_id)));
    });

    it("records each request with its headers", async () => {
      await api(sim, "/user", { token: READER });
      expect(sim.requests.at(-1)).toMatchObject({ method: "GET", url: "/api/v4/user", headers: { "private-token": READER } });
    });
  });

  describe("group projects", () => {
    it("includes projects shared into the group unless with_shared=false; simple=true drops the shares", async () => {
      const outsider = sim.dataset.projects.find((p) => !p.path_with_namespace.startsWith("acme/") && p.shared_with_groups.some((s) => s.group_full_path.startsWith("acme/")))!;
      const into = outsider.shared_with_groups.find((s) => s.group_full_path.startsWith("acme/"))!;
      const path = `/groups/${into.group_id}/projects?per_page=100`;
      expect(ids(await getJson(sim, path))).toContain(outsider.id);
      expect(ids(await getJson(sim, `${path}&with_shared=false`))).not.toContain(outsider.id);
      const own = await getJson<SimProject[]>(sim, "/groups/acme/projects?include_subgroups=true&with_shared=false&simple=true&per_page=100");
      expect(own.every((p) => p.path_with_namespace.startsWith("acme/") && !("shared_with_groups" in p))).toBe(true);
      expect(ids(own)).toEqual(ids(own).sort((a, b) => a - b));
      expect(own.some((p) => p.path_with_namespace.split("/").length > 2)).toBe(true);
    });
  });

  describe("mutations", () => {
    it("unshares with 204, then 404 Group Link Not Found; unknown projects are 404 Project Not Found", async () => {
      const project = sharedProject(sim.dataset, taken);
      const groupId = project.shared_with_groups[0]!.group_id;
      const res = await api(sim, `/projects/${project.id}/share/${groupId}`, { method: "DELETE" });
      expect([res.status, await res.text()]).toEqual([204, ""]);
      expect(project.shared_with_groups.map((s) => s.group_id)).not.toContain(groupId);
      const again = await api(sim, `/projects/${project.id}/share/${groupId}`, { method: "DELETE" });
      expect([again.status, await again.json()]).toEqual([404, { message: "404 Group Link Not Found" }]);
      const unknown = await api(sim, `/projects/999999/share/${groupId}`, { method: "DELETE" });
      expect([unknown.status, await unknown.json()]).toEqual([404, { message: "404 Project Not Found" }]);
    });

    it("creates pipelines from a JSON body, and refuses an unknown ref", async () => {
      const project = sim.dataset.projects[0]!;
      const res = await api(sim, `/projects/${project.id}/pipeline`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ ref: "release/1.0", variables: [{ key: "MODE", value: "audit" }] }),
      });
      expect(res.status).toBe(201);
      const body = await json(res);
      expect(body).toMatchObject({ project_id: project.id, ref: "release/1.0", status: "created", iid: 1 });
      expect(body.sha).toMatch(/^[0-9a-f]{40}$/);
      expect(body.web_url).toBe(`${sim.url}/${project.path_with_namespace}/-/pipelines/${body.id}`);
      expect(sim.pipelines.at(-1)).toEqual({ id: body.id, project_id: project.id, ref: "release/1.0", sha: body.sha, variables: [{ key: "MODE", value: "audit" }], status: "created", user: "root" });

      const bad = await api(sim, `/projects/${project.id}/pipeline?ref=nope`, { method: "POST" });
      expect([bad.status, await bad.json()]).toEqual([400, { message: { base: ["Reference not found"] } }]);
    });

    it("runs the commit the branch points at when the pipeline is created, and cancels it by id within its project", async () => {
      const project = sim.dataset.projects[1]!;
      const before = (await getJson(sim, `/projects/${project.id}/repository/branches/${enc("release/1.0")}`)).commit.id;
      const moved = sim.repositories.commit(project, { ".gitlab-ci.yml": "test:\n  script: exit 0\n" }, "release/1.0");
      expect(moved).not.toBe(before);
      expect((await getJson(sim, `/projects/${project.id}/repository/branches/${enc("release/1.0")}`)).commit.id).toBe(moved);
      const created = await json(await api(sim, `/projects/${project.id}/pipeline?ref=${enc("release/1.0")}`, { method: "POST" }));
      expect(created.sha).toBe(moved);

      const other = sim.dataset.projects[2]!;
      expect((await api(sim, `/projects/${other.id}/pipelines/${created.id}/cancel`, { method: "POST" })).status).toBe(404);
      const cancelled = await api(sim, `/projects/${project.id}/pipelines/${created.id}/cancel`, { method: "POST" });
      expect([cancelled.status, (await json(cancelled)).status]).toEqual([200, "canceled"]);
      expect(sim.pipelines.find((p) => p.id === created.id)!.status).toBe("canceled");
    });

    it("creates pipelines from query variables, where an unencoded + becomes a space", async () => {
      const q = "ref=main&variables[0][key]=SINCE&variables[0][value]=2024-01-01T10:00:00+01:00&variables[1][key]=UNTIL&variables[1][value]=2024-01-02T10:00:00%2B01:00";
      expect((await api(sim, `/projects/1/pipeline?${q}`, { method: "POST" })).status).toBe(201);
      expect(sim.pipelines.at(-1)!.variables).toEqual([
        { key: "SINCE", value: "2024-01-01T10:00:00 01:00" },
        { key: "UNTIL", value: "2024-01-02T10:00:00+01:00" },
      ]);
    });
  });
});
