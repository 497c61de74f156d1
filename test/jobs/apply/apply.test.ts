import { afterEach, describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { applyPlan, enforce, exitCode, planFile, readPlanFile, type ShareRemoval } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { ACCESS, generateOrganisation, startGitLabSim, type GitLabSim, type SimGroup, type SimProject } from "../../../sim/gitlab/index.ts";
import { groupSharesPolicy } from "../../support/policies.ts";

let sim: GitLabSim;
afterEach(() => sim?.close());

const DAY = 86_400_000;
const client = () => new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
const key = (a: ShareRemoval) => (a.kind === "project" ? `p${a.projectId}:${a.groupId}` : `g${a.sharedGroupId}:${a.groupId}`);
const shareOn = (g: SimGroup, level: number = ACCESS.developer) => ({ group_id: g.id, group_name: g.name, group_full_path: g.full_path, group_access_level: level, expires_at: null });

/**
 * The simulator's organisation with a stray share (developer, no expiry) added on each of seven
 * projects outside acme/legacy and acme/mobile: partners/agency-y, no rule allows it; on the last,
 * partners/contractor-x, allowed only on acme/mobile/**.
 */
async function world(maxRemovals?: number) {
  const { dataset } = generateOrganisation({ projects: 200, seed: 11, groupShares: true });
  sim = await startGitLabSim({ dataset, recordRequests: true });
  const group = (path: string) => dataset.groups.find((g) => g.full_path === path)!;
  const [agency, contractor] = [group("partners/agency-y"), group("partners/contractor-x")];
  const projects = dataset.projects
    .filter((p) => /^acme\//.test(p.path_with_namespace) && !/^acme\/(legacy|mobile)\//.test(p.path_with_namespace))
    .filter((p) => !p.shared_with_groups.some((s) => s.group_id === agency.id || s.group_id === contractor.id))
    .slice(0, 8);
  projects.slice(0, 7).forEach((p, i) => p.shared_with_groups.push(shareOn(i === 6 ? contractor : agency)));
  const policy = parsePolicy(groupSharesPolicy(maxRemovals), "warden.yaml");
  const report = await enforce({ gitlab: client(), policy });
  expect(report.summary.complete).toBe(true);
  const written = planFile({ removals: report.actions, policy, gitlabUrl: sim.url, createdAt: new Date(), wardenVersion: "0.0.0-test", unmatchedRules: [] });
  const read = readPlanFile(JSON.stringify(written), "plan.json", { gitlabUrl: sim.url, maxAgeMs: DAY, now: new Date() });
  return { dataset, group, agency, contractor, projects, ...read };
}

const shareOf = (p: SimProject, groupId: number) => p.shared_with_groups.find((s) => s.group_id === groupId);

describe("apply: a saved plan, applied after the world changed under it", () => {
  it("removes only what the plan lists and is still as planned; skips with the reason whatever changed", async () => {
    const { group, agency, contractor, projects, plan, policy } = await world();
    const [gone, raised, lowered, expiry, exempt, unchanged, allowed, untouched] = projects as [SimProject, ...SimProject[]];
    expect(plan.removals.length).toBeGreaterThan(14);
    // The world changes: one share removed, two changed in level, one in expiry; two projects moved
    // where the plan's policy exempts or allows them; and new stray shares, on a planned project and another.
    gone.shared_with_groups = gone.shared_with_groups.filter((s) => s.group_id !== agency.id);
    shareOf(raised!, agency.id)!.group_access_level = ACCESS.maintainer;
    shareOf(lowered!, agency.id)!.group_access_level = ACCESS.reporter;
    shareOf(expiry!, agency.id)!.expires_at = "2099-01-01";
    sim.moveProject(exempt!.id, group("acme/legacy").id);
    sim.moveProject(allowed!.id, group("acme/mobile").id);
    unchanged!.shared_with_groups.push(shareOn(contractor, ACCESS.maintainer));
    untouched!.shared_with_groups.push(shareOn(agency));

    const report = await applyPlan({ gitlab: client(), plan, policy, apply: true });
    const byKey = new Map(report.actions.map((a) => [key(a), a]));
    const of = (p: SimProject, g = agency) => byKey.get(`p${p.id}:${g.id}`)!;
    expect(report.actions.map(key)).toEqual(plan.removals.map((r) => key(r as ShareRemoval)));
    expect(of(gone)).toMatchObject({ status: "already-gone" });
    expect(of(raised!)).toMatchObject({ status: "skipped", error: expect.stringContaining("access level raised from developer to maintainer") });
    expect(of(lowered!)).toMatchObject({ status: "skipped", error: expect.stringContaining("access level lowered from developer to reporter") });
    expect(of(expiry!)).toMatchObject({ status: "skipped", error: expect.stringContaining("expiry changed from none to 2099-01-01") });
    expect(of(exempt!)).toMatchObject({ status: "skipped", error: expect.stringMatching(/now exempt by exempt\[0\]/) });
    expect(of(allowed!, contractor)).toMatchObject({ status: "skipped", error: expect.stringMatching(/now allowed by allow\[1\]/) });
    expect(of(unchanged!)).toMatchObject({ status: "done" });
    expect(report.actions.filter((a) => a.status === "done")).toHaveLength(plan.removals.length - 6);
    expect(report.summary).toMatchObject({ strays: plan.removals.length, removed: plan.removals.length - 6, alreadyGone: 1, skipped: 5, failed: 0, guard: "ok", complete: true });
    // What changed is still there; what the plan did not list was never touched.
    for (const p of [raised, lowered, expiry, exempt]) expect(shareOf(p!, agency.id)).toBeDefined();
    expect(shareOf(allowed!, contractor.id)).toBeDefined();
    expect(shareOf(unchanged!, contractor.id)).toBeDefined();
    expect(shareOf(untouched!, agency.id)).toBeDefined();
    expect(shareOf(unchanged!, agency.id)).toBeUndefined();
    expect(exitCode(report)).toBe(0);
  });

  it("a dry run (no apply) sends only GETs, removes nothing, and reports what it would remove", async () => {
    const { agency, projects, plan, policy } = await world();
    shareOf(projects[1]!, agency.id)!.group_access_level = ACCESS.maintainer;
    sim.resetCounters();
    const report = await applyPlan({ gitlab: client(), plan, policy });
    expect(sim.requests.length).toBeGreaterThan(0);
    expect(new Set(sim.requests.map((r) => r.method))).toEqual(new Set(["GET"]));
    expect(report).toMatchObject({ job: "apply", dryRun: true, summary: { strays: plan.removals.length, removed: 0, skipped: 1 } });
    expect(report.actions.filter((a) => a.status === "planned")).toHaveLength(plan.removals.length - 1);
    expect(shareOf(projects[0]!, agency.id)).toBeDefined();
    expect(exitCode(report)).toBe(2);
  });

  it("the guard counts the plan: more removals than the plan's policy allows exits 3 with nothing removed", async () => {
    const { plan, policy } = await world(5);
    sim.resetCounters();
    const report = await applyPlan({ gitlab: client(), plan, policy, apply: true });
    expect(report.summary).toMatchObject({ guard: "tripped", removed: 0, maxRemovals: 5 });
    expect(report.warnings.join("\n")).toMatch(new RegExp(`guard: the plan lists ${plan.removals.length} removals, more than its policy's gitlab.guard.maxRemovals \\(5\\)`));
    expect(sim.requests.filter((r) => r.method !== "GET")).toEqual([]);
    expect(exitCode(report)).toBe(3);
  });

  it("a plan listing far more removals than the guard allows (an edited artifact, a million entries) is not read share by share: one request, nothing removed", async () => {
    const { plan, policy } = await world(5);
    const template = plan.removals.find((r) => r.kind === "project")!;
    const padded = Array.from({ length: 2_000 }, (_, i) => ({ ...template, projectId: 1_000_000 + i, project: `acme/padding-${i}` }));
    sim.resetCounters();
    for (const apply of [true, false]) {
      const report = await applyPlan({ gitlab: client(), plan: { ...plan, removals: [...plan.removals, ...padded] }, policy, apply });
      expect(report.summary).toMatchObject({ guard: "tripped", removed: 0 });
      expect(report.warnings.join("\n")).toMatch(/more than its policy's gitlab\.guard\.maxRemovals \(5\); nothing was read or removed/);
    }
    expect(sim.counters.byRoute).toEqual({ "GET /user": 2 });
  });

  it("rules the plan's examination found matching nothing trip the guard when its policy refuses them", async () => {
    const { plan, policy } = await world();
    sim.resetCounters();
    const report = await applyPlan({ gitlab: client(), plan: { ...plan, unmatchedRules: ["exempt[1]"] }, policy, apply: true });
    expect(report.summary.guard).toBe("tripped");
    expect(report.warnings.join("\n")).toContain("1 rule matched nothing (exempt[1]) in the plan's examination");
    expect(sim.requests.filter((r) => r.method !== "GET")).toEqual([]);
  });

  it("a rule's literal path GitLab fails on for ever is named with GitLab's answer, and held as a typo would be: nothing removed, the report written", async () => {
    const { plan, policy } = await world();
    sim.addFaults({ kind: "status", status: 500, method: "GET", path: "/api/v4/namespaces/partners%2Fcontractor-x", times: 1_000_000 });
    const report = await applyPlan({ gitlab: client(), plan, policy, apply: true });
    expect(report.warnings).toContainEqual(expect.stringContaining('allow[1] (group "partners/contractor-x", projects "acme/mobile/**") names group partners/contractor-x, which could not be looked up: GET /api/v4/namespaces/partners%2Fcontractor-x answered 500'));
    expect(report.summary).toMatchObject({ guard: "tripped", removed: 0 });
  });
});

describe("apply: a plan whose policy sets onStray notify or report (issue 30.1)", () => {
  it("an applying run refuses before any request: a saved plan holds removals only; the dry run reads as before", async () => {
    const { plan } = await world();
    const notify = parsePolicy(groupSharesPolicy().replace("    exempt:\n", "    onStray: report\n    exempt:\n"), "warden.yaml");
    sim.resetCounters();
    await expect(applyPlan({ gitlab: client(), policy: notify, plan, apply: true })).rejects.toThrow(/a saved plan holds removals only/);
    expect(sim.counters.byRoute).toEqual({});
    const dry = await applyPlan({ gitlab: client(), policy: notify, plan });
    expect(dry.dryRun).toBe(true);
  });
});
