/**
 * A hostile review of the administrator's read beside the token check (lib/gitlab/token-user.ts). For a
 * token whose user is no administrator its answer "is not waited on", but the request was neither
 * aborted nor detached (it is cancelled now): it stayed in flight (and is retried at each per-attempt deadline), so a GitLab
 * (or a WAF in front of it) that is slow or never answers GET /application/statistics keeps a
 * finished `warden enforce` from exiting until that read's attempts were spent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { groupSharesPolicy } from "../support/policies.ts";

const PLAIN = "glpat-plain-user-0001";
let sim: GitLabSim;

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 30, seed: 3 }).dataset, tokens: { [PLAIN]: { admin: false, username: "plain-bot" } } });
});
afterAll(() => sim.close());

describe("a plain user's token, GitLab slow on the administrator's read", () => {
  it("the run ends when its work does, not when the unneeded read gives up", async () => {
    const env = { GITLAB_URL: sim.url, GITLAB_TOKEN: PLAIN, WARDEN_POLICY: policyFile(groupSharesPolicy()) };
    // Baseline: the same run, GitLab prompt.
    const t0 = Date.now();
    const prompt = await warden(["enforce", "--json"], env);
    const promptMs = Date.now() - t0;
    expect([0, 2]).toContain(prompt.code);

    sim.addFaults({ kind: "delay", ms: 12_000, route: "GET /application/statistics", times: 10 });
    const t1 = Date.now();
    const slow = await warden(["enforce", "--json", "--request-timeout", "5"], env);
    const slowMs = Date.now() - t1;
    expect(slow.code).toBe(prompt.code);
    // The answer is never used for this token: the run must not wait on it (5 s a try, and retries).
    expect(slowMs).toBeLessThan(promptMs + 3_000);
  }, 60_000);
});
