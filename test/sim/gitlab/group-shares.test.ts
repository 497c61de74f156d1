/** The GitLab simulator's group shares: generated with groupShares, their routes, and their faults and limits. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim } from "../../../sim/gitlab/index.ts";
import type { GitLabDataset, GitLabSim, SimGroup, SimProject } from "../../../sim/gitlab/index.ts";
import { READER, TOKENS, api, getJson, json, ids, enc, withSim } from "../../support/gitlab-api.ts";

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
      // One the reader can see (internal, as its group is): its refusal is the role's, not the visibility's.
      const project = sim.dataset.projects.find((p) => p.namespace_id === groupOf(sim.dataset, "acme/data_science").id)!;
      project.visibility = "internal";
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
