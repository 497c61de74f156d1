import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EnforceReport } from "../../lib/jobs/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { standardPolicy } from "../support/policies.ts";

let sim: GitLabSim;
let strays: string[];
let env: Record<string, string>;

beforeAll(async () => {
  const org = generateOrganisation({ projects: 400, seed: 11 });
  strays = org.intents.filter((i) => i.intent === "stray").map((i) => `${i.projectId}:${i.groupId}`).sort();
  sim = await startGitLabSim({ dataset: org.dataset });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(standardPolicy()) };
});
afterAll(() => sim.close());

const keys = (r: EnforceReport) => r.actions.map((a) => `${a.projectId}:${a.groupId}`).sort();
const shares = () => sim.dataset.projects.reduce((n, p) => n + p.shared_with_groups.length, 0);

// In order: each step starts from the state the previous one left.
describe.sequential("warden enforce, end to end", () => {
  it("--help describes the command and its exit codes", async () => {
    const run = await warden(["enforce", "--help"], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/--apply[\s\S]*Exit codes: 0 in policy/);
  });

  it("a malformed policy exits 1 and names the field and the file", async () => {
    const bad = policyFile(standardPolicy().replace("maxAccess: developer", "maxAccess: dev"));
    const run = await warden(["enforce", "--policy", bad], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${bad}: gitlab.shares.allow[1].maxAccess: unknown access level "dev"`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it("the guard exits 3 with nothing changed", async () => {
    const before = shares();
    const run = await warden(["enforce", "--apply", "--json", "--policy", policyFile(standardPolicy(3))], env);
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout).summary.guard).toBe("tripped");
    expect(shares()).toBe(before);
  });

  it("a dry run exits 2, plans exactly the strays and leaves the simulator unchanged", async () => {
    const before = shares();
    const run = await warden(["enforce", "--json"], env);
    expect(run.code).toBe(2);
    const report = JSON.parse(run.stdout) as EnforceReport;
    expect(Object.keys(report)).toEqual(["job", "dryRun", "summary", "actions", "stats", "warnings"]);
    expect(Object.keys(report.stats)).toEqual(["requests", "retries", "rateLimited", "pages", "durationMs"]);
    expect(keys(report)).toEqual(strays);
    expect(report.actions[0]).toEqual({
      type: "remove-share",
      projectId: expect.any(Number),
      project: expect.stringMatching(/^acme\//),
      groupId: expect.any(Number),
      group: expect.any(String),
      accessLevel: expect.any(Number),
      reason: expect.any(String),
      status: "planned",
    });
    expect(shares()).toBe(before);
  });

  it("prints a readable table grouped by project without --json, and no colour off a terminal", async () => {
    const run = await warden(["enforce"], env);
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(/^Warden enforce \(dry run\): \d+ stray project shares/);
    expect(run.stdout).toMatch(/\nacme\/\S+ \(#\d+\)\n  planned  \S+ +(guest|reporter|developer|maintainer|owner) +\S/);
    expect(run.stdout).toMatch(/\d+ projects, \d+ shares: .* guard ok/);
    expect(run.stdout).not.toContain("\x1b[");
  });

  it("apply under 429s and faults removes exactly the strays, with one audit line each, and exits 0", async () => {
    sim.addFaults(
      { kind: "429", headers: "retry-after", seconds: 1, route: "GET /groups/:id/projects", times: 1 },
      { kind: "apply-then-status", status: 502, route: "DELETE /projects/:id/share/:group_id", times: 2 },
      { kind: "status", status: 503, route: "DELETE /projects/:id/share/:group_id", times: 2 },
    );
    const before = shares();
    const run = await warden(["enforce", "--apply", "--json"], env);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as EnforceReport;
    expect(keys(report)).toEqual(strays);
    expect(report.summary).toMatchObject({ removed: strays.length - 2, alreadyGone: 2, failed: 0 });
    expect(shares()).toBe(before - strays.length);
    const audit = run.stderr.trim().split("\n").map((l) => JSON.parse(l));
    expect(audit).toHaveLength(strays.length);
    expect(audit[0]).toMatchObject({ message: "remove-share", project: expect.any(String), group: expect.any(String), accessLevel: expect.any(Number), rule: expect.any(String), outcome: expect.stringMatching(/done|already-gone/) });
  });

  it("concurrency options are checked before anything happens", async () => {
    const run = await warden(["enforce", "--concurrency", "0"], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('warden enforce: --concurrency takes a whole number from 1 to 64, got "0"\n');
  });

  it("the next dry run exits 0", async () => {
    const run = await warden(["enforce", "--json"], env);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).actions).toEqual([]);
  });

  it("errors exit 1 with a message and no credential; a wrong token is named as a 401", async () => {
    const run = await warden(["enforce"], { ...env, GITLAB_TOKEN: "glpat-wrong-secret" });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^warden enforce: GET \/api\/v4\/user answered 401/);
    expect(run.stdout + run.stderr).not.toContain("glpat-wrong-secret");
    const missing = await warden(["enforce"], { WARDEN_POLICY: env["WARDEN_POLICY"]! });
    expect(missing.stderr).toBe("warden enforce: GITLAB_URL is not set\n");
  });
});
