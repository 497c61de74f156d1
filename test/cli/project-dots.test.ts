/**
 * A project given as "." or ".." (--policy-project, --mr-note-project) was sent as is, and the URL
 * resolved the dot segment to another endpoint (`GET /api/v4/projects/` is every project's listing);
 * lib/policy/glob.ts refuses "." and ".." parts in every other path a user gives for exactly that
 * reason (the CLI inputs review's finding). Refused before any request now.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden, type CliRun } from "../support/cli.ts";
import { standardPolicy } from "../support/policies.ts";
import { MR_IID, POLICY_PROJECT, startCompareWorld } from "../support/compare-world.ts";

let sim: GitLabSim;
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 20, seed: 9 }).dataset, recordRequests: true });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(standardPolicy()) };
});
afterAll(() => sim.close());

/** Exit 1 and not a request sent: what a refusal of bad input looks like. */
function refusedUpFront(run: CliRun, server: GitLabSim): void {
  const sent = server.requests.map((r) => `${r.method} ${r.url.split("?")[0]}`);
  expect(sent, `requests sent before the refusal (exit ${run.code}); stderr: ${run.stderr.trim().slice(0, 300)}`).toEqual([]);
  expect(run.code).toBe(1);
}

describe("a project given as . or ..", () => {
  it.each([["."], [".."]])("--policy-project %s is refused before any request", async (project) => {
    sim.resetCounters();
    const run = await warden(["policy", "check", "--policy-project", project], { ...env, WARDEN_POLICY: "" });
    // Before: GET /api/v4/projects/ (or /api/v4/), which a real GitLab answers with its project listing.
    refusedUpFront(run, sim);
    expect(run.stderr).toMatch(/--policy-project/);
  });

  it("--mr-note-project . is refused before any request (before, the note went to GET /projects/merge_requests/7/notes)", async () => {
    const { sim: world, checkout, policy } = await startCompareWorld();
    try {
      const run = await warden(["enforce", "--policy", policy, "--compare-policy-ref", "main", "--mr-note", "--mr-note-project", ".", "--mr-note-iid", String(MR_IID)], {
        GITLAB_URL: world.url,
        GITLAB_TOKEN: world.token,
        CI_PROJECT_PATH: POLICY_PROJECT,
        CI_PROJECT_DIR: checkout,
      });
      refusedUpFront(run, world);
      expect(run.stderr).toMatch(/--mr-note-project/);
    } finally {
      await world.close();
    }
  });
});
