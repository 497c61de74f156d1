import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EnforceReport } from "../../lib/jobs/index.ts";
import { WARDEN_VERSION } from "../../lib/jobs/version.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { groupSharesPolicy } from "../support/policies.ts";
import { reportJson } from "../support/report.ts";
import { actionKey, intentKey } from "../support/share-keys.ts";

let sim: GitLabSim;
let strays: string[];
let env: Record<string, string>;

beforeAll(async () => {
  // Expiry rules are judged against today; the child process judges against its own today.
  const org = generateOrganisation({ projects: 400, seed: 11, groupShares: true });
  strays = org.intents.filter((i) => i.intent === "stray").map(intentKey).sort();
  sim = await startGitLabSim({ dataset: org.dataset });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(groupSharesPolicy()) };
});
afterAll(() => sim.close());

const keys = (r: EnforceReport) => r.actions.map(actionKey).sort();
const shares = () => [...sim.dataset.projects, ...sim.dataset.groups].reduce((n, p) => n + p.shared_with_groups.length, 0);

// In order: each step starts from the state the previous one left.
describe.sequential("warden enforce, end to end", () => {
  it("--help describes the command and its exit codes", async () => {
    const run = await warden(["enforce", "--help"], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/--apply[\s\S]*Exit codes: 0 in policy/);
  });

  it("a malformed policy exits 1 and names the field and the file", async () => {
    const bad = policyFile(groupSharesPolicy().replace("maxAccess: developer", "maxAccess: dev"));
    const run = await warden(["enforce", "--policy", bad], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${bad}: gitlab.shares.allow[1].maxAccess: unknown access level "dev"`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it("a policy without a gitlab section exits 1 naming it, before any request", async () => {
    sim.resetCounters();
    const run = await warden(["enforce", "--apply", "--policy", policyFile("version: 1\n")], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^warden enforce: the policy has no gitlab section/);
    expect(sim.counters.requests).toBe(0);
  });

  it("the guard exits 3 with nothing changed", async () => {
    const before = shares();
    const run = await warden(["enforce", "--apply", "--json", "--policy", policyFile(groupSharesPolicy(3))], env);
    expect(run.code).toBe(3);
    expect(reportJson(run.stdout).summary.guard).toBe("tripped");
    expect(shares()).toBe(before);
  });

  it("a dry run exits 2, plans exactly the strays and leaves the simulator unchanged", async () => {
    const before = shares();
    const run = await warden(["enforce", "--json"], env);
    expect(run.code).toBe(2);
    const report = reportJson(run.stdout) as EnforceReport;
    expect(Object.keys(report)).toEqual(["schemaVersion", "job", "version", "gitlabUrl", "policy", "startedAt", "finishedAt", "dryRun", "summary", "actions", "stats", "warnings"]);
    expect(Object.keys(report.stats)).toEqual(["requests", "retries", "rateLimited", "pages", "auditRequests", "attribution", "durationMs"]);
    // From the sources, package.json's; from the built CLI (no package.json read), what the build wrote in.
    expect(report.version).toBe(WARDEN_VERSION);
    expect(report.gitlabUrl).toBe(env["GITLAB_URL"]);
    expect(keys(report)).toEqual(strays);
    expect(report.summary).toMatchObject({ groups: expect.any(Number), groupShares: expect.any(Number), groupReads: expect.any(Number) });
    expect(report.actions.find((a) => a.kind === "project")).toEqual({
      type: "remove-share",
      kind: "project",
      projectId: expect.any(Number),
      project: expect.stringMatching(/^acme\//),
      groupId: expect.any(Number),
      group: expect.any(String),
      accessLevel: expect.any(Number),
      accessLevelName: expect.any(String),
      expiresAt: expect.toBeOneOf([null, expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/)]),
      reason: expect.any(String),
      status: "planned",
      addedBy: null,
      attribution: "not recorded",
    });
    expect(report.actions.find((a) => a.kind === "group")).toEqual({
      type: "remove-group-share",
      kind: "group",
      sharedGroupId: expect.any(Number),
      sharedGroup: expect.stringMatching(/^acme(\/|$)/),
      groupId: expect.any(Number),
      group: expect.any(String),
      accessLevel: expect.any(Number),
      accessLevelName: expect.any(String),
      expiresAt: expect.toBeOneOf([null, expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/)]),
      reason: expect.any(String),
      status: "planned",
      addedBy: null,
      attribution: "not recorded",
    });
    expect(shares()).toBe(before);
  });

  it("prints a readable table grouped by project or group, with each share's kind, without --json, and no colour off a terminal", async () => {
    const run = await warden(["enforce"], env);
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(/^Warden enforce \(dry run\): \d+ stray shares/);
    const level = "(guest|reporter|developer|maintainer|owner)";
    expect(run.stdout).toMatch(new RegExp(`\nacme/\\S+ \\(#\\d+\\)\n  planned  project share  \\S+ +${level} +(no expiry|until \\S+) +\\S`));
    expect(run.stdout).toMatch(new RegExp(`\nacme(/\\S+)? \\(group #\\d+\\)\n  planned  group share    \\S+ +${level} +(no expiry|until \\S+) +\\S`));
    expect(run.stdout).toMatch(/\d+ projects with \d+ shares, \d+ groups with \d+ group shares; .* guard ok/);
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
    const report = reportJson(run.stdout) as EnforceReport;
    expect(keys(report)).toEqual(strays);
    // The DELETEs that answered 502 after removing were removed by this run: done, not already-gone.
    expect(report.summary).toMatchObject({ removed: strays.length, alreadyGone: 0, failed: 0 });
    expect(shares()).toBe(before - strays.length);
    const audit = run.stderr.trim().split("\n").map((l) => JSON.parse(l));
    expect(audit.filter((line) => !line.confirmation)).toHaveLength(strays.length);
    expect(audit).toContainEqual(expect.objectContaining({ message: "remove-share", kind: "project", project: expect.any(String), projectId: expect.any(Number), group: expect.any(String), accessLevel: expect.any(Number), expiresAt: expect.toBeOneOf([null, expect.any(String)]), rule: expect.any(String), outcome: "done" }));
    expect(audit).toContainEqual(expect.objectContaining({ message: "remove-group-share", kind: "group", sharedGroup: expect.any(String), sharedGroupId: expect.any(Number), group: expect.any(String), groupId: expect.any(Number), accessLevel: expect.any(Number), rule: expect.any(String), outcome: "done" }));
  });

  it("concurrency options are checked before anything happens", async () => {
    const run = await warden(["enforce", "--concurrency", "0"], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('warden enforce: --concurrency takes a whole number from 1 to 64, got "0"\n');
  });

  it("the next dry run exits 0", async () => {
    const run = await warden(["enforce", "--json"], env);
    expect(run.code).toBe(0);
    expect(reportJson(run.stdout).actions).toEqual([]);
  });

  it("errors exit 1 with a message and no credential; a wrong token is named as a 401", async () => {
    const run = await warden(["enforce"], { ...env, GITLAB_TOKEN: "glpat-wrong-secret" });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^warden enforce: GITLAB_TOKEN was refused \(401\): expired, revoked, or made on another GitLab\? \(GET \/api\/v4\/user answered 401/);
    expect(run.stdout + run.stderr).not.toContain("glpat-wrong-secret");
    const missing = await warden(["enforce"], { WARDEN_POLICY: env["WARDEN_POLICY"]! });
    expect(missing.stderr).toBe("warden enforce: GITLAB_URL is not set\n");
  });
});
