/**
 * A merge request's author chooses its target branch, which the policy-change job reads the base policy
 * at (--compare-policy-ref "$CI_MERGE_REQUEST_TARGET_BRANCH_NAME"). A branch whose name has the shape of a
 * SHA-256 commit id (64 hex digits) was taken by trustedRef as a commit id and read without asking whether
 * it is protected; on a SHA-1 repository (GitLab's default) git resolves such a name as the branch it is,
 * so the base policy was the author's own, and its scope decided what the examination listed in the note.
 * The file must now come from the commit asked for.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCESS, startGitLabSim, type GitLabSim, type SimProject } from "../../sim/gitlab/index.ts";
import { warden } from "../support/cli.ts";
import { BASE, compareWorld, POLICY_PROJECT } from "../support/compare-world.ts";

/** A private project outside the approved scope (acme), shared with another group. */
const SECRET = "outside/secret-vault";
/** 64 hex digits: a branch name GitLab accepts (its own check refuses only 40 hex digits). */
const BRANCH = "c0ffee".padEnd(64, "0");

/** The author's base: the approved one's scope widened to `outside`, where nothing is allowed. */
const FORGED_BASE = BASE.replace("scope: { groups: [acme] }", "scope: { groups: [acme, outside] }");
/** The author's proposal: everything allowed, so every share the forged base calls stray is "no longer removed". */
const PROPOSED = `version: 1
gitlab:
  scope: { groups: [acme, outside] }
  shares:
    allow:
      - group: "**"
  guard: { unmatchedRules: warn }
`;

let sim: GitLabSim;
let repo: SimProject;
let checkout: string;
let env: Record<string, string>;

beforeAll(async () => {
  const dataset = compareWorld();
  dataset.projects.push({
    id: 30, name: "secret-vault", path: "secret-vault", path_with_namespace: SECRET, namespace_id: 6,
    shared_with_groups: [{ group_id: 7, group_name: "strangers", group_full_path: "strangers", group_access_level: ACCESS.developer, expires_at: null }],
    default_branch: "main", branches: ["main"], archived: false, previous_paths: [],
  });
  sim = await startGitLabSim({ dataset });
  repo = sim.dataset.projects.find((p) => p.path_with_namespace === POLICY_PROJECT)!;
  sim.repositories.commit(repo, { "warden.yaml": BASE });
  // Any Developer may push a branch of any name that no rule protects (only main is protected here).
  sim.repositories.commit(repo, { "warden.yaml": FORGED_BASE }, BRANCH, "main");
  checkout = mkdtempSync(join(tmpdir(), "warden-review-compare13-"));
  writeFileSync(join(checkout, "warden.yaml"), PROPOSED);
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, CI_PROJECT_PATH: POLICY_PROJECT, CI_PROJECT_ID: String(repo.id), CI_PROJECT_DIR: checkout, CI_MERGE_REQUEST_IID: "7" };
});
afterAll(() => sim.close());

describe("the base policy at a merge request's target branch named like a commit id", () => {
  it("an unprotected branch of 64 hex digits is refused, and nothing outside the approved scope reaches the note", async () => {
    // The policy-change job of examples/gitlab-ci.yml, the target branch being the author's.
    const run = await warden(["enforce", "--policy", "warden.yaml", "--compare-policy-ref", BRANCH, "--format", "markdown"], env, checkout);
    expect(run.stdout).not.toContain("secret");
    expect(run.stderr).toMatch(/not trusted: c0ffee0{58} was read as commit c0ffee000000, and GitLab answered with commit [0-9a-f]{12}: a branch or tag of that name\?/);
    expect(run.code).toBe(1);
  });
});
