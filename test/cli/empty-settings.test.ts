/**
 * A credential-like setting set but empty is a mistake named before any request, never read as unset
 * (the CLI inputs review's findings):
 * - WARDEN_PLAN_KEY: bin/cli/plan-out.ts took an empty key for no key at all, so `warden apply --apply`
 *   applied an unsigned plan, the very plan the key is there to refuse. An empty value is what a CI job
 *   gets from `variables: { WARDEN_PLAN_KEY: $PLAN_KEY }` where the protected variable is not exposed.
 * - WARDEN_MR_NOTE_TOKEN: the note was written with GITLAB_TOKEN instead, the fall-back
 *   WARDEN_PIPELINE_TOKEN refuses for the same reason.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, afterEach, describe, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { EVERYTHING_STRAY } from "../support/policies.ts";
import { MR_IID, POLICY_PROJECT, startCompareWorld } from "../support/compare-world.ts";

const KEY = "0123456789abcdef0123456789abcdef";
let sim: GitLabSim;
let env: Record<string, string>;
let plan: string;

beforeEach(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 20, seed: 5 }).dataset });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(EVERYTHING_STRAY) };
  // An unsigned plan: written without the key (or by whoever can edit the artifact).
  plan = join(mkdtempSync(join(tmpdir(), "warden-review-")), "plan.json");
  const planned = await warden(["enforce", "--out", plan], env);
  expect(planned.stderr).toContain(`plan written to ${plan}`);
  sim.resetCounters();
});
afterEach(() => sim.close());

const nonGets = () => Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "));

describe("warden apply with WARDEN_PLAN_KEY set but empty", () => {
  it("(control) with the key set, the unsigned plan is refused before any request", async () => {
    const run = await warden(["apply", plan, "--apply"], { ...env, WARDEN_PLAN_KEY: KEY });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/is not signed, and WARDEN_PLAN_KEY is set/);
    expect(sim.counters.requests).toBe(0);
  });

  it("is refused before any request, naming WARDEN_PLAN_KEY, rather than applying the unsigned plan", async () => {
    const run = await warden(["apply", plan, "--apply"], { ...env, WARDEN_PLAN_KEY: "" });
    // Before: exit 0, every share the plan lists removed, as if no key had been meant.
    expect(nonGets(), `removals made under an empty WARDEN_PLAN_KEY (exit ${run.code})`).toEqual([]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/WARDEN_PLAN_KEY/);
    expect(sim.counters.requests).toBe(0);
  });
});

describe("WARDEN_MR_NOTE_TOKEN set but empty", () => {
  it("is refused before any request, never a fall-back to GITLAB_TOKEN for the note", async () => {
    const { sim: world, repo, checkout, policy } = await startCompareWorld();
    try {
      const run = await warden(["enforce", "--policy", policy, "--compare-policy-ref", "main", "--mr-note"], {
        GITLAB_URL: world.url,
        GITLAB_TOKEN: world.token,
        WARDEN_MR_NOTE_TOKEN: "",
        CI_PROJECT_PATH: POLICY_PROJECT,
        CI_PROJECT_ID: String(repo.id),
        CI_PROJECT_DIR: checkout,
        CI_MERGE_REQUEST_IID: String(MR_IID),
      });
      const writes = world.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.url} with ${r.headers["private-token"] === world.token ? "GITLAB_TOKEN" : "another token"}`);
      expect(writes, `exit ${run.code}; stderr: ${run.stderr.trim()}`).toEqual([]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/WARDEN_MR_NOTE_TOKEN/);
    } finally {
      await world.close();
    }
  });
});
