/**
 * A deployment with WARDEN_POLICY_PROJECT reads its policy from the repository at each run (issue 22):
 * the real Enforce handler, warm between runs, against the loopback GitLab and Secrets Manager. The
 * bundle holds a valid policy of its own, which must never be used in the repository's place.
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { EnforceReport } from "../../lib/jobs/index.ts";
import { ACCESS, generateOrganisation, startGitLabSim, type GitLabSim, type SimProject } from "../../sim/gitlab/index.ts";
import { EVERYTHING_STRAY, standardPolicy } from "../support/policies.ts";
import { coldEnforce, SECRETS, startSecretsManager, stubAwsEnv, type SecretsManagerStub } from "./support.ts";

const FILES = "GET /projects/:id/repository/files/:file_path";
let secretsManager: SecretsManagerStub;
let sim: GitLabSim;
let repo: SimProject;
let bundle: string;

beforeAll(async () => {
  secretsManager = await startSecretsManager(JSON.stringify(SECRETS));
  bundle = await mkdtemp(join(tmpdir(), "warden-bundle-"));
  await writeFile(join(bundle, "warden.yaml"), EVERYTHING_STRAY);
});
afterAll(() => secretsManager.close());

beforeEach(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 120, seed: 7 }).dataset, tokens: { [SECRETS.gitlabToken]: { admin: true }, "glpat-not-ours": { admin: false, username: "olga" } } });
  repo = sim.dataset.projects.find((p) => !p.path_with_namespace.startsWith("acme/"))!;
  sim.repositories.commit(repo, { "policies/prod/warden.yaml": standardPolicy() });
  stubAwsEnv({
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.url, GITLAB_URL: sim.url, WARDEN_REPORT_ONLY: "false", LAMBDA_TASK_ROOT: bundle, WARDEN_POLICY: undefined,
    WARDEN_POLICY_PROJECT: repo.path_with_namespace, WARDEN_POLICY_PATH: "policies/prod/warden.yaml",
  });
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await sim.close();
});

const writes = () => Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "));

describe("the policy in a GitLab repository, in Lambda", () => {
  it("a warm container reads it once a run, and a commit on the default branch changes the next run", async () => {
    const enforce = await coldEnforce<EnforceReport>();
    const first = await enforce({});
    expect(sim.counters.byRoute[FILES]).toBe(1);
    sim.resetCounters();
    const second = await enforce({});
    // Unchanged: the run's one policy request, and the same plan.
    expect(sim.counters.byRoute[FILES]).toBe(1);
    expect(second.actions).toEqual(first.actions);
    sim.repositories.commit(repo, { "policies/prod/warden.yaml": EVERYTHING_STRAY });
    sim.resetCounters();
    const third = await enforce({});
    expect(sim.counters.byRoute[FILES]).toBe(1);
    expect(third.actions.length).toBeGreaterThan(first.actions.length);
  });

  it("reads a ref with slashes", async () => {
    sim.repositories.commit(repo, { "policies/prod/warden.yaml": EVERYTHING_STRAY }, "release/2026");
    vi.stubEnv("WARDEN_POLICY_REF", "release/2026");
    const onRelease = await (await coldEnforce<EnforceReport>())({});
    vi.stubEnv("WARDEN_POLICY_REF", "");
    const onMain = await (await coldEnforce<EnforceReport>())({});
    expect(onRelease.actions.length).toBeGreaterThan(onMain.actions.length);
  });

  it("a policy that becomes unreadable or broken fails the next applying run before any change, never falling back", async () => {
    const enforce = await coldEnforce<EnforceReport>();
    await enforce({});
    const where = `policy policies/prod/warden.yaml in GitLab project ${repo.path_with_namespace} at the default branch: cannot be read: `;
    sim.repositories.commit(repo, { "policies/prod/warden.yaml": null });
    sim.resetCounters();
    await expect(enforce({ dryRun: false })).rejects.toThrow(`${where}there is no file policies/prod/warden.yaml at that ref: correct WARDEN_POLICY_PATH (set at sst deploy), or commit the policy there`);
    expect(writes()).toEqual([]);
    sim.repositories.commit(repo, { "policies/prod/warden.yaml": standardPolicy().replace("maxRemovals: 1000", "maxRemovals: lots") });
    await expect(enforce({ dryRun: false })).rejects.toThrow(/policies\/prod\/warden\.yaml in GitLab project .+ at main \(commit [0-9a-f]{12}\): gitlab\.guard\.maxRemovals: must be a positive integer, got "lots"/);
    vi.stubEnv("WARDEN_POLICY_PROJECT", "security/no-such-policies");
    await expect((await coldEnforce())({ dryRun: false })).rejects.toThrow(
      "policy policies/prod/warden.yaml in GitLab project security/no-such-policies at the default branch: cannot be read: the project does not exist, or the secret's gitlabToken cannot read it",
    );
    expect(writes()).toEqual([]);
  });

  it("a token that is a Guest of the policy project is named as the cause (403)", async () => {
    repo.members = { olga: ACCESS.guest };
    secretsManager.secretString = JSON.stringify({ ...SECRETS, gitlabToken: "glpat-not-ours" });
    try {
      await expect((await coldEnforce())({})).rejects.toThrow(/the secret's gitlabToken may see the project but not read its repository \(403 Forbidden\): the token's user needs Reporter or above/);
    } finally {
      secretsManager.secretString = JSON.stringify(SECRETS);
    }
  });
});
