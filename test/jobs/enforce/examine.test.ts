import { afterEach, describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, ScopeError, exitCode, type EnforceOptions } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim, type GitLabSimOptions } from "../../../sim/gitlab/index.ts";
import type { TreeShape } from "../../../sim/gitlab/generate-tree.ts";
import { standardPolicy } from "../../support/policies.ts";
import { validated } from "../../support/report.ts";
import { enforceProgressText } from "../../../lib/jobs/enforce/view.ts";
import type { EnforceProgress } from "../../../lib/jobs/enforce/summary.ts";

let sim: GitLabSim;
afterEach(() => sim?.close());

async function setup(opts: GitLabSimOptions & { projects?: number } = {}) {
  const { dataset, intents } = generateOrganisation({ projects: opts.projects ?? 600, seed: 7 });
  sim = await startGitLabSim({ dataset, ...opts });
  const strays = intents.filter((i) => i.kind === "project" && i.intent === "stray").map((i) => `${i.projectId}:${i.groupId}`).sort();
  return { dataset, strays };
}

function run(opts: Partial<EnforceOptions> & { token?: string; maxRemovals?: number } = {}) {
  const gitlab = new GitLabClient({ url: sim.url, token: opts.token ?? sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  return validated(enforce({ gitlab, policy: parsePolicy(standardPolicy(opts.maxRemovals), "test.yaml"), ...opts }));
}

// This organisation has no group shares: every action is a project share's.
const projectActions = (report: Awaited<ReturnType<typeof run>>) => report.actions.filter((a) => a.kind === "project");
const planned = (report: Awaited<ReturnType<typeof run>>) => projectActions(report).map((a) => `${a.projectId}:${a.groupId}`).sort();
const shareCount = (sim: GitLabSim) => sim.dataset.projects.reduce((n, p) => n + p.shared_with_groups.length, 0);

describe("enforce job", () => {
  it("progress names its phase: examining with the counts so far, then removing N of the plan's total", async () => {
    const { strays } = await setup();
    const seen: EnforceProgress[] = [];
    const report = await run({ apply: true, onProgress: (p) => seen.push(p) });
    const phases = seen.map((p) => p.phase);
    expect(phases.indexOf("removing")).toBe(phases.lastIndexOf("examining") + 1);
    const removing = seen.filter((p) => p.phase === "removing");
    expect(removing.map((p) => p.done)).toEqual(strays.map((_, i) => i + 1));
    expect(removing.every((p) => p.total === strays.length)).toBe(true);
    expect(seen.findLast((p) => p.phase === "examining")).toMatchObject({ projects: report.summary.projects, strays: strays.length });
    expect(enforceProgressText(removing.at(-1)!)).toBe(`removing ${strays.length} / ${strays.length}`);
    expect(enforceProgressText({ phase: "examining", projects: 1204, groups: 1, strays: 12, totalProjects: 2000 })).toBe("examining 1,204 / ~2,000 projects, 1 group: 12 stray shares");
    expect(enforceProgressText({ phase: "examining", projects: 1, groups: 0, strays: 0 })).toBe("examining 1 project, 0 groups: 0 stray shares");
  });

  it("a dry run plans exactly the stray shares and changes nothing", async () => {
    const { strays } = await setup();
    const before = shareCount(sim);
    const report = await run();
    expect(strays.length).toBeGreaterThan(10);
    expect(planned(report)).toEqual(strays);
    expect(report.actions.every((a) => a.status === "planned" && a.reason.length > 0)).toBe(true);
    expect(report).toMatchObject({ job: "enforce", dryRun: true, summary: { guard: "ok", complete: true, strays: strays.length, removed: 0 } });
    expect(shareCount(sim)).toBe(before);
    expect(sim.counters.byRoute["DELETE /projects/:id/share/:group_id"]).toBeUndefined();
    expect(exitCode(report)).toBe(2);
  });

  it("reads each group in scope once, with its own projects: a project listing only for a group holding 100 or more, and the sweep; never per project", async () => {
    const { dataset, intents } = generateOrganisation({ projects: 1_500, seed: 7, tree: { groups: 30, maxDepth: 3, heavy: 0.3 } });
    sim = await startGitLabSim({ dataset, recordRequests: true });
    const strays = intents.filter((i) => i.kind === "project" && i.intent === "stray").map((i) => `${i.projectId}:${i.groupId}`).sort();
    const report = await run();
    expect(planned(report)).toEqual(strays);
    expect(sim.counters.byRoute["GET /projects/:id"]).toBeUndefined();
    const inAcme = dataset.groups.filter((g) => g.full_path === "acme" || g.full_path.startsWith("acme/"));
    const ownCount = (id: number) => dataset.projects.filter((p) => p.namespace_id === id).length;
    const full = inAcme.filter((g) => ownCount(g.id) >= 100);
    expect(full.length).toBeGreaterThan(0);
    expect(report.summary.projects).toBe(dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/")).length);
    expect(report.summary).toMatchObject({ groups: inAcme.length, groupReads: inAcme.length });
    const queries = sim.requests.filter((r) => r.url.startsWith("/api/v4/groups/")).map((r) => new URL(r.url, sim.url));
    expect(queries.filter((u) => /^\/api\/v4\/groups\/\d+$/.test(u.pathname)).every((u) => u.searchParams.get("with_projects") === "true")).toBe(true);
    const listings = queries.filter((u) => u.pathname.endsWith("/projects"));
    const [sweeps, samples, ownListings] = [
      listings.filter((u) => u.searchParams.get("order_by") === "updated_at"),
      listings.filter((u) => u.searchParams.get("order_by") === "id" && u.searchParams.get("include_subgroups") === "true"),
      listings.filter((u) => u.searchParams.get("order_by") === "id" && u.searchParams.get("include_subgroups") === "false"),
    ];
    // A sample of the scope's newest projects (for heavy groups to list early), the sweep for projects
    // moved meanwhile, and each group holding more than its detail carries: its own projects only.
    expect(samples.map((u) => u.searchParams.get("sort"))).toEqual(["desc"]);
    expect(sweeps.length + samples.length + ownListings.length).toBe(listings.length);
    expect(sweeps).toHaveLength(1);
    expect(new Set(ownListings.map((u) => Number(u.pathname.split("/")[4])))).toEqual(new Set(full.map((g) => g.id)));
    expect(ownListings.every((u) => u.searchParams.get("include_subgroups") === "false")).toBe(true);
    expect(ownListings.length).toBeLessThanOrEqual(full.reduce((n, g) => n + Math.ceil(ownCount(g.id) / 100), 0) + full.length);
    expect(sim.counters.byRoute["GET /groups/:id/descendant_groups"]).toBe(1);
  });

  it("a GitLab whose group details leave projects out (empty lists) is noticed against the sample: the scope group is listed as well, with a warning, and every project judged", async () => {
    const { dataset, strays } = await setup({ projects: 1_500, detailProjects: "empty" });
    const report = await run();
    expect(planned(report)).toEqual(strays);
    expect(report.summary.projects).toBe(dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/")).length);
    expect(report.warnings.join("\n")).toMatch(/\d+ of \d+ projects of acme listed as a sample were in no group's detail: GitLab's details leave projects out, so acme's projects were listed as well/);
  });

  it("two projects of the sample moved out of the scope before their groups' details come are not taken for details that leave projects out", async () => {
    const { dataset } = await setup({ projects: 1_500, recordRequests: true });
    const outside = dataset.groups.find((g) => g.full_path === "partners")!;
    let moved = 0;
    sim.beforeAnswer(({ route }) => {
      // Once the sample (the scope's newest projects) has been answered, the two newest leave the scope.
      if (moved || route !== "GET /groups/:id" || !sim.requests.some((r) => r.url.includes("sort=desc"))) return;
      const newest = dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/")).sort((a, b) => b.id - a.id).slice(0, 2);
      for (const project of newest) sim.moveProject(project.id, outside.id);
      moved = newest.length;
    });
    const report = await run();
    expect(moved).toBe(2);
    expect(report.warnings.join("\n")).not.toMatch(/leave projects out/);
    expect(report.summary.projects).toBe(dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/")).length);
    const wholeListings = sim.requests.filter((r) => r.url.includes("include_subgroups=true") && r.url.includes("sort=asc"));
    expect(wholeListings).toEqual([]);
  });

  it("a GitLab whose group details carry no projects: each scope group is listed once, with its subgroups and without projects shared into it, and each group read once", async () => {
    const { dataset } = await setup({ detailProjects: false });
    sim.requests.length = 0;
    const report = await run();
    expect(sim.counters.byRoute["GET /projects/:id"]).toBeUndefined();
    const listing = Object.keys(sim.counters.byRoute).filter((r) => r.startsWith("GET /groups/:id/projects"));
    expect(listing).toEqual(["GET /groups/:id/projects"]);
    // 600 projects in acme at 100 a page, and one sweep for projects moved meanwhile (by updated_at);
    // besides, the user check and the scope look-up.
    expect(sim.counters.byRoute["GET /groups/:id/projects"]).toBe(6 + 1);
    // Group shares: acme's descendants in one page, then one detail per group (acme has no ancestor).
    const groups = dataset.groups.filter((g) => g.full_path === "acme" || g.full_path.startsWith("acme/")).length;
    expect(sim.counters.byRoute["GET /groups/:id/descendant_groups"]).toBe(1);
    expect(sim.counters.byRoute["GET /groups/:id"]).toBe(groups);
    expect(report.summary).toMatchObject({ groups, groupShares: 0, groupReads: groups });
    // And the audit events of the groups recording the strays, to attribute them.
    expect(sim.counters.requests).toBe(9 + 1 + groups + report.stats.auditRequests!);
  });

  // The shapes a balanced listing must handle: one subgroup with 80% of the projects, six levels,
  // thousands of tiny groups, most projects directly in the scope group.
  const shapes: [string, TreeShape][] = [
    ["one heavy subgroup", { groups: 40, maxDepth: 4, heavy: 0.8 }],
    ["six levels deep", { groups: 120, maxDepth: 6 }],
    ["thousands of tiny groups", { groups: 2_000, maxDepth: 5 }],
    ["projects in the scope group itself", { groups: 30, maxDepth: 3, root: 0.7 }],
  ];
  const withDetails = shapes.flatMap(([name, tree]) => [true, false].map((details) => [name, details ? "with their groups' details" : "from listings alone", tree, details] as const));
  it.each(withDetails)("%s, projects %s: every project is judged exactly once, following GitLab's links, with every slot in use", async (_name, _how, tree, detailProjects) => {
    const { dataset, intents } = generateOrganisation({ projects: 3_000, seed: 3, tree });
    sim = await startGitLabSim({ dataset, latencyMs: 5, recordRequests: true, detailProjects });
    const strays = intents.filter((i) => i.kind === "project" && i.intent === "stray").map((i) => `${i.projectId}:${i.groupId}`).sort();
    const inScope = dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/")).length;
    const groups = dataset.groups.filter((g) => g.full_path === "acme" || g.full_path.startsWith("acme/")).length;
    const report = await run({ listConcurrency: 8 });
    expect(planned(report)).toEqual(strays);
    expect(report.summary).toMatchObject({ projects: inScope, shares: dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/")).reduce((n, p) => n + p.shared_with_groups.length, 0), groups });
    // The contract: follow the Link of each answer, never build a page's address.
    const projectPages = sim.requests.filter((r) => /\/groups\/\d+\/projects\?/.test(r.url)).map((r) => new URL(r.url, sim.url).searchParams);
    expect(projectPages.every((q) => !q.has("page") || q.get("page") !== "1")).toBe(true);
    // Splits cost a page read again and a partial page per partition: bounded by one of each per group.
    const pages = Math.ceil(inScope / 100);
    expect(sim.counters.byRoute["GET /groups/:id/projects"]).toBeLessThanOrEqual(pages + 2 * groups);
    expect(sim.counters.maxConcurrency).toBe(8);
  });

  it("listed as a tree (details without projects), one heavy branch is split as deep as its shape allows, so the listing is spread over the slots", async () => {
    const { dataset } = generateOrganisation({ projects: 3_000, seed: 3, tree: { groups: 40, maxDepth: 4, heavy: 0.8 } });
    sim = await startGitLabSim({ dataset, latencyMs: 5, detailProjects: false });
    await run({ listConcurrency: 8 });
    // Partitions below the scope group: its own projects' listing and subtrees of its subgroups.
    expect(sim.counters.byRoute["GET /groups/:id/subgroups"]).toBeGreaterThan(1);
  });

  it("a large group whose projects sit in it directly is split by visibility, each part read from both ends at once, each project once", async () => {
    const { dataset, intents } = generateOrganisation({ projects: 3_000, seed: 3, tree: { groups: 20, maxDepth: 3, heavy: 0.8 } });
    sim = await startGitLabSim({ dataset, recordRequests: true });
    const monolith = dataset.groups.find((g) => g.full_path === "acme/monolith")!;
    const inMonolith = dataset.projects.filter((p) => p.namespace_id === monolith.id).length;
    expect(inMonolith).toBeGreaterThan(1_000);
    const report = await run({ listConcurrency: 8 });
    const strays = intents.filter((i) => i.kind === "project" && i.intent === "stray").map((i) => `${i.projectId}:${i.groupId}`).sort();
    expect(planned(report)).toEqual(strays);
    expect(report.summary.projects).toBe(dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/")).length);
    const monolithPages = sim.requests.filter((r) => r.url.startsWith(`/api/v4/groups/${monolith.id}/projects?`)).map((r) => new URL(r.url, sim.url).searchParams);
    // No subgroup to split it by: three listings, one per visibility, each with both ends following
    // their own links, up by id from the first page, down from the last.
    expect(dataset.groups.some((g) => g.parent_id === monolith.id)).toBe(false);
    const parts = monolithPages.filter((q) => q.has("visibility"));
    expect(new Set(parts.map((q) => q.get("visibility")))).toEqual(new Set(["private", "internal", "public"]));
    expect(new Set(parts.map((q) => q.get("sort")))).toEqual(new Set(["asc", "desc"]));
    // The first page, which showed the group large, and a partial page more per part at most.
    expect(monolithPages.length).toBeLessThanOrEqual(Math.ceil(inMonolith / 100) + 1 + 3);
  });

  it("a heavy group whose detail comes last is listed from the start: a sample of the scope's newest projects shows it", async () => {
    const { dataset, intents } = generateOrganisation({ projects: 3_000, seed: 3, tree: { groups: 60, maxDepth: 3, heavy: 0.5 } });
    const monolith = dataset.groups.find((g) => g.full_path === "acme/monolith")!;
    // GitLab lists descendant groups by name: this one's detail is read last.
    monolith.name = "zzz monolith";
    sim = await startGitLabSim({ dataset, recordRequests: true, latencyMs: 5 });
    const report = await run({ listConcurrency: 4 });
    const strays = intents.filter((i) => i.kind === "project" && i.intent === "stray").map((i) => `${i.projectId}:${i.groupId}`).sort();
    expect(planned(report)).toEqual(strays);
    expect(report.summary.projects).toBe(dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/")).length);
    const paths = sim.requests.map((r) => new URL(r.url, sim.url).pathname);
    const details = paths.filter((p) => /^\/api\/v4\/groups\/\d+$/.test(p));
    expect(details.at(-1)).toBe(`/api/v4/groups/${monolith.id}`);
    // Its own listing began before all but a few details had been read.
    const begun = paths.indexOf(`/api/v4/groups/${monolith.id}/projects`);
    expect(begun).toBeGreaterThan(0);
    expect(paths.slice(0, begun).filter((p) => details.includes(p)).length).toBeLessThan(10);
  });

  it.each([
    ["ignores the visibility filter is noticed on the parts' first pages", "unfiltered", 3],
    ["shows no visibility on its projects is not asked for parts", "none", 0],
  ] as const)("a GitLab that %s: the group is read whole, from both ends, each project once", async (_name, projectVisibility, spent) => {
    const { dataset, intents } = generateOrganisation({ projects: 3_000, seed: 3, tree: { groups: 20, maxDepth: 3, heavy: 0.8 } });
    sim = await startGitLabSim({ dataset, recordRequests: true, projectVisibility });
    const monolith = dataset.groups.find((g) => g.full_path === "acme/monolith")!;
    const inMonolith = dataset.projects.filter((p) => p.namespace_id === monolith.id).length;
    const report = await run({ listConcurrency: 8 });
    const strays = intents.filter((i) => i.kind === "project" && i.intent === "stray").map((i) => `${i.projectId}:${i.groupId}`).sort();
    expect(planned(report)).toEqual(strays);
    expect(report.summary.projects).toBe(dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/")).length);
    const monolithPages = sim.requests.filter((r) => r.url.startsWith(`/api/v4/groups/${monolith.id}/projects?`)).map((r) => new URL(r.url, sim.url).searchParams);
    expect(monolithPages.filter((q) => q.has("visibility"))).toHaveLength(spent);
    expect(new Set(monolithPages.filter((q) => !q.has("visibility")).map((q) => q.get("sort")))).toEqual(new Set(["asc", "desc"]));
    // Its pages, asked for while the split was decided, are read on: no page is read twice.
    expect(monolithPages).toHaveLength(Math.ceil(inMonolith / 100) + spent);
  });

  it("listed as a tree (details without projects), above 10,000 projects (no total from GitLab) the tree is split, and every project is judged once", async () => {
    const { dataset } = generateOrganisation({ projects: 10_400, seed: 3, tree: { groups: 30, maxDepth: 4, heavy: 0.5 } });
    sim = await startGitLabSim({ dataset, detailProjects: false });
    const inScope = dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/")).length;
    expect(inScope).toBeGreaterThan(10_000);
    const report = await run({ listConcurrency: 6 });
    expect(report.summary.projects).toBe(inScope);
    expect(sim.counters.byRoute["GET /groups/:id/subgroups"]).toBeGreaterThanOrEqual(1);
    expect(sim.counters.byRoute["GET /groups/:id/projects"]).toBeLessThanOrEqual(Math.ceil(inScope / 100) + 2 * 31);
  });

  it("a token that sees only some groups never splits: one listing of the scope group, never by subgroup", async () => {
    await setup({ projects: 3_000, recordRequests: true, tokens: { "glpat-sim-admin": { admin: true }, "glpat-sim-member": { admin: false, username: "member" } } });
    await run({ token: "glpat-sim-member" });
    expect(sim.counters.byRoute["GET /groups/:id/subgroups"]).toBeUndefined();
    const listed = new Set(sim.requests.filter((r) => r.url.includes("/projects?")).map((r) => r.url.match(/groups\/(\d+)\/projects/)?.[1]));
    expect(listed).toEqual(new Set([String(sim.dataset.groups.find((g) => g.full_path === "acme")!.id)]));
  });

  it("apply removes exactly the planned shares, and the next dry run finds nothing", async () => {
    const { strays } = await setup({ recordRequests: true });
    const before = shareCount(sim);
    const applied = await run({ apply: true });
    expect(applied.actions.every((a) => a.status === "done")).toBe(true);
    expect(applied.summary.removed).toBe(strays.length);
    expect(shareCount(sim)).toBe(before - strays.length);
    const deleted = sim.requests.filter((r) => r.method === "DELETE").map((r) => r.url.match(/projects\/(\d+)\/share\/(\d+)/)!.slice(1).join(":"));
    expect(deleted.sort()).toEqual(strays);
    expect(exitCode(applied)).toBe(0);

    const again = await run();
    expect(again.actions).toEqual([]);
    expect(exitCode(again)).toBe(0);
  });

  it("the guard refuses a plan larger than maxRemovals and removes nothing", async () => {
    const { strays } = await setup();
    const before = shareCount(sim);
    const report = await run({ apply: true, maxRemovals: strays.length - 1 });
    expect(report.summary.guard).toBe("tripped");
    expect(report.actions.every((a) => a.status === "planned")).toBe(true);
    expect(report.warnings.join()).toMatch(/guard/);
    expect(shareCount(sim)).toBe(before);
    expect(exitCode(report)).toBe(3);
  });

  it("removals are idempotent: a share already gone is a success, reported as such", async () => {
    const { dataset, strays } = await setup();
    const inScope = dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/")).length;
    const [projectId, groupId] = strays[0]!.split(":").map(Number);
    const project = sim.dataset.projects.find((p) => p.id === projectId)!;
    // Someone removes one share by hand between our examination and our removal.
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry() });
    const report = await enforce({
      gitlab,
      policy: parsePolicy(standardPolicy(), "test.yaml"),
      apply: true,
      onProgress: (p) => {
        if (p.phase === "examining" && p.projects === inScope) project.shared_with_groups = project.shared_with_groups.filter((s) => s.group_id !== groupId);
      },
    });
    const gone = projectActions(report).filter((a) => a.status === "already-gone");
    expect(gone.map((a) => `${a.projectId}:${a.groupId}`)).toEqual([strays[0]]);
    expect(report.summary.alreadyGone).toBe(1);
    expect(exitCode(report)).toBe(0);
  });

  it("converges under faults: 429s, 5xx, dropped connections; a DELETE that succeeds but answers 502 is reported done", async () => {
    const { strays } = await setup();
    sim.addFaults(
      { kind: "429", headers: "retry-after", seconds: 0, route: "GET /groups/:id/projects", times: 2 },
      { kind: "429", headers: "none", route: "DELETE /projects/:id/share/:group_id", times: 1 },
      { kind: "status", status: 503, route: "GET /groups/:id/projects", times: 1 },
      { kind: "drop", route: "GET /groups/:id/projects", times: 1 },
      { kind: "apply-then-status", status: 502, route: "DELETE /projects/:id/share/:group_id", times: 3 },
    );
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5, rateLimitedBaseMs: 50 } });
    const report = await enforce({ gitlab, policy: parsePolicy(standardPolicy(), "test.yaml"), apply: true });
    expect(planned(report)).toEqual(strays);
    expect(report.actions.filter((a) => a.status === "failed")).toEqual([]);
    // The three DELETEs answered 502 after removing: their retry finds the share gone, which this run removed.
    expect(report.summary).toMatchObject({ removed: strays.length, alreadyGone: 0 });
    expect(report.stats.rateLimited).toBe(3);
    expect(report.stats.retries).toBeGreaterThanOrEqual(8);
    expect((await run()).actions).toEqual([]);
  });

  it("a plan grown old is judged again before removal: what changed meanwhile is skipped or found gone, not removed", async () => {
    const { dataset, strays } = await setup({ recordRequests: true });
    const inScope = dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/")).length;
    const share = (key: string) => {
      const [projectId, groupId] = key.split(":").map(Number);
      const project = dataset.projects.find((p) => p.id === projectId)!;
      return { project, share: project.shared_with_groups.find((g) => g.group_id === groupId)! };
    };
    // A contractor share above maxAccess on a mobile project, and any other stray.
    const tooHigh = strays.find((k) => { const { share: g, project } = share(k); return g.group_full_path === "partners/contractor-x" && project.path_with_namespace.startsWith("acme/mobile/"); })!;
    const other = strays.find((k) => k !== tooHigh)!;
    const report = await run({
      apply: true,
      maxPlanAgeMs: 0,
      onProgress: (p) => {
        if (p.phase !== "examining" || p.projects < inScope) return;
        // After the last page, before the first removal: an owner fixes one share and removes another.
        share(tooHigh).share.group_access_level = 30;
        const { project } = share(other);
        project.shared_with_groups = project.shared_with_groups.filter((g) => `${project.id}:${g.group_id}` !== other);
      },
    });
    const status = (key: string) => projectActions(report).find((a) => `${a.projectId}:${a.groupId}` === key)!;
    expect(status(tooHigh)).toMatchObject({ status: "skipped", error: expect.stringMatching(/^changed since it was planned \(now allowed by allow\[1\]/) });
    expect(status(other).status).toBe("already-gone");
    expect(report.summary).toMatchObject({ skipped: 1, alreadyGone: 1, removed: strays.length - 2, failed: 0 });
    const deleted = sim.requests.filter((r) => r.method === "DELETE").map((r) => r.url.match(/projects\/(\d+)\/share\/(\d+)/)!.slice(1).join(":"));
    expect(deleted).not.toContain(tooHigh);
    expect(deleted).not.toContain(other);
    // One fresh read per project with strays, however many strays it has.
    expect(sim.counters.byRoute["GET /projects/:id"]).toBe(new Set(strays.map((k) => k.split(":")[0])).size);
    expect(exitCode(report)).toBe(0);
  });

  it("the re-reads of an old plan go out ahead of its removals, alongside them, once per project", async () => {
    const { strays } = await setup({ latencyMs: 10 });
    const report = await run({ apply: true, maxPlanAgeMs: 0, concurrency: 2, listConcurrency: 1 });
    expect(report.summary.removed).toBe(strays.length);
    expect(sim.counters.byRoute["GET /projects/:id"]).toBe(new Set(strays.map((k) => k.split(":")[0])).size);
    // One request at a time while listing; while removing, two reads ahead beside two removals.
    expect(sim.counters.maxConcurrency).toBe(4);
  });

  it("a fresh plan is removed without reading projects again", async () => {
    await setup();
    await run({ apply: true });
    expect(sim.counters.byRoute["GET /projects/:id"]).toBeUndefined();
  });

  it("a 404 that is not GitLab's 'Group Link Not Found' (the project gone from the token's sight) is a failure, not success", async () => {
    await setup();
    sim.addFaults({ kind: "status", status: 404, route: "DELETE /projects/:id/share/:group_id", times: 1 });
    const report = await run({ apply: true, concurrency: 1 });
    expect(report.actions.filter((a) => a.status === "failed").map((a) => a.error)).toEqual([expect.stringMatching(/answered 404: 404 Not Found/)]);
  });

  it.each([
    ["listing", "GET /groups/:id/projects", false],
    ["group's detail", "GET /groups/:id", true],
  ] as const)("when one %s fails, the others stop too", async (_what, route, detailProjects) => {
    await setup({ projects: 3_000, latencyMs: 10, detailProjects });
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry() });
    let seen = 0;
    // Partitions (or detail reads) are running by the third answer; the next request of that route is refused.
    const failing = enforce({ gitlab, policy: parsePolicy(standardPolicy(), "test.yaml"), onProgress: () => seen++ === 3 && sim.addFaults({ kind: "status", status: 403, route, times: 1 }) });
    await expect(failing).rejects.toThrow(/answered 403/);
    const atFailure = sim.counters.requests;
    await new Promise((r) => setTimeout(r, 300));
    expect(sim.counters.requests).toBe(atFailure);
  });

  it("a group's detail that is not one (JSON without its fields) fails the run, naming the group: it would pass for a group without shares or projects", async () => {
    await setup();
    sim.addFaults({ kind: "status", status: 200, route: "GET /groups/:id", times: 1 });
    await expect(run()).rejects.toThrow(/GET \/groups\/\d+ answered with JSON that is not a group's detail/);
    expect(Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "))).toEqual([]);
  });

  it("a failed removal is reported with its error and the others go on", async () => {
    const { strays } = await setup();
    sim.addFaults({ kind: "status", status: 403, route: "DELETE /projects/:id/share/:group_id", times: 1 });
    const report = await run({ apply: true, concurrency: 1 });
    const failed = report.actions.filter((a) => a.status === "failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]!.error).toMatch(/403/);
    expect(report.summary.removed).toBe(strays.length - 1);
    expect(exitCode(report)).toBe(1);
  });

  it("warns that shares with invisible groups were not checked when the token is not an administrator", async () => {
    await setup({ tokens: { "glpat-sim-admin": { admin: true }, "glpat-sim-member": { admin: false, username: "member" } } });
    const report = await run({ token: "glpat-sim-member" });
    expect(report.warnings.join()).toMatch(/not an administrator or auditor/);
    // Private groups' shares are hidden from this token, so fewer strays are seen.
    expect(report.summary.strays).toBeLessThan((await run()).summary.strays);
  });

  it("a scope group that does not exist stops the run before anything changes", async () => {
    await setup();
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry() });
    const policy = parsePolicy(standardPolicy().replace("groups: [acme]", "groups: [acme, nope]"), "test.yaml");
    await expect(enforce({ gitlab, policy, apply: true })).rejects.toThrow(ScopeError);
    await expect(enforce({ gitlab, policy, apply: true })).rejects.toThrow(/gitlab.scope.groups: group "nope" was not found/);
    expect(sim.counters.byRoute["DELETE /projects/:id/share/:group_id"]).toBeUndefined();
  });

  it("a policy without a gitlab section is an error naming the section, before any request", async () => {
    await setup();
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry() });
    const policy = parsePolicy("version: 1\n", "test.yaml");
    await expect(enforce({ gitlab, policy })).rejects.toThrow(/^the policy has no gitlab section/);
    await expect(enforce({ gitlab, policy, apply: true })).rejects.toThrow(ScopeError);
    expect(sim.counters.requests).toBe(0);
  });

  it("a group named twice in the scope (any case), or inside another scope group, is listed once", async () => {
    const { strays } = await setup();
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry() });
    const policy = parsePolicy(standardPolicy().replace("groups: [acme]", "groups: [acme, ACME, acme/mobile]"), "test.yaml");
    const report = await enforce({ gitlab, policy });
    expect(planned(report)).toEqual(strays);
    expect(sim.counters.byRoute["GET /namespaces/:id"]).toBe(1);
  });

  it("an apply interrupted mid-removal reports the removals in flight as failed, saying they may be done", async () => {
    await setup({ latencyMs: 30 });
    const stop = new AbortController();
    const audit: Record<string, unknown>[] = [];
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry() });
    const running = enforce({ gitlab, policy: parsePolicy(standardPolicy(), "test.yaml"), apply: true, concurrency: 2, signal: stop.signal, audit: { info: (_m, f) => audit.push(f) } });
    const interval = setInterval(() => (sim.counters.byRoute["DELETE /projects/:id/share/:group_id"] ?? 0) >= 3 && stop.abort(new Error("deadline")), 5);
    const report = await running;
    clearInterval(interval);
    const interrupted = report.actions.filter((a) => a.error?.startsWith("stopped while removing the share (deadline): it may or may not have happened"));
    expect(interrupted.length).toBeGreaterThan(0);
    expect(interrupted.every((a) => a.status === "failed")).toBe(true);
    expect(report.actions.filter((a) => a.status === "planned").length).toBeGreaterThan(0);
    expect(report.warnings.join()).toMatch(/stopped before \d+ of \d+ removals \(deadline\)/);
    expect(report.summary.complete).toBe(false);
    expect(audit.length).toBe(report.actions.filter((a) => a.status !== "planned").length);
    expect(exitCode(report)).toBe(1);
  });

  it("without a scope, governs the whole instance by keyset", async () => {
    await setup();
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry() });
    const policy = parsePolicy(standardPolicy().replace("  scope: { groups: [acme] }\n", ""), "test.yaml");
    const report = await enforce({ gitlab, policy });
    expect(report.summary.projects).toBe(sim.dataset.projects.length);
    // One tiny page to learn the size, then one keyset listing in full pages.
    expect(sim.counters.byRoute["GET /projects"]).toBe(1 + Math.ceil(sim.dataset.projects.length / 100));
  });

  it("lists a large instance in parallel id ranges, each by keyset, judging every project once", async () => {
    const { dataset } = await setup({ projects: 3_000, latencyMs: 5, recordRequests: true });
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry() });
    const policy = parsePolicy(standardPolicy().replace("  scope: { groups: [acme] }\n", ""), "test.yaml");
    const report = await enforce({ gitlab, policy, listConcurrency: 3 });
    expect(report.summary.projects).toBe(dataset.projects.length);
    expect(report.summary.shares).toBe(dataset.projects.reduce((n, p) => n + p.shared_with_groups.length, 0));
    expect(sim.counters.maxConcurrency).toBeGreaterThan(1);
    // Six ranges: five with an upper bound that every page of theirs keeps, the last open-ended.
    const bounds = new Set(sim.requests.map((r) => new URL(r.url, sim.url).searchParams.get("id_before")).filter(Boolean));
    expect(bounds.size).toBe(5);
    // Six ranges (twice the listing concurrency): at most one partial page each, and the size probe.
    expect(sim.counters.byRoute["GET /projects"]).toBeLessThanOrEqual(1 + Math.ceil(dataset.projects.length / 100) + 6);
  });

  it("stops listing when the signal fires, reports where, and removes nothing", async () => {
    await setup({ latencyMs: 20 });
    const stop = new AbortController();
    const report = await run({ apply: true, signal: stop.signal, onProgress: (p) => p.phase === "examining" && p.projects >= 200 && stop.abort(new Error("deadline")) });
    expect(report.summary.complete).toBe(false);
    expect(report.summary.removed).toBe(0);
    expect(report.warnings.join()).toMatch(/stopped while listing after \d+ projects \(deadline\), with \d+ groups read/);
    expect(exitCode(report)).toBe(1);
  });
});
