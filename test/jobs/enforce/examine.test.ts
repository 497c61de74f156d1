/** The enforce job as it examines: the plan of a dry run, what it reads and how it splits the listing, the shapes of GitLab it copes with, and its stop. */
import { describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, exitCode } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { generateOrganisation } from "../../../sim/gitlab/index.ts";
import type { TreeShape } from "../../../sim/gitlab/generate-tree.ts";
import { standardPolicy } from "../../support/policies.ts";
import { enforceProgressText } from "../../../lib/jobs/enforce/view.ts";
import type { EnforceProgress } from "../../../lib/jobs/enforce/summary.ts";
import { planned, run, setup, shareCount, sim, startSim } from "../../support/enforce-world.ts";

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
    await startSim({ dataset, recordRequests: true });
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
    // 600 projects in acme at 100 a page, read from both ends: one page more where they meet, which shows
    // none between them was missed; one sweep for projects moved meanwhile (by updated_at); besides,
    // the user check and the scope look-up.
    expect(sim.counters.byRoute["GET /groups/:id/projects"]).toBe(6 + 1 + 1);
    // Group shares: acme's descendants in one page, then one detail per group (acme has no ancestor).
    const groups = dataset.groups.filter((g) => g.full_path === "acme" || g.full_path.startsWith("acme/")).length;
    expect(sim.counters.byRoute["GET /groups/:id/descendant_groups"]).toBe(1);
    expect(sim.counters.byRoute["GET /groups/:id"]).toBe(groups);
    expect(report.summary).toMatchObject({ groups, groupShares: 0, groupReads: groups });
    // And the audit events of the groups recording the strays, to attribute them.
    // And beside the token check, the read that tells whether the token acts as an administrator.
    expect(sim.counters.requests).toBe(10 + 1 + groups + report.stats.auditRequests! + 1);
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
    // 20 ms a request: long enough that the slots fill before the first answer, on a loaded machine too.
    await startSim({ dataset, latencyMs: 20, recordRequests: true, detailProjects });
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
    await startSim({ dataset, latencyMs: 5, detailProjects: false });
    await run({ listConcurrency: 8 });
    // Partitions below the scope group: its own projects' listing and subtrees of its subgroups.
    expect(sim.counters.byRoute["GET /groups/:id/subgroups"]).toBeGreaterThan(1);
  });

  it("a large group whose projects sit in it directly is split by visibility, each part read from both ends at once, each project once", async () => {
    const { dataset, intents } = generateOrganisation({ projects: 3_000, seed: 3, tree: { groups: 20, maxDepth: 3, heavy: 0.8 } });
    await startSim({ dataset, recordRequests: true });
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
    // Warden lists descendant groups by id: with the highest id of any namespace, this one's detail is read last.
    const last = 1_000_000;
    for (const p of dataset.projects) if (p.namespace_id === monolith.id) p.namespace_id = last;
    for (const g of dataset.groups) if (g.parent_id === monolith.id) g.parent_id = last;
    monolith.id = last;
    await startSim({ dataset, recordRequests: true, latencyMs: 5 });
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
    await startSim({ dataset, recordRequests: true, projectVisibility });
    const monolith = dataset.groups.find((g) => g.full_path === "acme/monolith")!;
    const inMonolith = dataset.projects.filter((p) => p.namespace_id === monolith.id).length;
    const report = await run({ listConcurrency: 8 });
    const strays = intents.filter((i) => i.kind === "project" && i.intent === "stray").map((i) => `${i.projectId}:${i.groupId}`).sort();
    expect(planned(report)).toEqual(strays);
    expect(report.summary.projects).toBe(dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/")).length);
    const monolithPages = sim.requests.filter((r) => r.url.startsWith(`/api/v4/groups/${monolith.id}/projects?`)).map((r) => new URL(r.url, sim.url).searchParams);
    expect(monolithPages.filter((q) => q.has("visibility"))).toHaveLength(spent);
    expect(new Set(monolithPages.filter((q) => !q.has("visibility")).map((q) => q.get("sort")))).toEqual(new Set(["asc", "desc"]));
    // Its pages, asked for while the split was decided, are read on: no page is read twice, but for one
    // where the two ends meet (both-ends.ts).
    expect(monolithPages).toHaveLength(Math.ceil(inMonolith / 100) + spent + 1);
  });

  it("listed as a tree (details without projects), above 10,000 projects (no total from GitLab) the tree is split, and every project is judged once", async () => {
    const { dataset } = generateOrganisation({ projects: 10_400, seed: 3, tree: { groups: 30, maxDepth: 4, heavy: 0.5 } });
    await startSim({ dataset, detailProjects: false });
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
    expect(report.summary).toMatchObject({ complete: false, cutShort: true });
    expect(report.summary.removed).toBe(0);
    expect(report.warnings.join()).toMatch(/stopped while listing after \d+ projects \(deadline\), with \d+ groups read/);
    expect(exitCode(report)).toBe(1);
  });
});
