/**
 * The client's share calls against the GitLab simulator over real sockets: what each answer means
 * ("removed" vs "already-gone", "created" vs "exists", errors), and that a POST which may have
 * reached GitLab is never sent twice.
 */
import { describe, expect, it } from "vitest";
import { HttpError, NetworkError, type GitLabClient, type NewShare } from "../../lib/gitlab/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim, type GitLabSimOptions, type SimGroup } from "../../sim/gitlab/index.ts";
import { afterTest } from "../support/cleanup.ts";
import { gitlabClient } from "../support/spec.ts";


const NOW = new Date("2026-03-10T12:00:00Z");

async function gitlab(opts: Omit<GitLabSimOptions, "dataset"> = {}): Promise<{ sim: GitLabSim; client: GitLabClient; group: (path: string) => SimGroup }> {
  const dataset = generateOrganisation({ projects: 120, seed: 5, groupShares: true, now: NOW }).dataset;
  const sim = afterTest.add(await startGitLabSim({ ...opts, dataset }));
  const group = (path: string) => dataset.groups.find((g) => g.full_path === path)!;
  return { sim, client: gitlabClient(sim.url, sim.token), group };
}

const linkIds = (g: SimGroup): number[] => g.shared_with_groups.map((s) => s.group_id);
const failure = (promise: Promise<unknown>): Promise<unknown> => promise.then(() => undefined, (err: unknown) => err);

describe("getGroup", () => {
  it("reads the detail with its shares, never with embedded projects", async () => {
    const { sim, client, group } = await gitlab({ recordRequests: true });
    const detail = await client.getGroup("acme/platform");
    expect(detail.shared_with_groups).toEqual(group("acme/platform").shared_with_groups);
    expect(detail.shared_with_groups.length).toBeGreaterThan(0);
    expect(detail).not.toHaveProperty("projects");
    expect(sim.requests.map((r) => r.url)).toEqual(["/api/v4/groups/acme%2Fplatform?with_projects=false"]);
  });
});

describe.each([
  { kind: "group", route: "DELETE /groups/:id/share/:group_id" },
  { kind: "project", route: "DELETE /projects/:id/share/:group_id" },
] as const)("unshare ($kind shares)", ({ kind, route }) => {
  /** A target with a share, the call removing it, and whether it is still there. */
  async function setup(opts: Omit<GitLabSimOptions, "dataset"> = {}) {
    const env = await gitlab(opts);
    const { sim, client, group } = env;
    if (kind === "group") {
      const sharing = group("acme/mobile");
      const groupId = sharing.shared_with_groups[0]!.group_id;
      return { ...env, groupId, unshare: (id = groupId) => client.unshareGroup(sharing.full_path, id), present: () => linkIds(sharing).includes(groupId), unknown: () => client.unshareGroup(999_999, groupId) };
    }
    const project = sim.dataset.projects.find((p) => p.shared_with_groups.length > 0)!;
    const groupId = project.shared_with_groups[0]!.group_id;
    return { ...env, groupId, unshare: (id = groupId) => client.unshareProject(project.id, id), present: () => project.shared_with_groups.some((s) => s.group_id === groupId), unknown: () => client.unshareProject(999_999, groupId) };
  }

  it("204 is removed; a plain 404 Group Link Not Found is already-gone", async () => {
    const { sim, unshare, present } = await setup();
    expect(await unshare()).toBe("removed");
    expect(present()).toBe(false);
    expect(await unshare()).toBe("already-gone");
    expect(sim.counters.byRoute[route]).toBe(2);
  });

  it.each([
    { fault: { kind: "apply-then-status", status: 500 } as const, why: "a 500" },
    { fault: { kind: "apply-then-status", status: 502 } as const, why: "a 502" },
    { fault: { kind: "apply-then-drop" } as const, why: "a connection lost" },
  ])("after $why that followed the removal, the retry's 404 means this run removed it", async ({ fault }) => {
    const { sim, unshare, present } = await setup();
    sim.addFaults({ ...fault, route, times: 1 });
    expect(await unshare()).toBe("removed");
    expect(present()).toBe(false);
    expect(sim.counters.byRoute[route]).toBe(2);
    expect(sim.counters.status["404"]).toBe(1);
  });

  it("a failure before anything was applied, then 404, is already-gone only if no attempt could have applied", async () => {
    const { sim, unshare, groupId } = await setup();
    await unshare();
    // A 429 is refused before anything happens: the 404 that follows is GitLab's word alone.
    sim.addFaults({ kind: "429", headers: "retry-after", seconds: 0, route, times: 1 });
    expect(await unshare(groupId)).toBe("already-gone");
    expect(sim.counters.byRoute[route]).toBe(3);
  });

  it(`a 404 about the ${kind} itself is an error, not a share gone`, async () => {
    const { unknown } = await setup();
    const err = await failure(unknown());
    expect(err).toBeInstanceOf(HttpError);
    expect(err).toMatchObject({ status: 404, serviceMessage: `404 ${kind === "group" ? "Group" : "Project"} Not Found`, route });
  });
});

describe("unshareGroup and the 204 trap", () => {
  it("answers removed for a token that is not Owner, though GitLab kept the share: only reading again tells", async () => {
    const { sim, group } = await gitlab({ tokens: { "glpat-sim-admin": { admin: true }, "glpat-sim-auditor": { admin: false, auditor: true, username: "carol" } } });
    const auditor = gitlabClient(sim.url, "glpat-sim-auditor");
    const sharing = group("acme/mobile");
    const groupId = sharing.shared_with_groups[0]!.group_id;
    expect(await auditor.unshareGroup(sharing.id, groupId)).toBe("removed");
    expect((await auditor.getGroup(sharing.id)).shared_with_groups.map((s) => s.group_id)).toContain(groupId);
  });
});

describe.each([
  { kind: "group", route: "POST /groups/:id/share" },
  { kind: "project", route: "POST /projects/:id/share" },
] as const)("share ($kind shares)", ({ kind, route }) => {
  async function setup(opts: Omit<GitLabSimOptions, "dataset"> = {}) {
    const env = await gitlab(opts);
    const { sim, client, group } = env;
    const invited = group("partners/agency-y");
    const share: NewShare = { groupId: invited.id, accessLevel: 20, expiresAt: "2026-06-01", memberRoleId: kind === "group" ? 7 : null };
    if (kind === "group") {
      const sharing = group("acme/Web.Team");
      return { ...env, share, create: (s = share, on: number | string = sharing.full_path) => client.shareGroup(on, s), links: () => sharing.shared_with_groups.filter((s) => s.group_id === invited.id) };
    }
    const project = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/platform/"))!;
    return { ...env, share, create: (s = share, on: number | string = project.path_with_namespace) => client.shareProject(on, s), links: () => project.shared_with_groups.filter((s) => s.group_id === invited.id) };
  }

  it("201 is created, with level, expiry and custom role; then 409 is exists", async () => {
    const { sim, create, links, share } = await setup();
    expect(await create()).toBe("created");
    const expected = { group_access_level: 20, expires_at: "2026-06-01", ...(kind === "group" ? { member_role_id: 7 } : {}) };
    expect(links()).toEqual([expect.objectContaining(expected)]);
    expect(await create({ ...share, accessLevel: 30 })).toBe("exists");
    expect(links()).toEqual([expect.objectContaining(expected)]);
    expect(sim.counters.byRoute[route]).toBe(2);
  });

  it("leaves out expires_at when the share does not expire", async () => {
    const { create, links, share } = await setup();
    expect(await create({ ...share, expiresAt: null, memberRoleId: undefined })).toBe("created");
    expect(links()).toEqual([expect.objectContaining({ expires_at: null })]);
  });

  it("refusals are HttpErrors carrying GitLab's reason: a bad level (400), an unknown group (404)", async () => {
    const { create, links, share } = await setup();
    expect(await failure(create({ ...share, accessLevel: 25 }))).toMatchObject({ name: "HttpError", status: 400, serviceMessage: "group_access does not have a valid value" });
    expect(await failure(create({ ...share, groupId: 999_999 }))).toMatchObject({ name: "HttpError", status: 404 });
    expect(await failure(create(share, 999_999))).toMatchObject({ name: "HttpError", status: 404, serviceMessage: `404 ${kind === "group" ? "Group" : "Project"} Not Found` });
    expect(links()).toEqual([]);
  });

  it.each([
    { fault: { kind: "apply-then-status", status: 502 } as const, error: HttpError },
    { fault: { kind: "apply-then-status", status: 500 } as const, error: HttpError },
    { fault: { kind: "apply-then-drop" } as const, error: NetworkError },
  ])("an answer lost after GitLab created the share ($fault.kind $fault.status) is not sent again", async ({ fault, error }) => {
    const { sim, create, links } = await setup();
    sim.addFaults({ ...fault, route, times: 1 });
    expect(await failure(create())).toBeInstanceOf(error);
    expect(sim.counters.byRoute[route]).toBe(1);
    expect(links()).toHaveLength(1);
  });

  it("a 429, refused before anything happened, is sent again", async () => {
    const { sim, create, links } = await setup();
    sim.addFaults({ kind: "429", headers: "retry-after", seconds: 0, route, times: 1 });
    expect(await create()).toBe("created");
    expect(sim.counters.byRoute[route]).toBe(2);
    expect(links()).toHaveLength(1);
  });
});

describe("shareProject refusals", () => {
  it("sharing locked (400) and the project's own group or an ancestor (409) are errors, not exists", async () => {
    const { sim, client, group } = await gitlab();
    const project = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/mobile/ios/"))!;
    const share = (groupId: number) => client.shareProject(project.id, { groupId, accessLevel: 20, expiresAt: null });
    expect(await failure(share(group("acme/mobile").id))).toMatchObject({
      name: "HttpError",
      status: 409,
      serviceMessage: "Project cannot be shared with the group it is in or one of its ancestors.",
    });
    group("acme/mobile").share_with_group_lock = true;
    expect(await failure(share(group("freelancers").id))).toMatchObject({ name: "HttpError", status: 400, serviceMessage: "The project sharing with group is disabled" });
    expect(project.shared_with_groups.map((s) => s.group_id)).not.toContain(group("freelancers").id);
  });
});

describe("round trip", () => {
  it("unshare then share again with the same terms leaves both kinds exactly as they were", async () => {
    const { sim, client, group } = await gitlab();
    const sharing = group("acme/mobile");
    const project = sim.dataset.projects.find((p) => p.shared_with_groups.some((s) => s.expires_at !== null))!;
    const before = structuredClone({ group: sharing.shared_with_groups, project: project.shared_with_groups });
    for (const s of before.group) expect(await client.unshareGroup(sharing.id, s.group_id)).toBe("removed");
    for (const s of before.project) expect(await client.unshareProject(project.id, s.group_id)).toBe("removed");
    expect([sharing.shared_with_groups, project.shared_with_groups]).toEqual([[], []]);
    const terms = (s: (typeof before.group)[number]): NewShare => ({ groupId: s.group_id, accessLevel: s.group_access_level, expiresAt: s.expires_at, memberRoleId: s.member_role_id });
    for (const s of before.group) expect(await client.shareGroup(sharing.id, terms(s))).toBe("created");
    for (const s of before.project) expect(await client.shareProject(project.id, terms(s))).toBe("created");
    expect({ group: sharing.shared_with_groups, project: project.shared_with_groups }).toEqual(before);
  });
});
