/**
 * The project id a plan records for its repository policy is checked as its path, file, ref and commit
 * are: an edited plan (checksum recomputed) must not make the apply's report and every audit line name
 * a policy project of its choosing; lib/config pins a repository policy by id for that reason.
 */
import { describe, expect, it } from "vitest";
import { trustedLocation } from "../../../lib/config/policy-trust.ts";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { applyPlan, checkPlanPolicy, planFile, readPlanFile } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim } from "../../../sim/gitlab/index.ts";
import { afterTest } from "../../support/cleanup.ts";
import { groupSharesPolicy } from "../../support/policies.ts";

const PATH = "warden.yaml";
const NAMES = { project: "--policy-project", allowUnprotected: "--policy-allow-unprotected-ref" };

describe("a plan's recorded policy project id", () => {
  it("a plan whose policy names another project id than GitLab gives its path is refused", async () => {
    const { dataset } = generateOrganisation({ projects: 20, seed: 3 });
    const sim = afterTest.add(await startGitLabSim({ dataset }));
    const repo = dataset.projects[0]!;
    const decoy = dataset.projects[7]!;
    const commitId = sim.repositories.commit(repo, { [PATH]: groupSharesPolicy() });
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
    // The honest plan's policy, its projectId edited to the decoy's (the checksum is recomputed by planFile).
    const origin = { source: "gitlab" as const, project: repo.path_with_namespace, projectId: decoy.id, path: PATH, ref: repo.default_branch, commitId };
    const plan = planFile({ removals: [], policy: parsePolicy(groupSharesPolicy(), "p", origin), gitlabUrl: sim.url, createdAt: new Date(), wardenVersion: "0", unmatchedRules: [] });
    const read = readPlanFile(JSON.stringify(plan), "plan.json", { gitlabUrl: sim.url, maxAgeMs: 3_600_000, now: new Date() });
    const given = { kind: "gitlab" as const, project: repo.path_with_namespace, path: PATH, ref: repo.default_branch };
    const check = (plan: ReturnType<typeof readPlanFile>) => checkPlanPolicy(gitlab, plan, given, { file: "plan.json", signed: false, trust: (at, signal) => trustedLocation(gitlab, at, NAMES, signal) });
    await expect(check(read)).rejects.toThrow(new RegExp(`project ${repo.id} \\(the plan's names project ${decoy.id}\\)`));
    // The same plan with the id GitLab gives is accepted, and its apply names that project.
    const honest = readPlanFile(JSON.stringify(planFile({ removals: [], policy: parsePolicy(groupSharesPolicy(), "p", { ...origin, projectId: repo.id }), gitlabUrl: sim.url, createdAt: new Date(), wardenVersion: "0", unmatchedRules: [] })), "plan.json", { gitlabUrl: sim.url, maxAgeMs: 3_600_000, now: new Date() });
    const { policy } = await check(honest);
    const report = await applyPlan({ gitlab, plan: honest.plan, policy, apply: false });
    expect(report.policy).toMatchObject({ project: repo.path_with_namespace, projectId: repo.id });
  });
});
