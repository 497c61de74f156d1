/** The policy from a GitLab repository file (issue 22 point 1), through the CLI against the loopback simulator. */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EnforceReport } from "../../lib/jobs/index.ts";
import { policySha256 } from "../../lib/policy/index.ts";
import { ACCESS, generateOrganisation, startGitLabSim, type GitLabSim, type SimProject } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { EVERYTHING_STRAY, groupSharesPolicy } from "../support/policies.ts";

const ADMIN = "glpat-sim-admin";
const TOKENS = { [ADMIN]: { admin: true }, "glpat-guest-0001": { admin: false, username: "gus" }, "glpat-outsider-01": { admin: false, username: "olga" } };

let sim: GitLabSim;
let repo: SimProject;
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 400, seed: 11, groupShares: true }).dataset, tokens: TOKENS });
  // The policy project sits outside the governed scope (acme), as a security team's would.
  repo = sim.dataset.projects.find((p) => !p.path_with_namespace.startsWith("acme/"))!;
  // Private, as a security team's policy project is: a token of no member's gets 404 for it.
  Object.assign(repo, { visibility: "private", members: { gus: ACCESS.guest } });
  sim.repositories.commit(repo, { "warden.yaml": groupSharesPolicy(), "policies/prod/warden.yaml": EVERYTHING_STRAY });
  sim.repositories.commit(repo, { "policies/prod/warden.yaml": groupSharesPolicy() }, "release/2026");
  sim.protectedBranches.protect(repo, "release/*");
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: ADMIN, WARDEN_POLICY_PROJECT: repo.path_with_namespace };
});
afterAll(() => sim.close());

const writes = () => Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "));
const planned = (stdout: string) => (JSON.parse(stdout) as EnforceReport).actions.length;
const head = () => sim.repositories.resolve(repo, repo.default_branch)!.id;

describe.sequential("warden with the policy in a GitLab repository", () => {
  it("policy check names the project, path, ref and commit it read", async () => {
    const run = await warden(["policy", "check", "--json"], env);
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout).policy).toBe(`${repo.path_with_namespace}:warden.yaml@${repo.default_branch} (commit ${head().slice(0, 12)})`);
    expect(run.code).toBe(0);
  });

  it("a commit on the default branch changes the next run's policy, with nothing redeployed", async () => {
    const before = await warden(["enforce", "--json"], env);
    expect(before.code).toBe(2);
    sim.repositories.commit(repo, { "warden.yaml": EVERYTHING_STRAY });
    const after = await warden(["enforce", "--json"], env);
    expect(after.code).toBe(2);
    expect(planned(after.stdout)).toBeGreaterThan(planned(before.stdout));
    const check = await warden(["policy", "check", "--json"], env);
    expect(JSON.parse(check.stdout).policy).toContain(`(commit ${head().slice(0, 12)})`);
    sim.repositories.commit(repo, { "warden.yaml": groupSharesPolicy() });
  });

  it("reads a path and a ref with slashes, each sent encoded", async () => {
    const run = await warden(["policy", "check", "--json", "--policy-path", "policies/prod/warden.yaml", "--policy-ref", "release/2026"], env);
    expect(run.stderr).toBe("");
    const release = sim.repositories.resolve(repo, "release/2026")!.id;
    expect(JSON.parse(run.stdout).policy).toBe(`${repo.path_with_namespace}:policies/prod/warden.yaml@release/2026 (commit ${release.slice(0, 12)})`);
    const onMain = await warden(["enforce", "--json", "--policy-path", "policies/prod/warden.yaml"], env);
    const onRelease = await warden(["enforce", "--json", "--policy-path", "policies/prod/warden.yaml"], { ...env, WARDEN_POLICY_REF: "release/2026" });
    expect(planned(onMain.stdout)).toBeGreaterThan(planned(onRelease.stdout));
  });

  it("a policy that cannot be read or does not parse fails an applying run before any change, naming project, path, ref and cause", async () => {
    sim.repositories.commit(repo, { "broken.yaml": groupSharesPolicy().replace("maxAccess: developer", "maxAccess: dev") });
    const cases: [string[], Record<string, string>, RegExp][] = [
      [["--policy-path", "missing.yaml"], {}, /policy missing\.yaml in GitLab project .+ at the default branch: cannot be read: there is no file missing\.yaml at that ref: correct --policy-path/],
      [["--policy-ref", "no/such-branch"], {}, /at no\/such-branch: cannot be read: the project has no branch, tag or commit "no\/such-branch": correct --policy-ref/],
      [["--policy-project", "nobody/nothing"], {}, /GitLab project nobody\/nothing .*: the project does not exist, or GITLAB_TOKEN cannot read it/],
      [[], { GITLAB_TOKEN: "glpat-outsider-01" }, /the project does not exist, or GITLAB_TOKEN cannot read it \(GitLab answers 404 for a private project the token may not see\): the token's user needs Reporter or above/],
      [[], { GITLAB_TOKEN: "glpat-guest-0001" }, /GITLAB_TOKEN may see the project but not read its repository \(403 Forbidden\)/],
      [["--policy-path", "broken.yaml"], {}, /policy broken\.yaml in GitLab project .+ at main \(commit [0-9a-f]{12}\): gitlab\.shares\.allow\[1\]\.maxAccess: unknown access level "dev"/],
    ];
    for (const [args, extra, message] of cases) {
      sim.resetCounters();
      const run = await warden(["enforce", "--apply", ...args], { ...env, ...extra });
      expect(run.stderr, args.join(" ")).toMatch(message);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe("");
      expect(writes()).toEqual([]);
      // Nothing beyond the policy's own reads: not one share was examined.
      expect(Object.keys(sim.counters.byRoute).every((r) => /repository\/(files|branches|tags)|^GET \/projects\/:id$/.test(r)), Object.keys(sim.counters.byRoute).join()).toBe(true);
    }
  });

  it("every audit line of an applying run names the policy: project, path, ref, commit and SHA-256", async () => {
    const log = join(mkdtempSync(join(tmpdir(), "warden-audit-")), "audit.jsonl");
    const run = await warden(["enforce", "--apply", "--audit-log", log], env);
    expect(run.code).toBe(0);
    const lines = readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { policy: unknown });
    expect(lines.length).toBeGreaterThan(0);
    const policy = { source: "gitlab", project: repo.path_with_namespace, projectId: repo.id, path: "warden.yaml", ref: repo.default_branch, commitId: head(), sha256: policySha256(groupSharesPolicy()) };
    for (const line of lines) expect(line.policy).toEqual(policy);
  });

  it("a flag out of range is refused before the policy is read from GitLab, and before --audit-log creates its file", async () => {
    const log = join(mkdtempSync(join(tmpdir(), "warden-audit-")), "audit.jsonl");
    for (const [args, message] of [
      [["enforce", "--concurrency", "0"], 'warden enforce: --concurrency takes a whole number from 1 to 64, got "0"\n'],
      [["enforce", "--list-concurrency", "65"], 'warden enforce: --list-concurrency takes a whole number from 1 to 64, got "65"\n'],
      [["enforce", "--apply", "--audit-log", log, "--concurrency", "0"], 'warden enforce: --concurrency takes a whole number from 1 to 64, got "0"\n'],
      [["report", "shares", "--list-concurrency", "0"], 'warden report: --list-concurrency takes a whole number from 1 to 64, got "0"\n'],
    ] as const) {
      sim.resetCounters();
      const run = await warden([...args], env);
      expect([run.code, run.stderr], args.join(" ")).toEqual([1, message]);
      expect(sim.counters.byRoute, args.join(" ")).toEqual({});
    }
    expect(existsSync(log)).toBe(false);
  });

  it("--policy and --policy-project (or their variables) together are an error naming both", async () => {
    const both = await warden(["enforce", "--policy", policyFile(groupSharesPolicy())], env);
    expect(both.stderr).toMatch(/--policy and WARDEN_POLICY_PROJECT both name a policy: keep one/);
    expect(both.code).toBe(1);
    const vars = await warden(["policy", "check", "--policy-project", repo.path_with_namespace], { ...env, WARDEN_POLICY: "warden.yaml", WARDEN_POLICY_PROJECT: "" });
    expect(vars.stderr).toMatch(/WARDEN_POLICY and --policy-project both name a policy/);
    const stray = await warden(["policy", "check", "--policy-ref", "main", "--policy", policyFile(groupSharesPolicy())], {});
    expect(stray.stderr).toMatch(/--policy-ref names a policy in a GitLab repository, which needs --policy-project/);
  });

  it("a branch that is not protected is refused, naming both fixes; --policy-allow-unprotected-ref (or its variable) reads it", async () => {
    sim.repositories.commit(repo, { "warden.yaml": EVERYTHING_STRAY }, "feature/open");
    sim.resetCounters();
    const refused = await warden(["enforce", "--apply", "--policy-ref", "feature/open"], env);
    expect(refused.stderr).toContain(
      `policy warden.yaml in GitLab project ${repo.path_with_namespace} at feature/open: not trusted: branch "feature/open" is not protected, so anyone who may push to it writes the policy: ` +
        "protect the branch in GitLab (Settings > Repository > Protected branches), or set --policy-allow-unprotected-ref (WARDEN_POLICY_ALLOW_UNPROTECTED_REF=1) to read it anyway",
    );
    expect(refused.code).toBe(1);
    expect(writes()).toEqual([]);
    for (const [args, extra] of [[["--policy-allow-unprotected-ref"], {}], [[], { WARDEN_POLICY_ALLOW_UNPROTECTED_REF: "1" }]] as const) {
      const read = await warden(["policy", "check", "--json", "--policy-ref", "feature/open", ...args], { ...env, ...extra });
      expect(JSON.parse(read.stdout).policy, args.join()).toContain("@feature/open");
    }
    const typo = await warden(["policy", "check", "--policy-ref", "feature/open"], { ...env, WARDEN_POLICY_ALLOW_UNPROTECTED_REF: "yes" });
    expect(typo.stderr).toMatch(/WARDEN_POLICY_ALLOW_UNPROTECTED_REF is 1 .* or unset, not "yes"/);
  });

  it("a policy project taken over (renamed, a project created at its old path with a permissive policy): refused by path, never read by id", async () => {
    const project = sim.createProject(repo.namespace_id, "security-policy");
    // Its policy finds shares to remove (the ones an earlier test's apply left); the impostor's allows every one.
    sim.repositories.commit(project, { "warden.yaml": EVERYTHING_STRAY });
    const byId = { ...env, WARDEN_POLICY_PROJECT: String(project.id) };
    const before = await warden(["enforce", "--json"], byId);
    expect(before.code).toBe(2);
    const old = project.path_with_namespace;
    sim.renameProject(project.id, "security-policy-archived");
    // Renamed: the old path redirects, and anyone may create a project there at any time.
    const redirected = await warden(["enforce", "--apply"], { ...env, WARDEN_POLICY_PROJECT: old });
    expect(redirected.stderr).toContain(`not trusted: the project at ${old} has moved to "${project.path_with_namespace}", and GitLab gives an old path to the next project created there: set --policy-project (WARDEN_POLICY_PROJECT) to ${project.id}`);
    expect(redirected.code).toBe(1);
    const impostor = sim.createProject(repo.namespace_id, "security-policy");
    sim.repositories.commit(impostor, { "warden.yaml": groupSharesPolicy().replace('- group: "acme/**"', '- group: "**"') });
    sim.resetCounters();
    const after = await warden(["enforce", "--json"], byId);
    expect(after.code).toBe(2);
    expect(JSON.parse(after.stdout).actions).toEqual(JSON.parse(before.stdout).actions);
    expect((JSON.parse(after.stdout) as EnforceReport).policy).toMatchObject({ project: String(project.id), projectId: project.id });
    // By id at the default branch, the first read: the project (its default branch's name), the branch, the file.
    expect(Object.fromEntries(Object.entries(sim.counters.byRoute).filter(([r]) => r === "GET /projects/:id" || r.includes("/repository/")))).toEqual({
      "GET /projects/:id": 1, "GET /projects/:id/repository/branches/:branch": 1, "GET /projects/:id/repository/files/:file_path": 1,
    });
  });
});
