/** The GitLab simulator's projects moving between groups mid-listing, ordered by updated_at, and their visibility. */
import { describe, expect, it } from "vitest";
import { generateOrganisation } from "../../../sim/gitlab/index.ts";
import type { GitLabDataset, GitLabSim, SimGroup } from "../../../sim/gitlab/index.ts";
import { api, getJson, links, json, ids, enc, withSim } from "../../support/gitlab-api.ts";

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
