/**
 * A deployment with WARDEN_POLICY_PROJECT reads its policy from the repository at each run (issue 22):
 * the real Enforce handler, warm between runs, against the loopback GitLab and Secrets Manager. The
 * bundle holds a valid policy of its own, which must never be used in the repository's place.
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { EnforceReport } from "../../../lib/jobs/index.ts";
import { ACCESS, generateOrganisation, type SimProject } from "../../../sim/gitlab/index.ts";
import { EVERYTHING_STRAY, standardPolicy } from "../../support/policies.ts";
import { coldEnforce, SECRETS } from "../../support/lambda.ts";
import { lambdaWorld } from "../../support/lambda-world.ts";

const FILES = "GET /projects/:id/repository/files/:file_path";
const BRANCH = "GET /projects/:id/repository/branches/:branch";
const PERMISSIVE = standardPolicy().replace('- group: "acme/**"', '- group: "**"');
let repo: SimProject;
let bundle: string;
// The policy is read from a repository of the GitLab simulator; the bundle's own file would remove every share.
const world = lambdaWorld({
  gitlab: () => ({ dataset: generateOrganisation({ projects: 120, seed: 7 }).dataset, tokens: { [SECRETS.gitlabToken]: { admin: true }, "glpat-not-ours": { admin: false, username: "olga" } } }),
  env: () => ({ WARDEN_REPORT_ONLY: "false", LAMBDA_TASK_ROOT: bundle, WARDEN_POLICY: undefined, WARDEN_POLICY_PATH: "policies/prod/warden.yaml" }),
});
beforeEach(() => {
  repo = world.gitlab.dataset.projects.find((p) => !p.path_with_namespace.startsWith("acme/"))!;
  world.gitlab.repositories.commit(repo, { "policies/prod/warden.yaml": standardPolicy() });
  vi.stubEnv("WARDEN_POLICY_PROJECT", repo.path_with_namespace);
});

beforeAll(async () => {
  bundle = await mkdtemp(join(tmpdir(), "warden-bundle-"));
  await writeFile(join(bundle, "warden.yaml"), EVERYTHING_STRAY);
});

const writes = () => Object.keys(world.gitlab.counters.byRoute).filter((route) => !route.startsWith("GET "));
const policyRequests = () => Object.fromEntries(Object.entries(world.gitlab.counters.byRoute).filter(([route]) => route === "GET /projects/:id" || route.startsWith("GET /projects/:id/repository/")));
/** The attack: the policy project renamed, and a project created at its old path holding a permissive policy. */
const takeOver = () => {
  const old = repo.path;
  world.gitlab.renameProject(repo.id, `${old}-archived`);
  const impostor = world.gitlab.createProject(repo.namespace_id, old);
  world.gitlab.repositories.commit(impostor, { "policies/prod/warden.yaml": PERMISSIVE });
  return impostor;
};

describe("the policy in a GitLab repository, in Lambda", () => {
  it("a warm container reads it once a run (by path: the project, its protected default branch, the file), and a commit on the default branch changes the next run", async () => {
    const enforce = await coldEnforce<EnforceReport>();
    const first = await enforce({});
    expect(first.policy).toMatchObject({ project: repo.path_with_namespace, projectId: repo.id, ref: repo.default_branch });
    expect(world.gitlab.counters.byRoute[FILES]).toBe(1);
    world.gitlab.resetCounters();
    const second = await enforce({});
    // Unchanged: the run's three policy requests, and the same plan.
    expect(policyRequests()).toEqual({ "GET /projects/:id": 1, [BRANCH]: 1, [FILES]: 1 });
    expect(second.actions).toEqual(first.actions);
    world.gitlab.repositories.commit(repo, { "policies/prod/warden.yaml": EVERYTHING_STRAY });
    world.gitlab.resetCounters();
    const third = await enforce({});
    expect(world.gitlab.counters.byRoute[FILES]).toBe(1);
    expect(third.actions.length).toBeGreaterThan(first.actions.length);
  });

  it("reads a protected ref with slashes; an unprotected one is refused naming both fixes, and read with the deployment's opt-out", async () => {
    world.gitlab.repositories.commit(repo, { "policies/prod/warden.yaml": EVERYTHING_STRAY }, "release/2026");
    vi.stubEnv("WARDEN_POLICY_REF", "release/2026");
    // Anyone who may push to release/2026 could write this policy: refused, and nothing examined.
    await expect((await coldEnforce())({ dryRun: false })).rejects.toThrow(
      `policy policies/prod/warden.yaml in GitLab project ${repo.path_with_namespace} at release/2026: not trusted: branch "release/2026" is not protected, so anyone who may push to it writes the policy: ` +
        "protect the branch in GitLab (Settings > Repository > Protected branches), or set WARDEN_POLICY_ALLOW_UNPROTECTED_REF=1 (at sst deploy) to read it anyway",
    );
    expect(Object.keys(world.gitlab.counters.byRoute).every((r) => r.startsWith("GET /projects/:id")), Object.keys(world.gitlab.counters.byRoute).join()).toBe(true);
    vi.stubEnv("WARDEN_POLICY_ALLOW_UNPROTECTED_REF", "1");
    const optedOut = await (await coldEnforce<EnforceReport>())({});
    vi.stubEnv("WARDEN_POLICY_ALLOW_UNPROTECTED_REF", "");
    world.gitlab.protectedBranches.protect(repo, "release/*");
    const onRelease = await (await coldEnforce<EnforceReport>())({});
    expect(onRelease.actions).toEqual(optedOut.actions);
    vi.stubEnv("WARDEN_POLICY_REF", "");
    const onMain = await (await coldEnforce<EnforceReport>())({});
    expect(onRelease.actions.length).toBeGreaterThan(onMain.actions.length);
  });

  it("the default branch, unprotected, is refused too", async () => {
    world.gitlab.protectedBranches.unprotect(repo, repo.default_branch);
    await expect((await coldEnforce())({})).rejects.toThrow(`not trusted: branch "${repo.default_branch}" is not protected`);
  });

  it("a policy that becomes unreadable or broken fails the next applying run before any change, never falling back", async () => {
    const enforce = await coldEnforce<EnforceReport>();
    await enforce({});
    const where = `policy policies/prod/warden.yaml in GitLab project ${repo.path_with_namespace} at the default branch: cannot be read: `;
    world.gitlab.repositories.commit(repo, { "policies/prod/warden.yaml": null });
    world.gitlab.resetCounters();
    await expect(enforce({ dryRun: false })).rejects.toThrow(`${where}there is no file policies/prod/warden.yaml at that ref: correct WARDEN_POLICY_PATH (set at sst deploy), or commit the policy there`);
    expect(writes()).toEqual([]);
    world.gitlab.repositories.commit(repo, { "policies/prod/warden.yaml": standardPolicy().replace("maxRemovals: 1000", "maxRemovals: lots") });
    await expect(enforce({ dryRun: false })).rejects.toThrow(/policies\/prod\/warden\.yaml in GitLab project .+ at main \(commit [0-9a-f]{12}\): gitlab\.guard\.maxRemovals: must be a positive integer, got "lots"/);
    vi.stubEnv("WARDEN_POLICY_PROJECT", "security/no-such-policies");
    await expect((await coldEnforce())({ dryRun: false })).rejects.toThrow(
      "policy policies/prod/warden.yaml in GitLab project security/no-such-policies at the default branch: cannot be read: the project does not exist, or the secret's gitlabToken cannot read it",
    );
    expect(writes()).toEqual([]);
  });

  it("a token that is a Guest of the policy project is named as the cause (403)", async () => {
    repo.members = { olga: ACCESS.guest };
    world.secretsManager.secretString = JSON.stringify({ ...SECRETS, gitlabToken: "glpat-not-ours" });
    try {
      await expect((await coldEnforce())({})).rejects.toThrow(/the secret's gitlabToken may see the project but not read its repository \(403 Forbidden\): the token's user needs Reporter or above/);
    } finally {
      world.secretsManager.secretString = JSON.stringify(SECRETS);
    }
  });

  it("a warm container pins the project's id: a project created at the path since is refused, before anything is examined", async () => {
    const enforce = await coldEnforce<EnforceReport>();
    await enforce({});
    const old = repo.path_with_namespace;
    const impostor = takeOver();
    world.gitlab.resetCounters();
    await expect(enforce({ dryRun: false })).rejects.toThrow(
      `policy policies/prod/warden.yaml in GitLab project ${old} at the default branch: not trusted: WARDEN_POLICY_PROJECT (set at sst deploy) ${old} was project ${repo.id} ` +
        `when the policy was first read here, and is now project ${impostor.id}`,
    );
    expect(Object.keys(world.gitlab.counters.byRoute)).toEqual(["GET /projects/:id"]);
  });

  it("a renamed policy project (its old path redirecting) is refused at a cold start, naming its id as the fix", async () => {
    const old = repo.path_with_namespace;
    world.gitlab.renameProject(repo.id, `${repo.path}-renamed`);
    await expect((await coldEnforce())({})).rejects.toThrow(
      `not trusted: the project at ${old} has moved to "${repo.path_with_namespace}", and GitLab gives an old path to the next project created there: set WARDEN_POLICY_PROJECT (set at sst deploy) to ${repo.id}`,
    );
  });

  it("WARDEN_POLICY_PROJECT as an id reads that project after it moves and another takes its path: two requests a warm run", async () => {
    vi.stubEnv("WARDEN_POLICY_PROJECT", String(repo.id));
    const enforce = await coldEnforce<EnforceReport>();
    const before = await enforce({});
    takeOver();
    world.gitlab.resetCounters();
    const after = await enforce({});
    expect(after.actions).toEqual(before.actions);
    expect(after.policy).toMatchObject({ project: String(repo.id), projectId: repo.id, sha256: before.policy!.sha256 });
    expect(policyRequests()).toEqual({ [BRANCH]: 1, [FILES]: 1 });
  });

  it("a durable run's later invocation refuses a project other than the one its first read recorded", async () => {
    const enforce = await coldEnforce<EnforceReport>();
    const begunWith = (await enforce({})).policy!;
    takeOver();
    const { loadPolicyAgain } = await import("../../../functions/shared/config/policy.ts");
    await expect(loadPolicyAgain(begunWith)).rejects.toThrow(`was project ${repo.id} when the policy was first read here, and is now project`);
  });
});
