import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim } from "../../sim/gitlab/index.ts";
import type { GitLabDataset, GitLabSim, GitLabSimOptions, SimGroup, SimProject } from "../../sim/gitlab/index.ts";
import { parseParams } from "../../sim/gitlab/query.ts";

const ADMIN = "glpat-sim-admin";
const READER = "glpat-sim-reader";
const TOKENS = { [ADMIN]: { admin: true }, [READER]: { admin: false, username: "alice" } };

/** `path` is appended to /api/v4 as is: encoding is the caller's business, as for a real client. */
function api(sim: GitLabSim, path: string, init: RequestInit & { token?: string | null } = {}): Promise<Response> {
  const { token = sim.token, headers, ...rest } = init;
  return fetch(`${sim.url}/api/v4${path}`, {
    redirect: "manual",
    ...rest,
    headers: { ...(token === null ? {} : { "PRIVATE-TOKEN": token }), ...(headers as Record<string, string>) },
  });
}

const getJson = async <T = any>(sim: GitLabSim, path: string, token?: string | null): Promise<T> => {
  const res = await api(sim, path, { token });
  expect(res.status, `${path}: ${res.status}`).toBe(200);
  return json<T>(res);
};

/** rel → url of a Link header. */
function links(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of (res.headers.get("link") ?? "").matchAll(/<([^>]+)>; rel="(\w+)"/g)) out[m[2]!] = m[1]!;
  return out;
}

const json = async <T = any>(res: Response): Promise<T> => (await res.json()) as T;
const ids = (items: { id: number }[]): number[] => items.map((p) => p.id);
const enc = encodeURIComponent;
const renamedOf = (dataset: GitLabDataset): SimProject => dataset.projects.find((p) => p.previous_paths.length > 0)!;
const sharedProject = (dataset: GitLabDataset, taken: Set<number>): SimProject => {
  const project = dataset.projects.find((p) => p.shared_with_groups.length > 0 && !taken.has(p.id))!;
  taken.add(project.id);
  return project;
};

async function withSim(opts: GitLabSimOptions, run: (sim: GitLabSim) => Promise<void>): Promise<void> {
  const sim = await startGitLabSim(opts);
  try {
    await run(sim);
  } finally {
    await sim.close();
  }
}

describe("generateOrganisation", () => {
  it("is deterministic for a seed", () => {
    const a = generateOrganisation({ seed: 7, projects: 500 });
    expect(generateOrganisation({ seed: 7, projects: 500 })).toEqual(a);
    expect(generateOrganisation({ seed: 8, projects: 500 }).dataset.projects).not.toEqual(a.dataset.projects);
  });

  it("generates 100,000 projects quickly, with about one subgroup per 50 projects", () => {
    const started = performance.now();
    const { dataset, intents } = generateOrganisation({ projects: 100_000 });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(dataset.projects).toHaveLength(100_000);
    expect(dataset.groups.length).toBeGreaterThan(1_900);
    const strays = intents.filter((i) => i.intent === "stray").length;
    expect(strays / 100_000).toBeGreaterThan(0.02);
    expect(strays / 100_000).toBeLessThan(0.04);
  });

  it("has the tricky names, groups and shares the policy needs", () => {
    const { dataset, intents } = generateOrganisation({ projects: 200 });
    const paths = dataset.groups.map((g) => g.full_path);
    for (const p of ["acme/platform/infra-tools", "acme/mobile/ios", "acme/Web.Team", "acme/data_science/ml-ops", "acme/legacy", "partners/contractor-x", "acme-ext"]) {
      expect(paths).toContain(p);
    }
    expect(dataset.groups.some((g) => g.visibility === "private" && !g.full_path.startsWith("acme"))).toBe(true);
    const projectPaths = dataset.projects.map((p) => p.path).join(" ");
    for (const c of [".", "-", "_"]) expect(projectPaths).toContain(c);
    expect(projectPaths).toMatch(/[A-Z]/);
    expect(dataset.projects.every((p) => p.branches.includes("main") && p.branches.includes("release/1.0"))).toBe(true);
    expect(dataset.projects.filter((p) => p.previous_paths.length > 0)).toHaveLength(1);
    const groupNs = new Set(dataset.groups.map((g) => g.id));
    expect(dataset.users.every((u) => !groupNs.has(u.namespace_id))).toBe(true);
    expect(dataset.projects.some((p) => !groupNs.has(p.namespace_id) && p.shared_with_groups.length > 0)).toBe(true);

    // Every share has an intent, and each intent agrees with an independent reading of the policy.
    const byId = new Map(dataset.projects.map((p) => [p.id, p]));
    const shares = dataset.projects.flatMap((p) => p.shared_with_groups.map((s) => ({ p, s })));
    expect(intents).toHaveLength(shares.length);
    const expected = (project: string, group: string, level: number) => {
      if (!project.startsWith("acme/")) return "allowed";
      if (group.startsWith("acme/")) return "allowed";
      if (group === "partners/contractor-x" && project.startsWith("acme/mobile/") && level <= 30) return "allowed";
      return project.startsWith("acme/legacy/") ? "exempt" : "stray";
    };
    const seen = new Set<string>();
    for (const i of intents) {
      if (i.kind !== "project") throw new Error("group shares are generated only when asked");
      const project = byId.get(i.projectId)!;
      const share = project.shared_with_groups.find((s) => s.group_id === i.groupId)!;
      expect(i.intent).toBe(expected(project.path_with_namespace, share.group_full_path, share.group_access_level));
      seen.add(`${i.intent} ${share.group_full_path}${share.group_full_path === "partners/contractor-x" ? `@${share.group_access_level > 30 ? "above" : "within"}` : ""}`);
    }
    for (const kind of ["stray acme-ext", "stray partners/contractor-x@above", "allowed partners/contractor-x@within"]) expect(seen).toContain(kind);
    expect([...seen].some((k) => k.startsWith("exempt"))).toBe(true);
  });
});

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
          message:
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
      const first = await api(sim, "/projects?pagination=keyset&order_by=id&sort=desc&per_page=3", { token: null });
      const next = new URL(links(first)["next"]!);
      const firstIds = ids(await json(first));
      expect(next.searchParams.get("id_before")).toBe(String(firstIds[2]));
      const viaLink = ids(await json(await fetch(next)));
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

describe("rate limits", () => {
  it("under a full rule, budgets successes and sends every header with the 429", async () => {
    await withSim({ rateLimits: [{ route: "GET /projects", limit: 2, windowMs: 60_000 }] }, async (sim) => {
      const remaining = [];
      for (let i = 0; i < 2; i++) {
        const ok = await api(sim, "/projects");
        expect(ok.headers.get("ratelimit-limit")).toBe("2");
        remaining.push(ok.headers.get("ratelimit-remaining"));
      }
      expect(remaining).toEqual(["1", "0"]);
      expect((await api(sim, "/projects/1")).status).toBe(200); // another route, its own budget
      const res = await api(sim, "/projects");
      expect([res.status, await res.text()]).toEqual([429, "Retry later"]);
      const h = Object.fromEntries(res.headers);
      expect(h).toMatchObject({ "ratelimit-limit": "2", "ratelimit-observed": "3", "ratelimit-remaining": "0" });
      expect(h["ratelimit-name"]).toBeTruthy();
      expect(Number(h["retry-after"])).toBeGreaterThanOrEqual(59);
      expect(Number(h["ratelimit-reset"]) - Date.now() / 1000).toBeGreaterThan(58);
      expect(Date.parse(h["ratelimit-resettime"]!) - Date.now()).toBeGreaterThan(58_000);
    });
  });

  it("sends only the headers of the rule's mode, and limits per token", async () => {
    await withSim({ tokens: TOKENS }, async (sim) => {
      const retryHeaders = (res: Response) =>
        Object.fromEntries([...res.headers].filter(([k]) => k.startsWith("ratelimit") || k === "retry-after").map(([k]) => [k, "set"]));
      const expected = { "retry-after-only": { "retry-after": "set" }, "reset-only": { "ratelimit-reset": "set" }, none: {} } as const;
      for (const [mode, headers] of Object.entries(expected)) {
        sim.setRateLimits([{ limit: 1, windowMs: 60_000, headers: mode as keyof typeof expected }]);
        expect((await api(sim, "/user")).status).toBe(200);
        expect((await api(sim, "/user", { token: READER })).status).toBe(200);
        const res = await api(sim, "/user");
        expect([res.status, retryHeaders(res)]).toEqual([429, headers]);
        expect((await api(sim, "/projects", { token: null })).status).toBe(200); // route-less rules spare anonymous calls
      }
    });
  });
});

describe("faults", () => {
  it("answers 429 in each header style", async () => {
    await withSim({}, async (sim) => {
      sim.addFaults(
        { kind: "429", headers: "retry-after", seconds: 3, route: "GET /projects", times: 1 },
        { kind: "429", headers: "retry-after-date", seconds: 3, route: "GET /projects", times: 1 },
        { kind: "429", headers: "reset-only", seconds: 3, route: "GET /projects", times: 1 },
        { kind: "429", headers: "none", route: "GET /projects", times: 1 },
        { kind: "429", headers: "retry-after", seconds: 0, route: "GET /projects", times: 1 },
      );
      const get = async () => {
        const res = await api(sim, "/projects");
        expect([res.status, await res.text()]).toEqual([429, "Retry later"]);
        return [res.headers.get("retry-after"), res.headers.get("ratelimit-reset")];
      };
      expect(await get()).toEqual(["3", null]);
      const [date] = await get();
      expect((Date.parse(date!) - Date.now()) / 1000).toBeGreaterThan(1.5);
      expect((Date.parse(date!) - Date.now()) / 1000).toBeLessThanOrEqual(4);
      const [, reset] = await get();
      expect(Number(reset) - Date.now() / 1000).toBeGreaterThan(1.5);
      expect(await get()).toEqual([null, null]);
      expect(await get()).toEqual(["0", null]);
      expect((await api(sim, "/projects")).status).toBe(200);
    });
  });

  it("applies status, drop and delay faults in order, to matching requests only", async () => {
    await withSim({}, async (sim) => {
      sim.addFaults({ kind: "status", status: 502, route: "/projects/:id", method: "GET", times: 2 }, { kind: "drop", route: "GET /user", times: 1 }, { kind: "delay", ms: 150, times: 1 });
      expect((await api(sim, "/projects")).status).toBe(200); // not matched by the first two; takes the delay
      expect((await api(sim, "/projects/1")).status).toBe(502);
      expect((await api(sim, "/projects/1")).status).toBe(502);
      expect((await api(sim, "/projects/1")).status).toBe(200);
      await expect(api(sim, "/user")).rejects.toThrow();
      expect((await api(sim, "/user")).status).toBe(200);
      sim.addFaults({ kind: "delay", ms: 150, times: 1 });
      const started = performance.now();
      expect((await api(sim, "/user")).status).toBe(200);
      expect(performance.now() - started).toBeGreaterThanOrEqual(140);
      expect(sim.counters.status).toMatchObject({ "502": 2, dropped: 1 });
    });
  });

  it("apply-then-status performs the mutation before answering the error", async () => {
    await withSim({}, async (sim) => {
      const project = sharedProject(sim.dataset, new Set());
      const groupId = project.shared_with_groups[0]!.group_id;
      sim.addFaults({ kind: "apply-then-status", status: 502, route: "DELETE /projects/:id/share/:group_id", times: 1 });
      const res = await api(sim, `/projects/${project.id}/share/${groupId}`, { method: "DELETE" });
      expect(res.status).toBe(502);
      expect(project.shared_with_groups.map((s) => s.group_id)).not.toContain(groupId);
      expect((await api(sim, `/projects/${project.id}/share/${groupId}`, { method: "DELETE" })).status).toBe(404);
    });
  });
});

describe("counters", () => {
  it("counts by route and status, and tracks peak concurrency", async () => {
    await withSim({ latencyMs: 60 }, async (sim) => {
      await Promise.all([1, 2, 3, 4, 5, 6].map((id) => api(sim, `/projects/${id}`).then((r) => r.arrayBuffer())));
      await api(sim, "/nowhere");
      expect(sim.counters).toMatchObject({ requests: 7, maxConcurrency: 6, byRoute: { "GET /projects/:id": 6, "GET *": 1 }, status: { "200": 6, "404": 1 } });
      sim.resetCounters();
      expect(sim.counters).toMatchObject({ requests: 0, maxConcurrency: 0, byRoute: {}, status: {} });
    });
  });
});

describe("group shares", () => {
  // Late in the UTC day: a generator or test that used local dates would be a day off somewhere.
  const NOW = new Date("2026-03-10T23:30:00Z");
  const dayFromNow = (days: number): string => new Date(Date.UTC(2026, 2, 10 + days)).toISOString().slice(0, 10);
  const OWNER = "glpat-sim-owner";
  const AUDITOR = "glpat-sim-auditor";
  const SHARE_TOKENS = { ...TOKENS, [OWNER]: { admin: false, username: "bob" }, [AUDITOR]: { admin: false, auditor: true, username: "carol" } };
  const organisation = () => generateOrganisation({ projects: 200, groupShares: true, now: NOW });
  const groupOf = (dataset: GitLabDataset, path: string): SimGroup => dataset.groups.find((g) => g.full_path === path)!;
  const linkIds = (g: SimGroup): number[] => g.shared_with_groups.map((s) => s.group_id);
  const send = (sim: GitLabSim, method: string, path: string, body?: object, token?: string) =>
    api(sim, path, { method, token, ...(body ? { headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) } : {}) });
  const answer = async (res: Response) => [res.status, res.status === 204 ? await res.text() : await res.json()];

  describe("generateOrganisation({ groupShares: true })", () => {
    it("leaves the rest of the organisation as the same seed makes it without them", () => {
      const plain = generateOrganisation({ projects: 300, seed: 4 });
      const withGroups = generateOrganisation({ projects: 300, seed: 4, groupShares: true, now: NOW });
      expect(withGroups.dataset.projects).toEqual(plain.dataset.projects);
      expect(withGroups.dataset.users).toEqual(plain.dataset.users);
      expect(withGroups.intents.filter((i) => i.kind === "project")).toEqual(plain.intents);
      const strip = (g: SimGroup) => ({ ...g, shared_with_groups: [] });
      expect(withGroups.dataset.groups.slice(0, plain.dataset.groups.length).map(strip)).toEqual(plain.dataset.groups);
      expect(plain.dataset.groups.every((g) => g.shared_with_groups.length === 0)).toBe(true);
      expect(generateOrganisation({ projects: 300, seed: 4, groupShares: true, now: NOW })).toEqual(withGroups);
      // New groups take ids no namespace has.
      const namespaceIds = [...withGroups.dataset.groups.map((g) => g.id), ...withGroups.dataset.users.map((u) => u.namespace_id)];
      expect(new Set(namespaceIds).size).toBe(namespaceIds.length);
    });

    it("gives every group share an intent that agrees with an independent reading of the policy, each edge case included", () => {
      const { dataset, intents } = organisation();
      const byId = new Map(dataset.groups.map((g) => [g.id, g]));
      const under = (path: string, root: string) => path === root || path.startsWith(`${root}/`);
      const expected = (by: string, to: string, level: number, expires: string | null) => {
        if (!under(by, "acme")) return "allowed";
        if (under(by, "acme/legacy")) return "exempt";
        if (under(to, "acme")) return "allowed";
        const audited = to === "auditors" && (by === "acme" || under(by, "acme/platform"));
        return audited && level <= 20 && expires !== null && expires <= dayFromNow(90) ? "allowed" : "stray";
      };
      const groupIntents = intents.filter((i) => i.kind === "group");
      expect(groupIntents).toHaveLength(dataset.groups.reduce((n, g) => n + g.shared_with_groups.length, 0));
      const seen = new Set<string>();
      for (const i of groupIntents) {
        const by = byId.get(i.sharedGroupId)!;
        const share = by.shared_with_groups.find((s) => s.group_id === i.groupId)!;
        expect(i.intent, `${by.full_path} → ${share.group_full_path}`).toBe(expected(by.full_path, share.group_full_path, share.group_access_level, share.expires_at));
        expect(typeof share.member_role_id === "number" ? share.member_role_id > 0 : share.member_role_id === null).toBe(true);
        const when = share.expires_at === null ? "never" : [-1, 0, 90, 91].map((d) => [d, dayFromNow(d)] as const).find(([, day]) => day === share.expires_at)?.[0];
        seen.add(`${i.intent} ${share.group_full_path}${share.group_full_path === "auditors" ? ` ${share.group_access_level} ${when}` : ""}`);
        if (!under(by.full_path, "acme")) seen.add(`${i.intent} out of scope`);
        if (share.member_role_id) seen.add(`${i.intent} with a custom role`);
      }
      const cases = ["allowed auditors 20 90", "stray auditors 20 91", "allowed auditors 10 0", "stray auditors 20 never", "allowed auditors 20 -1"];
      for (const c of [...cases, "stray acme-ext", "stray partners/contractor-x", "stray freelancers", "allowed out of scope", "stray with a custom role"]) expect(seen).toContain(c);
      expect([...seen].some((k) => k.startsWith("stray auditors 30"))).toBe(true); // above maxAccess
      expect([...seen].some((k) => k.startsWith("exempt auditors"))).toBe(true);
      expect([...seen].some((k) => k.startsWith("allowed acme/"))).toBe(true);
      expect(groupOf(dataset, "auditors").parent_id).toBeNull();
    });
  });

  describe("routes", () => {
    let sim: GitLabSim;
    beforeAll(async () => {
      sim = await startGitLabSim({ dataset: organisation().dataset, tokens: SHARE_TOKENS });
    });
    afterAll(() => sim.close());

    it("GET /groups/:id embeds up to 100 own and 100 shared projects by default, newest first, none with with_projects=false", async () => {
      const group = groupOf(sim.dataset, "acme/mobile");
      const detail = await getJson(sim, `/groups/${group.id}`);
      const own = sim.dataset.projects.filter((p) => p.namespace_id === group.id);
      expect(ids(detail.projects)).toEqual(ids(own).sort((a, b) => b - a));
      expect(detail.projects[0].shared_with_groups).toBeDefined();
      const into = sim.dataset.groups.find((g) => sim.dataset.projects.some((p) => p.namespace_id !== g.id && p.shared_with_groups.some((s) => s.group_id === g.id)))!;
      const shared = (await getJson(sim, `/groups/${into.id}`)).shared_projects;
      expect(shared.length).toBeGreaterThan(0);
      expect(shared.every((p: SimProject) => p.shared_with_groups.some((s) => s.group_id === into.id))).toBe(true);
      const acme = await getJson(sim, "/groups/acme");
      expect(acme.shared_with_groups).toEqual(groupOf(sim.dataset, "acme").shared_with_groups);
      const lean = await getJson(sim, "/groups/acme?with_projects=false");
      expect(lean).not.toHaveProperty("projects");
      expect(lean).not.toHaveProperty("shared_projects");
      expect(lean.shared_with_groups).toEqual(acme.shared_with_groups);
      expect((await api(sim, "/groups/acme?with_projects=maybe")).status).toBe(400);
    });

    it("caps the embedded projects at 100 each", async () => {
      const { dataset } = generateOrganisation({ projects: 30, groupShares: true, now: NOW });
      const group = groupOf(dataset, "acme/platform");
      const template = dataset.projects[0]!;
      for (let i = 0; i < 150; i++) {
        const id = 10_000 + i;
        dataset.projects.push({ ...template, id, path: `bulk-${i}`, path_with_namespace: `acme/platform/bulk-${i}`, namespace_id: group.id, shared_with_groups: [], previous_paths: [] });
      }
      const sharing = groupOf(dataset, "acme/mobile");
      const link = { group_id: sharing.id, group_name: sharing.name, group_full_path: sharing.full_path, group_access_level: 20, expires_at: null };
      for (const p of dataset.projects.filter((p) => p.namespace_id === group.id)) p.shared_with_groups.push(link);
      await withSim({ dataset }, async (big) => {
        const embedded = (await getJson(big, `/groups/${group.id}`)).projects;
        expect(embedded).toHaveLength(100);
        // GitLab's finder orders by id, newest first, before it takes 100.
        expect(ids(embedded)[0]).toBe(10_149);
        expect((await getJson(big, `/groups/${sharing.id}`)).shared_projects).toHaveLength(100);
      });
      // Playing a GitLab whose details carry no projects (as API v5 plans), whatever with_projects says.
      await withSim({ dataset, detailProjects: false }, async (bare) => {
        const detail = await getJson(bare, `/groups/${group.id}?with_projects=true`);
        expect(detail).not.toHaveProperty("projects");
        expect(detail).not.toHaveProperty("shared_projects");
        expect(detail.shared_with_groups).toBeDefined();
      });
      // Playing a broken server or proxy whose details carry empty lists.
      await withSim({ dataset, detailProjects: "empty" }, async (broken) => {
        const detail = await getJson(broken, `/groups/${group.id}`);
        expect(detail.projects).toEqual([]);
        expect(detail.shared_projects).toEqual([]);
      });
    });

    it("lists only links to groups the caller can see (administrators and auditors see all); lists of groups carry no shares", async () => {
      const privateIds = new Set(sim.dataset.groups.filter((g) => g.visibility === "private").map((g) => g.id));
      const group = sim.dataset.groups.find((g) => g.visibility !== "private" && g.shared_with_groups.some((s) => privateIds.has(s.group_id)))!;
      const asReader = await getJson(sim, `/groups/${group.id}?with_projects=false`, READER);
      expect(asReader.shared_with_groups).toEqual(group.shared_with_groups.filter((s) => !privateIds.has(s.group_id)));
      expect(asReader.shared_with_groups.length).toBeLessThan(group.shared_with_groups.length);
      expect((await getJson(sim, `/groups/${group.id}?with_projects=false`, AUDITOR)).shared_with_groups).toEqual(group.shared_with_groups);
      const hidden = sim.dataset.groups.find((g) => g.visibility === "private")!;
      expect(await answer(await api(sim, `/groups/${hidden.id}`, { token: READER }))).toEqual([404, { message: "404 Group Not Found" }]);
      expect(await getJson(sim, "/user", AUDITOR)).toMatchObject({ username: "carol", is_admin: false, is_auditor: true });
      for (const path of ["/groups?per_page=100", "/groups/acme/subgroups", "/groups/acme/descendant_groups?per_page=100"]) {
        const list = await getJson<object[]>(sim, path);
        expect(list.length).toBeGreaterThan(0);
        expect(list.some((g) => "shared_with_groups" in g || "owners" in g)).toBe(false);
      }
    });

    it("DELETE /groups/:id/share/:group_id: 204, then 404 Group Link Not Found; 404 Group Not Found for an unknown or invisible group", async () => {
      const group = groupOf(sim.dataset, "acme/platform/sre");
      const before = linkIds(group);
      const gone = before[0]!;
      expect(await answer(await api(sim, `/groups/${enc(group.full_path)}/share/${gone}`, { method: "DELETE" }))).toEqual([204, ""]);
      expect(linkIds(group)).toEqual(before.slice(1));
      expect(await answer(await api(sim, `/groups/${group.id}/share/${gone}`, { method: "DELETE" }))).toEqual([404, { message: "404 Group Link Not Found" }]);
      expect(await answer(await api(sim, `/groups/999999/share/${gone}`, { method: "DELETE" }))).toEqual([404, { message: "404 Group Not Found" }]);
      const hidden = groupOf(sim.dataset, "acme/platform/observability");
      const hiddenLink = linkIds(hidden)[0]!;
      expect(await answer(await api(sim, `/groups/${hidden.id}/share/${hiddenLink}`, { method: "DELETE", token: READER }))).toEqual([404, { message: "404 Group Not Found" }]);
      expect(linkIds(hidden)).toContain(hiddenLink);
    });

    it("THE TRAP: a token that is not Owner of the sharing group (auditors too) gets 204 and nothing is removed", async () => {
      const group = groupOf(sim.dataset, "acme/platform/infra-tools");
      const before = structuredClone(group.shared_with_groups);
      const link = before[0]!.group_id;
      for (const token of [READER, AUDITOR]) {
        expect(await answer(await api(sim, `/groups/${group.id}/share/${link}`, { method: "DELETE", token }))).toEqual([204, ""]);
        expect(group.shared_with_groups).toEqual(before);
      }
      // Owner is inherited: bob owns acme/platform, so he owns infra-tools too.
      groupOf(sim.dataset, "acme/platform").owners = ["bob"];
      expect((await api(sim, `/groups/${group.id}/share/${link}`, { method: "DELETE", token: OWNER })).status).toBe(204);
      expect(linkIds(group)).not.toContain(link);
    });

    it("POST /groups/:id/share: 201 with the sharing group's detail, from a JSON or a form body; then 409", async () => {
      const group = groupOf(sim.dataset, "acme/Web.Team");
      const [a, b] = [groupOf(sim.dataset, "partners/agency-y"), groupOf(sim.dataset, "acme/data_science")];
      const res = await send(sim, "POST", `/groups/${group.id}/share`, { group_id: a.id, group_access: 30, expires_at: "2026-12-31", member_role_id: 12 });
      expect(res.status).toBe(201);
      const detail = await json(res);
      expect(detail).toMatchObject({ id: group.id, full_path: "acme/Web.Team" });
      expect(detail).not.toHaveProperty("projects");
      const created = { group_id: a.id, group_name: a.name, group_full_path: a.full_path, group_access_level: 30, expires_at: "2026-12-31", member_role_id: 12 };
      expect(detail.shared_with_groups).toContainEqual(created);
      expect(group.shared_with_groups.at(-1)).toEqual(created);

      const form = await api(sim, `/groups/${enc(group.full_path)}/share`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: `group_id=${b.id}&group_access=20`,
      });
      expect(form.status).toBe(201);
      expect(group.shared_with_groups.at(-1)).toEqual({ group_id: b.id, group_name: b.name, group_full_path: b.full_path, group_access_level: 20, expires_at: null, member_role_id: null });

      const again = await send(sim, "POST", `/groups/${group.id}/share`, { group_id: a.id, group_access: 10 });
      expect(await answer(again)).toEqual([409, { message: "Shared group The group has already been shared with this group" }]);
      expect(group.shared_with_groups.filter((s) => s.group_id === a.id)).toHaveLength(1);
    });

    it("POST /groups/:id/share refuses: 404 unknown groups, 400 bad parameters, 404 Not Found for a token that is not Owner", async () => {
      const group = groupOf(sim.dataset, "acme/security");
      const target = groupOf(sim.dataset, "partners");
      const before = structuredClone(group.shared_with_groups);
      const post = (path: string, body: object, token?: string) => send(sim, "POST", path, body, token).then(answer);
      expect(await post("/groups/999999/share", { group_id: target.id, group_access: 20 })).toEqual([404, { message: "404 Group Not Found" }]);
      expect(await post(`/groups/${group.id}/share`, { group_id: 999999, group_access: 20 })).toEqual([404, { message: "404 Group Not Found" }]);
      expect(await post(`/groups/${group.id}/share`, { group_id: target.id, group_access: 25 })).toEqual([400, { error: "group_access does not have a valid value" }]);
      expect(await post(`/groups/${group.id}/share`, { group_access: 20 })).toEqual([400, { error: "group_id is missing" }]);
      expect(await post(`/groups/${group.id}/share`, { group_id: target.id, group_access: 20, expires_at: "2026-02-30" })).toEqual([400, { error: "expires_at is invalid" }]);
      const visible = groupOf(sim.dataset, "acme/mobile");
      const visibleBefore = structuredClone(visible.shared_with_groups);
      expect(await post(`/groups/${visible.id}/share`, { group_id: target.id, group_access: 20 }, READER)).toEqual([404, { message: "Not Found" }]);
      expect(group.shared_with_groups).toEqual(before);
      expect(visible.shared_with_groups).toEqual(visibleBefore);
    });

    it("POST /projects/:id/share: 201 with the link, 409 for an existing link and for the project's own group or an ancestor", async () => {
      const project = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/mobile/ios/"))!;
      const target = groupOf(sim.dataset, "freelancers");
      const res = await send(sim, "POST", `/projects/${enc(project.path_with_namespace)}/share`, { group_id: target.id, group_access: 20, expires_at: "2027-01-15" });
      expect(res.status).toBe(201);
      const link = await json(res);
      expect(link).toEqual({ id: expect.any(Number), project_id: project.id, group_id: target.id, group_access: 20, expires_at: "2027-01-15" });
      expect(project.shared_with_groups.at(-1)).toEqual({ group_id: target.id, group_name: target.name, group_full_path: target.full_path, group_access_level: 20, expires_at: "2027-01-15" });
      const count = project.shared_with_groups.length;
      const post = (groupId: number, access = 20) => send(sim, "POST", `/projects/${project.id}/share`, { group_id: groupId, group_access: access }).then(answer);
      expect(await post(target.id)).toEqual([409, { message: "Project already shared with this group" }]);
      const hierarchy = [409, { message: "Project cannot be shared with the group it is in or one of its ancestors." }];
      for (const path of ["acme/mobile/ios", "acme/mobile", "acme"]) expect(await post(groupOf(sim.dataset, path).id)).toEqual(hierarchy);
      expect(await post(999999)).toEqual([404, { message: "Not Found" }]);
      expect(await post(target.id, 35)).toEqual([400, { error: "group_access does not have a valid value" }]);
      expect(await answer(await send(sim, "POST", "/projects/999999/share", { group_id: target.id, group_access: 20 }))).toEqual([404, { message: "404 Project Not Found" }]);
      expect(project.shared_with_groups).toHaveLength(count);
    });

    it("POST /projects/:id/share: 400 when the namespace or an ancestor locks sharing, 403 for Owner level without Owner", async () => {
      const project = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/data_science/"))!;
      const target = groupOf(sim.dataset, "partners/agency-y");
      const before = structuredClone(project.shared_with_groups);
      const post = (access: number, token?: string) => send(sim, "POST", `/projects/${project.id}/share`, { group_id: target.id, group_access: access }, token).then(answer);
      expect(await post(50, READER)).toEqual([403, { message: "403 Forbidden" }]);
      groupOf(sim.dataset, "acme").share_with_group_lock = true;
      try {
        expect(await post(20)).toEqual([400, { message: "The project sharing with group is disabled" }]);
        expect((await getJson(sim, "/groups/acme?with_projects=false")).share_with_group_lock).toBe(true);
      } finally {
        groupOf(sim.dataset, "acme").share_with_group_lock = false;
      }
      expect(project.shared_with_groups).toEqual(before);
      expect((await post(50)).slice(0, 1)).toEqual([201]);
    });
  });

  describe("faults and limits", () => {
    it("apply the change before an error status or a dropped connection, on every share route", async () => {
      await withSim({ dataset: organisation().dataset }, async (sim) => {
        const group = groupOf(sim.dataset, "acme/mobile");
        const [first, second] = linkIds(group) as [number, number];
        const target = groupOf(sim.dataset, "acme-ext");
        const project = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/platform/"))!;
        sim.addFaults(
          { kind: "apply-then-status", status: 500, route: "DELETE /groups/:id/share/:group_id", times: 1 },
          { kind: "apply-then-drop", route: "DELETE /groups/:id/share/:group_id", times: 1 },
          { kind: "apply-then-status", status: 502, route: "POST /groups/:id/share", times: 1 },
          { kind: "apply-then-drop", route: "POST /projects/:id/share", times: 1 },
        );
        expect((await api(sim, `/groups/${group.id}/share/${first}`, { method: "DELETE" })).status).toBe(500);
        expect(linkIds(group)).not.toContain(first);
        await expect(api(sim, `/groups/${group.id}/share/${second}`, { method: "DELETE" })).rejects.toThrow();
        expect(linkIds(group)).not.toContain(second);
        expect((await send(sim, "POST", `/groups/${group.id}/share`, { group_id: target.id, group_access: 20 })).status).toBe(502);
        expect(linkIds(group)).toContain(target.id);
        await expect(send(sim, "POST", `/projects/${project.id}/share`, { group_id: target.id, group_access: 20 })).rejects.toThrow();
        expect(project.shared_with_groups.map((s) => s.group_id)).toContain(target.id);
        expect(sim.counters.status).toMatchObject({ "500": 1, "502": 1, dropped: 2 });
      });
    });

    it("refuse before the change with status and drop faults", async () => {
      await withSim({ dataset: organisation().dataset }, async (sim) => {
        const group = groupOf(sim.dataset, "acme/mobile");
        const before = structuredClone(group.shared_with_groups);
        const target = groupOf(sim.dataset, "partners");
        sim.addFaults({ kind: "status", status: 503, route: "/groups/:id/share", times: 1 }, { kind: "drop", route: "DELETE /groups/:id/share/:group_id", times: 1 });
        expect((await send(sim, "POST", `/groups/${group.id}/share`, { group_id: target.id, group_access: 20 })).status).toBe(503);
        await expect(api(sim, `/groups/${group.id}/share/${before[0]!.group_id}`, { method: "DELETE" })).rejects.toThrow();
        expect(group.shared_with_groups).toEqual(before);
      });
    });

    it("budgets GET /groups/:id with GitLab's endpoint throttle: a JSON 429, Retry-After of the window, no RateLimit-* headers", async () => {
      await withSim({ rateLimits: [{ route: "GET /groups/:id", limit: 2, windowMs: 60_000, headers: "endpoint" }] }, async (sim) => {
        for (let i = 0; i < 2; i++) {
          const ok = await api(sim, "/groups/acme?with_projects=false");
          expect([ok.status, [...ok.headers.keys()].filter((k) => k.startsWith("ratelimit"))]).toEqual([200, []]);
        }
        const res = await api(sim, "/groups/acme?with_projects=false");
        expect(await answer(res)).toEqual([429, { message: { error: "This endpoint has been requested too many times. Try again later." } }]);
        expect(res.headers.get("retry-after")).toBe("60");
        expect([...res.headers.keys()].filter((k) => k.startsWith("ratelimit"))).toEqual([]);
        expect((await api(sim, "/groups/acme/subgroups")).status).toBe(200);
      });
    });
  });
});

describe("project moves and updated_at", () => {
  const groupAt = (dataset: GitLabDataset, path: string): SimGroup => dataset.groups.find((g) => g.full_path === path)!;
  type Listed = { id: number; created_at: string; updated_at: string };

  /** Every item of an offset listing, following rel="next". */
  async function readAll<T = Listed>(sim: GitLabSim, path: string): Promise<T[]> {
    const out: T[] = [];
    let url: string | undefined = `${sim.url}/api/v4${path}`;
    while (url) {
      const res: Response = await fetch(url, { headers: { "PRIVATE-TOKEN": sim.token } });
      expect(res.status, url).toBe(200);
      out.push(...(await json<T[]>(res)));
      url = links(res)["next"];
    }
    return out;
  }

  /** Whether (updated_at, id) strictly falls (desc) or rises (asc) from each item to the next. */
  const inUpdatedOrder = (items: Listed[], desc: boolean): boolean =>
    items.every((p, i) => {
      const q = items[i - 1];
      if (!q) return true;
      const step = Date.parse(p.updated_at) - Date.parse(q.updated_at) || p.id - q.id;
      return desc ? step < 0 : step > 0;
    });

  it("orders by updated_at, newest first by default, ties by id; a project never updated reads as created", async () => {
    const { dataset } = generateOrganisation({ projects: 200 });
    const elsewhere = dataset.projects.filter((p) => !p.path_with_namespace.startsWith("acme/mobile/"));
    const [tieLow, tieHigh, newest] = [elsewhere[40]!, elsewhere[90]!, elsewhere[120]!];
    newest.updated_at = "2031-01-01T00:00:00.000Z";
    tieLow.updated_at = tieHigh.updated_at = "2030-06-01T12:00:00.000Z";
    const mobileProject = dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/mobile/ios/"))!;
    mobileProject.updated_at = "2030-01-01T00:00:00.000Z";
    const touched = new Set([newest.id, tieHigh.id, tieLow.id, mobileProject.id]);
    const untouchedDesc = (list: number[]) => list.filter((id) => !touched.has(id)).sort((a, b) => b - a);
    const allIds = dataset.projects.map((p) => p.id);
    const expected = [newest.id, tieHigh.id, tieLow.id, mobileProject.id, ...untouchedDesc(allIds)];

    await withSim({ dataset }, async (sim) => {
      const desc = await readAll(sim, "/projects?order_by=updated_at&per_page=100");
      expect(ids(desc)).toEqual(expected);
      expect(inUpdatedOrder(desc, true)).toBe(true);
      expect(desc.find((p) => p.id === newest.id)!.updated_at).toBe(newest.updated_at);
      expect(desc.filter((p) => !touched.has(p.id)).every((p) => p.updated_at === p.created_at)).toBe(true);

      const asc = await readAll<Listed & { shared_with_groups?: unknown }>(sim, "/projects?order_by=updated_at&sort=asc&simple=true&per_page=100");
      expect(ids(asc)).toEqual([...expected].reverse());
      expect(asc.every((p) => typeof p.updated_at === "string" && !("shared_with_groups" in p))).toBe(true);

      const ranged = await readAll(sim, `/projects?order_by=updated_at&id_after=${tieLow.id - 1}&id_before=${newest.id + 1}&per_page=100`);
      expect(ids(ranged)).toEqual(expected.filter((id) => id >= tieLow.id && id <= newest.id));

      const keyset = await api(sim, "/projects?pagination=keyset&order_by=updated_at&sort=desc");
      expect([keyset.status, await keyset.json()]).toEqual([405, { message: "Keyset pagination is not yet available for this type of request" }]);

      const mobile = groupAt(dataset, "acme/mobile");
      const own = `/groups/${mobile.id}/projects?include_subgroups=true&with_shared=false&per_page=100`;
      const members = ids(await readAll(sim, `${own}&order_by=id`));
      expect(ids(await readAll(sim, `${own}&order_by=updated_at`))).toEqual([mobileProject.id, ...untouchedDesc(members)]);
      expect(ids(await readAll(sim, `${own}&order_by=updated_at&sort=asc`))).toEqual([...untouchedDesc(members)].reverse().concat(mobileProject.id));
      // with_shared adds projects from elsewhere, the newest of them included, in the same order.
      const shared = await readAll(sim, `/groups/${mobile.id}/projects?include_subgroups=true&order_by=updated_at&per_page=100`);
      expect(ids(shared).sort((a, b) => a - b)).toEqual(ids(await readAll(sim, `/groups/${mobile.id}/projects?include_subgroups=true&per_page=100`)));
      expect(inUpdatedOrder(shared, true)).toBe(true);
    });
  });

  it("moveProject transfers a project: group listings, path, 301 from the old path, updated_at, first by updated_at", async () => {
    await withSim({}, async (sim) => {
      const [acme, mobile, ios, platform] = ["acme", "acme/mobile", "acme/mobile/ios", "acme/platform"].map((p) => groupAt(sim.dataset, p)) as [SimGroup, SimGroup, SimGroup, SimGroup];
      const project = sim.dataset.projects.find((p) => p.namespace_id === ios.id)!;
      const oldPath = project.path_with_namespace;
      const newPath = `acme/platform/${project.path}`;
      const members = async (g: SimGroup, subgroups: boolean) =>
        ids(await readAll(sim, `/groups/${g.id}/projects?with_shared=false&include_subgroups=${subgroups}&order_by=id&per_page=100`));
      // Listed before the move too, so that what the store gathered per subtree has to follow it.
      const acmeBefore = await members(acme, true);
      expect([await members(ios, false), await members(mobile, true)].every((list) => list.includes(project.id))).toBe(true);
      expect([await members(platform, false), await members(platform, true)].some((list) => list.includes(project.id))).toBe(false);

      const started = Date.now();
      expect(sim.moveProject(project.id, platform.id)).toBe(project);
      const finished = Date.now();

      expect([await members(ios, false), await members(mobile, true)].some((list) => list.includes(project.id))).toBe(false);
      const platformTree = await members(platform, true);
      expect([(await members(platform, false)).includes(project.id), platformTree.includes(project.id)]).toEqual([true, true]);
      expect(platformTree).toEqual([...platformTree].sort((a, b) => a - b));
      expect(await members(acme, true)).toEqual(acmeBefore);

      const moved = await getJson(sim, `/projects/${enc(newPath)}`);
      expect(moved).toMatchObject({ id: project.id, path_with_namespace: newPath, namespace: { id: platform.id, full_path: "acme/platform" } });
      expect(moved.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Date.parse(moved.updated_at)).toBeGreaterThanOrEqual(started);
      expect(Date.parse(moved.updated_at)).toBeLessThanOrEqual(finished);
      const old = await api(sim, `/projects/${enc(oldPath)}`);
      expect([old.status, old.headers.get("location")]).toEqual([301, `${sim.url}/api/v4/projects/${project.id}`]);

      expect(ids(await getJson(sim, "/projects?order_by=updated_at&per_page=1"))).toEqual([project.id]);
      expect(ids(await getJson(sim, `/groups/${acme.id}/projects?include_subgroups=true&order_by=updated_at&per_page=1`))).toEqual([project.id]);

      // As GitLab: no move into the project's own namespace. Moving back makes the old path current again.
      expect(() => sim.moveProject(project.id, platform.id)).toThrow(/already in/);
      sim.moveProject(project.id, ios.id);
      expect((await getJson(sim, `/projects/${enc(oldPath)}`)).id).toBe(project.id);
      expect(project.previous_paths).toEqual([newPath]);
      expect((await api(sim, `/projects/${enc(newPath)}`)).status).toBe(301);
    });
  });

  it("a project leaving the part of an offset listing already read makes the next page skip exactly one item", async () => {
    await withSim({}, async (sim) => {
      const [acme, partners] = [groupAt(sim.dataset, "acme"), groupAt(sim.dataset, "partners")];
      const listing = `/groups/${acme.id}/projects?include_subgroups=true&with_shared=false&order_by=id&sort=asc&per_page=20`;
      const whole = ids(await readAll(sim, listing));
      const page1 = ids(await getJson(sim, `${listing}&page=1`));
      expect(page1).toEqual(whole.slice(0, 20));
      const leaving = page1[3]!;
      // The move happens as the second page is asked for: that page is computed after it.
      const off = sim.beforeAnswer(({ route, url }) => {
        if (route !== "GET /groups/:id/projects" || url.searchParams.get("page") !== "2") return;
        off();
        sim.moveProject(leaving, partners.id);
      });
      const page2 = ids(await getJson(sim, `${listing}&page=2`));
      const skipped = whole[20]!;
      expect(page2).toEqual(whole.slice(21, 41));
      expect([...page1, ...page2]).not.toContain(skipped);
      // It never left acme: only the pagination lost it.
      const after = ids(await readAll(sim, listing));
      expect(after).toEqual(whole.filter((id) => id !== leaving));
      expect(after).toContain(skipped);
    });
  });

  it("a project arriving in the part already read makes an item repeat", async () => {
    await withSim({}, async (sim) => {
      const acme = groupAt(sim.dataset, "acme");
      const listing = `/groups/${acme.id}/projects?include_subgroups=true&with_shared=false&order_by=id&sort=asc&per_page=20`;
      const page1 = ids(await getJson(sim, `${listing}&page=1`));
      const arriving = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme-ext/"))!;
      expect(arriving.id).toBeLessThan(page1.at(-1)!);
      sim.moveProject(arriving.id, acme.id);
      const page2 = ids(await getJson(sim, `${listing}&page=2`));
      expect(page2[0]).toBe(page1.at(-1));
      expect([...page1, ...page2]).not.toContain(arriving.id);
    });
  });

  it("beforeAnswer runs for every request, before latency-delayed, faulted, refused or throttled answers are worked out", async () => {
    await withSim({ latencyMs: 20, rateLimits: [{ route: "GET /user", limit: 1, windowMs: 60_000 }] }, async (sim) => {
      const platform = groupAt(sim.dataset, "acme/platform");
      const project = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/mobile/ios/"))!;
      const seen: string[] = [];
      const off = sim.beforeAnswer(({ method, route, url, n }) => {
        seen.push(`${n} ${method} ${route} ${url.pathname}`);
        if (route === "GET /projects/:id" && project.namespace_id !== platform.id) sim.moveProject(project.id, platform.id);
      });
      sim.addFaults({ kind: "status", status: 503, route: "GET /groups/:id", times: 1 });
      expect((await getJson(sim, `/projects/${project.id}`)).path_with_namespace).toBe(`acme/platform/${project.path}`);
      expect((await api(sim, "/groups/acme")).status).toBe(503);
      expect((await api(sim, "/user", { token: "glpat-wrong" })).status).toBe(401);
      expect((await api(sim, "/user")).status).toBe(200);
      expect((await api(sim, "/user")).status).toBe(429);
      expect(seen).toEqual([
        `1 GET GET /projects/:id /api/v4/projects/${project.id}`,
        "2 GET GET /groups/:id /api/v4/groups/acme",
        "3 GET GET /user /api/v4/user",
        "4 GET GET /user /api/v4/user",
        "5 GET GET /user /api/v4/user",
      ]);
      off();
      await api(sim, "/user");
      expect(seen).toHaveLength(5);
    });
  });

  it("orders 100,000 projects by updated_at fast enough for a few requests a run", async () => {
    const { dataset } = generateOrganisation({ projects: 100_000 });
    await withSim({ dataset }, async (sim) => {
      const started = performance.now();
      const [all, group] = await Promise.all([
        getJson<Listed[]>(sim, "/projects?order_by=updated_at&per_page=100&page=3"),
        getJson<Listed[]>(sim, "/groups/acme/projects?include_subgroups=true&order_by=updated_at&sort=asc&per_page=100"),
      ]);
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(inUpdatedOrder(all, true) && inUpdatedOrder(group, false)).toBe(true);
      expect(all[0]!.id).toBe(dataset.projects.at(-1 - 200)!.id);
    });
  });
});

describe("project visibility", () => {
  type Listed = { id: number; visibility?: string; namespace: { full_path: string } };
  const page = async (sim: GitLabSim, query: string): Promise<{ items: Listed[]; total: string | null }> => {
    const res = await fetch(`${sim.url}/api/v4/groups/acme/projects?include_subgroups=true&with_shared=false&per_page=100${query}`, { headers: { "PRIVATE-TOKEN": sim.token } });
    expect(res.status).toBe(200);
    return { items: await json<Listed[]>(res), total: res.headers.get("x-total") };
  };

  it("every project has one, never above its group's; the filter keeps one visibility, and the three add up to the whole", async () => {
    const { dataset } = generateOrganisation({ projects: 600 });
    await withSim({ dataset }, async (sim) => {
      const whole = await page(sim, "");
      const parts = await Promise.all(["private", "internal", "public"].map(async (v) => ({ v, ...(await page(sim, `&visibility=${v}`)) })));
      for (const { v, items } of parts) expect(items.every((p) => p.visibility === v)).toBe(true);
      expect(parts.reduce((n, p) => n + Number(p.total), 0)).toBe(Number(whole.total));
      expect(parts.every((p) => Number(p.total) > 0)).toBe(true);
      const rank = ["private", "internal", "public"];
      const groups = new Map(dataset.groups.map((g) => [g.full_path, g.visibility]));
      for (const p of whole.items) expect(rank.indexOf(p.visibility!)).toBeLessThanOrEqual(rank.indexOf(groups.get(p.namespace.full_path)!));
      const bad = await fetch(`${sim.url}/api/v4/groups/acme/projects?visibility=secret`, { headers: { "PRIVATE-TOKEN": sim.token } });
      expect(bad.status).toBe(400);
    });
  });

  it.each(["none", "unfiltered"] as const)("playing a GitLab without the filter (projectVisibility: %s): the filter ignored, visibility shown only when unfiltered", async (mode) => {
    const { dataset } = generateOrganisation({ projects: 600 });
    await withSim({ dataset, projectVisibility: mode }, async (sim) => {
      const whole = await page(sim, "");
      const filtered = await page(sim, "&visibility=private");
      expect(filtered).toEqual(whole);
      expect(whole.items.every((p) => (mode === "none" ? p.visibility === undefined : p.visibility !== undefined))).toBe(true);
    });
  });
});
