/**
 * Issue 28 point 4, a plan from a repository policy: checked against the repository the run is given,
 * at the plan's commit, and that commit must be on the policy's branch (GitLab's merge_base).
 */
import { afterEach, describe, expect, it } from "vitest";
import { trustedLocation } from "../../../lib/config/policy-trust.ts";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { checkPlanPolicy, planFile, PlanFileError, type GivenPolicy } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../../sim/gitlab/index.ts";
import { groupSharesPolicy } from "../../support/policies.ts";

let sim: GitLabSim;
afterEach(() => sim?.close());

const PATH = "warden.yaml";
const LAX = groupSharesPolicy(100_000).replace('group: "partners/contractor-x"', 'group: "partners/nobody"');

async function start() {
  const { dataset } = generateOrganisation({ projects: 20, seed: 3 });
  sim = await startGitLabSim({ dataset });
  const repo = dataset.projects[0]!;
  const reviewed = sim.repositories.commit(repo, { [PATH]: groupSharesPolicy() });
  // Pushed to an unprotected branch by a developer: never the main branch's policy.
  const side = sim.repositories.commit(repo, { [PATH]: LAX }, "attacker/lax");
  const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  const given: GivenPolicy = { kind: "gitlab", project: repo.path_with_namespace, path: PATH, ref: repo.default_branch };
  // As readPlanFile gives it: the plan, and its policy parsed again with the origin it records.
  const planWith = (text: string, commitId: string) => {
    const policy = parsePolicy(text, "p", { source: "gitlab", project: repo.path_with_namespace, path: PATH, ref: repo.default_branch, commitId });
    return { plan: planFile({ removals: [], policy, gitlabUrl: sim.url, createdAt: new Date(), wardenVersion: "0", unmatchedRules: [] }), policy };
  };
  return { repo, reviewed, side, gitlab, given, planWith };
}

/** As the CLI trusts a repository location (bin/cli/apply.ts): lib/config's rules, the CLI's setting names. */
const NAMES = { project: "--policy-project", allowUnprotected: "--policy-allow-unprotected-ref" };
const check = (w: Awaited<ReturnType<typeof start>>, plan: ReturnType<Awaited<ReturnType<typeof start>>["planWith"]>, given: GivenPolicy = w.given) =>
  checkPlanPolicy(w.gitlab, plan, given, { file: "plan.json", signed: false, trust: (at, signal) => trustedLocation(w.gitlab, at, NAMES, signal) });

/** An accepted plan is judged by the location checked: the project's id GitLab gives, the ref trusted, the commit verified. */
const judgedAt = (w: Awaited<ReturnType<typeof start>>, commitId: string) => ({
  policy: { source: { source: "gitlab", project: w.repo.path_with_namespace, projectId: w.repo.id, path: PATH, ref: w.repo.default_branch, commitId } },
});

describe("a plan from a repository policy", () => {
  it("the honest plan passes: its commit's file is its text, and the commit is on the branch", async () => {
    const w = await start();
    await expect(check(w, w.planWith(groupSharesPolicy(), w.reviewed))).resolves.toMatchObject(judgedAt(w, w.reviewed));
  });

  it("a commit that is not on the policy's branch is refused, even though its file is the plan's text", async () => {
    const w = await start();
    await expect(check(w, w.planWith(LAX, w.side))).rejects.toThrow(/commit [0-9a-f]{12} is not on main, so the policy it holds was never main's/);
  });

  it("a policy text that is not the file at the plan's commit (hash recomputed) is refused", async () => {
    const w = await start();
    await expect(check(w, w.planWith(LAX, w.reviewed))).rejects.toThrow(/whose file is not the plan's policy text/);
  });

  it("a plan naming another project (the attacker's own, where they push what they like) is refused before any request", async () => {
    const w = await start();
    const other = sim.dataset.projects[1]!;
    sim.repositories.commit(other, { [PATH]: LAX });
    sim.resetCounters();
    await expect(check(w, w.planWith(LAX, w.reviewed), { ...w.given, project: other.path_with_namespace })).rejects.toThrow(PlanFileError);
    expect(sim.counters.requests).toBe(0);
  });

  it("a stale plan is refused: a commit still in the branch's history whose policy the branch has since changed (an older, stricter policy brought back)", async () => {
    const w = await start();
    // The branch's policy now allows more (a merge request reviewed and merged after the plan's commit).
    const widened = `${groupSharesPolicy()}# contractor-x approved again\n`;
    const now = sim.repositories.commit(w.repo, { [PATH]: widened });
    await expect(check(w, w.planWith(groupSharesPolicy(), w.reviewed))).rejects.toThrow(/no longer main's policy: the file at main \(commit [0-9a-f]{12}\) has changed since/);
    await expect(check(w, w.planWith(widened, now))).resolves.toMatchObject(judgedAt(w, now));
  });

  it("a plan whose commit is older than the branch's head still applies when the policy file has not changed since", async () => {
    const w = await start();
    sim.repositories.commit(w.repo, { "README.md": "unrelated" });
    await expect(check(w, w.planWith(groupSharesPolicy(), w.reviewed))).resolves.toMatchObject(judgedAt(w, w.reviewed));
  });

  it("a plan from a branch enforce would not read the policy at (Developers may push to it) is refused; the deployment's opt-out takes it", async () => {
    const w = await start();
    // A Developer's push to main is main's policy now: enforce refuses to read it, and so must apply.
    sim.protectedBranches.protect(w.repo, "main", { developersCanPush: true });
    const plan = w.planWith(groupSharesPolicy(), w.reviewed);
    await expect(check(w, plan)).rejects.toThrow(/plan\.json: its policy cannot be checked against .*: not trusted: branch "main" is protected, but Developers may push to it, .*; nothing was applied/);
    await expect(check(w, plan, { ...w.given, allowUnprotectedRef: true })).resolves.toMatchObject(judgedAt(w, w.reviewed));
  });

  it("a commit the project does not have is refused", async () => {
    const w = await start();
    await expect(check(w, w.planWith(groupSharesPolicy(), "f".repeat(40)))).rejects.toThrow(/GitLab has no such file, ref or commit/);
  });

  it("GitLab's error message stays on the refusal's one line: its newline shown as \\x0a", async () => {
    const w = await start();
    sim.addFaults({ kind: "status", status: 403, route: "GET /projects/:id/repository/merge_base", times: 1, message: "403 Forbidden\nwarden apply: nothing left to do" });
    const refused = await check(w, w.planWith(groupSharesPolicy(), w.reviewed)).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(PlanFileError);
    expect((refused as Error).message).toContain("could not be checked against");
    expect((refused as Error).message).toContain("403 Forbidden\\x0awarden apply: nothing left to do");
    expect((refused as Error).message).not.toContain("\n");
  });
});
