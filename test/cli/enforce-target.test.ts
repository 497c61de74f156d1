import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EnforceReport, ShareRemoval } from "../../lib/jobs/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { groupSharesPolicy } from "../support/policies.ts";

let sim: GitLabSim;
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 400, seed: 11, groupShares: true }).dataset });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(groupSharesPolicy()) };
});
afterAll(() => sim.close());

const subject = (a: ShareRemoval) => (a.kind === "project" ? a.project : a.sharedGroup);
const within = (group: string) => (a: ShareRemoval) => subject(a) === group || subject(a).startsWith(`${group}/`);
const shares = () => [...sim.dataset.projects, ...sim.dataset.groups].reduce((n, p) => n + p.shared_with_groups.length, 0);

// In order: the apply comes last.
describe.sequential("warden enforce --target", () => {
  it("--help describes --target", async () => {
    const run = await warden(["enforce", "--help"], {});
    expect(run.stdout).toMatch(/--target PATH +examine and remove only within PATH: a group \(with its subgroups\) or a project,/);
  });

  it("a target outside the scope exits 1 naming the path and the scope, before any request", async () => {
    sim.resetCounters();
    const run = await warden(["enforce", "--apply", "--target", "acme/mobile", "--target", "partners/contractor-x"], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`warden enforce: target "partners/contractor-x" is outside the policy's scope (gitlab.scope.groups: acme): a target must be a scope group or lie under one; nothing was examined or changed\n`);
    expect(sim.counters.requests).toBe(0);
  });

  it("a target GitLab does not have exits 1 naming it, with nothing changed", async () => {
    const before = shares();
    const run = await warden(["enforce", "--apply", "--target", "acme/mobile", "--target", "acme/no-such-group"], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('warden enforce: target "acme/no-such-group": GitLab has no group or project at this path (or the token cannot see it)');
    expect(Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "))).toEqual([]);
    expect(shares()).toBe(before);
  });

  it("a dry run with a target plans only the strays within it, and says the run was targeted", async () => {
    const [whole, targeted] = await Promise.all([warden(["enforce", "--json"], env), warden(["enforce", "--json", "--target", "ACME/Mobile/"], env)]);
    const all = JSON.parse(whole.stdout) as EnforceReport;
    const report = JSON.parse(targeted.stdout) as EnforceReport;
    expect(targeted.code).toBe(2);
    expect(report.actions).toEqual(all.actions.filter(within("acme/mobile")));
    expect(report.actions.length).toBeGreaterThan(0);
    expect(report.warnings[0]).toMatch(/^targeted run: only acme\/mobile \(group and its subgroups\) examined/);
    const text = await warden(["enforce", "--target", "acme/mobile"], env);
    expect(text.stdout).toContain("targeted run: only acme/mobile (group and its subgroups) examined");
  });

  it("--apply with a target and a policy whose literal rule names a group the instance does not have exits 3, naming the rule, with nothing removed", async () => {
    const before = shares();
    sim.resetCounters();
    const typo = policyFile(groupSharesPolicy().replace('group: "partners/contractor-x"', 'group: "partner/contractor-x"'));
    const run = await warden(["enforce", "--apply", "--target", "acme/mobile"], { ...env, WARDEN_POLICY: typo });
    expect(run.code).toBe(3);
    expect(run.stdout).toContain('allow[1] (group "partner/contractor-x", projects "acme/mobile/**") names group partner/contractor-x, which the instance does not have');
    expect(run.stdout).toMatch(/guard: 1 rule matched nothing \(allow\[1\]\), and gitlab\.guard\.unmatchedRules is refuse; nothing was removed/);
    expect(Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "))).toEqual([]);
    expect(shares()).toBe(before);
  });

  it("--apply with repeated targets removes only their strays and exits 0; the rest stays planned", async () => {
    const before = (JSON.parse((await warden(["enforce", "--json"], env)).stdout) as EnforceReport).actions;
    const inTargets = (a: ShareRemoval) => within("acme/mobile")(a) || within("acme/security")(a);
    const run = await warden(["enforce", "--apply", "--json", "--target", "acme/mobile", "--target", "acme/security"], env);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as EnforceReport;
    expect(report.actions.map(({ status: _, ...a }) => a)).toEqual(before.filter(inTargets).map(({ status: _, ...a }) => a));
    expect(report.summary).toMatchObject({ removed: before.filter(inTargets).length, guard: "ok" });
    const after = JSON.parse((await warden(["enforce", "--json"], env)).stdout) as EnforceReport;
    expect(after.actions).toEqual(before.filter((a) => !inTargets(a)));
  });
});
