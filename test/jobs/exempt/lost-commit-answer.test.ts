/**
 * `warden exempt --apply` / `/warden exempt` when the commit's answer is lost (the exempt10 review). The commit
 * is a POST sent once (lib/http never repeats it); when GitLab made it but its answer did not come back (a
 * dropped connection, a proxy's 502, the Lambda's deadline), its branch is read back once: Warden's commit at
 * its head is a change made (ExemptCommittedError naming the branch), anything else one that may or may not
 * have been. Either way it names the branch, and the same request again does not point at a merge request
 * that may not exist.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadGitLabPolicy, type PolicySettingNames } from "../../../lib/config/policy-source.ts";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { exempt, ExemptCommittedError, type ExemptRequest } from "../../../lib/jobs/exempt/index.ts";
import { startGitLabSim, type GitLabSim, type SimProject } from "../../../sim/gitlab/index.ts";
import { BASE, compareWorld, POLICY_PROJECT } from "../../support/compare-world.ts";

const ADMIN = "glpat-sim-admin";
const PATH = "policies/warden.yaml";
const NAMES: PolicySettingNames = { project: "P", path: "PATH", ref: "REF", token: "TOKEN", allowUnprotected: "ALLOW=1" };
const COMMIT_POST = "POST /projects/:id/repository/commits";

let sim: GitLabSim;
let repo: SimProject;

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: compareWorld(), tokens: { [ADMIN]: { admin: true } } });
  repo = sim.dataset.projects.find((p) => p.path_with_namespace === POLICY_PROJECT)!;
  sim.repositories.commit(repo, { [PATH]: BASE });
});
afterAll(() => sim?.close());

const client = () => new GitLabClient({ url: sim.url, token: ADMIN, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5, maxRetries: 0 } });

async function propose(request: ExemptRequest) {
  const gitlab = client();
  const base = await loadGitLabPolicy(gitlab, { project: POLICY_PROJECT, path: PATH }, { names: NAMES });
  return exempt({ gitlab, base, refSetting: "REF", request, apply: true });
}

const outcomeOf = (request: ExemptRequest) => propose(request).then(() => undefined, (err: unknown) => err as Error);
const newBranches = (before: string[]) => repo.branches.filter((b) => !before.includes(b));
const mergeRequestsFrom = (branch: string) => (sim.work.mergeRequests.get(repo.id) ?? []).filter((mr) => mr.source_branch === branch);

describe.sequential("exempt: the commit made, its answer lost", () => {
  it("a commit GitLab made whose answer was dropped is reported as a change that may have been made, naming the branch", async () => {
    const before = [...repo.branches];
    sim.addFaults({ kind: "apply-then-drop", method: "POST", route: COMMIT_POST, times: 1 });
    const outcome = await outcomeOf({ project: "acme/app/api", group: "strangers", until: "2099-12-31", reason: "pen test, lost answer" });
    const [branch] = newBranches(before);
    // The change was made: Warden's branch with its commit is on the policy repository, and no merge request.
    expect(branch).toMatch(/^warden\/exempt-/);
    expect(mergeRequestsFrom(branch!)).toEqual([]);
    // What the requester is told must say so (as a lost merge request answer does: ExemptCommittedError), and name the branch.
    expect(outcome, "a branch and a commit were made on the policy repository, reported as a plain failure").toBeInstanceOf(ExemptCommittedError);
    expect(outcome?.message).toContain(branch!);
    // Read back, the branch's head is Warden's commit (GitLab's branch answer carries its message): a commit made, its id named.
    const head = sim.repositories.resolve(repo, branch!)!.id;
    expect(outcome).toMatchObject({ committed: "yes" });
    expect(outcome?.message).toMatch(new RegExp(`^the exemption was committed on branch ${branch} \\(commit ${head.slice(0, 12)}\\), but GitLab's answer to the commit was lost \\(.*\\): open the merge request from that branch$`));
  });

  it("a commit GitLab made but a proxy answered 502 for is reported as possibly made, naming the branch", async () => {
    const before = [...repo.branches];
    sim.addFaults({ kind: "apply-then-status", status: 502, method: "POST", route: COMMIT_POST, times: 1 });
    const outcome = await outcomeOf({ project: "acme/app/api", group: "strangers", until: "2099-12-31", reason: "pen test, 502" });
    const [branch] = newBranches(before);
    expect(branch).toMatch(/^warden\/exempt-/);
    expect(outcome).toBeInstanceOf(ExemptCommittedError);
    expect(outcome?.message).toContain(branch!);
  });

  it("a branch read back whose head is not Warden's commit (a Developer pushed to it) is no proof: it may or may not have been made", async () => {
    const before = [...repo.branches];
    const pushedOver = (body: unknown) => {
      const branch = body as { name: string; commit: object };
      return { ...branch, commit: { ...branch.commit, message: "wip: someone else's commit" } };
    };
    sim.addFaults({ kind: "apply-then-drop", method: "POST", route: COMMIT_POST, times: 1 }, { kind: "rewrite", route: "GET /projects/:id/repository/branches/:branch", times: 5, edit: pushedOver });
    try {
      const outcome = await outcomeOf({ project: "acme/app/api", group: "strangers", until: "2099-12-31", reason: "pen test, pushed over" });
      const [branch] = newBranches(before);
      expect(outcome).toBeInstanceOf(ExemptCommittedError);
      expect(outcome).toMatchObject({ committed: "maybe", message: expect.stringContaining("its branch's head does not show Warden's commit: the exemption may or may not have been committed") });
      expect(mergeRequestsFrom(branch!)).toEqual([]);
    } finally {
      sim.clearFaults();
    }
  });

  it("a commit whose connection dropped before GitLab made it: the branch is not there, and the answer says it may or may not be", async () => {
    const before = [...repo.branches];
    sim.addFaults({ kind: "drop", method: "POST", route: COMMIT_POST, times: 1 });
    const outcome = await outcomeOf({ project: "acme/app/api", group: "strangers", until: "2099-12-31", reason: "pen test, dropped" });
    expect(newBranches(before)).toEqual([]);
    expect(outcome).toMatchObject({ committed: "maybe", message: expect.stringMatching(/ and its branch is not there: the exemption may or may not have been committed, on branch warden\/exempt-\S+; /) });
  });

  it("the same request again does not point the requester at a merge request that does not exist", async () => {
    const request = { project: "acme/app/api", group: "strangers", until: "2099-12-31", reason: "pen test, asked again" };
    const before = [...repo.branches];
    sim.addFaults({ kind: "apply-then-drop", method: "POST", route: COMMIT_POST, times: 1 });
    await propose(request).catch(() => undefined);
    const [branch] = newBranches(before);
    expect(branch).toMatch(/^warden\/exempt-/);
    // Asked again, as the failure invites: either the merge request is opened from Warden's own branch, or the
    // answer says there is none; not "requested already … (see its merge request)".
    const again = await outcomeOf(request);
    const opened = mergeRequestsFrom(branch!).length > 0;
    expect(opened || !/see its merge request/.test(again?.message ?? ""), `told: ${again?.message}`).toBe(true);
    expect(again?.message).toContain("if no merge request is open from that branch, check its commit and open one from it, or delete the branch and run again");
  });
});
