/**
 * `warden exempt --apply` when the commit's answer has no usable `id` (a proxy rewriting it, a GitLab fork;
 * the exempt10 review): the commit is made, so the job goes on, the commit recorded as unknown, and the
 * merge request it opens is printed, never a TypeError with exit 1 hiding it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGitLabSim, type GitLabSim, type SimProject } from "../../sim/gitlab/index.ts";
import { warden } from "../support/cli.ts";
import { BASE, compareWorld, POLICY_PROJECT } from "../support/compare-world.ts";

const ADMIN = "glpat-sim-admin";
const PATH = "policies/warden.yaml";

let sim: GitLabSim;
let repo: SimProject;
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: compareWorld(), tokens: { [ADMIN]: { admin: true } } });
  repo = sim.dataset.projects.find((p) => p.path_with_namespace === POLICY_PROJECT)!;
  sim.repositories.commit(repo, { [PATH]: BASE });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: ADMIN, WARDEN_POLICY_PROJECT: POLICY_PROJECT, WARDEN_POLICY_PATH: PATH };
});
afterAll(() => sim?.close());

describe("warden exempt --apply: a commit answer without its id", () => {
  it("the merge request it opened is reported, not a TypeError with exit 1", async () => {
    sim.addFaults({ kind: "rewrite", method: "POST", route: "POST /projects/:id/repository/commits", times: 1, edit: (body) => ({ ...(body as object), id: undefined }) });
    const run = await warden(["exempt", "--project", "acme/app/api", "--group", "strangers", "--until", "2099-12-31", "--reason", "pen test", "--apply"], env);
    const mrs = sim.work.mergeRequests.get(repo.id) ?? [];
    // The change was made: a merge request is open on the policy repository.
    expect(mrs).toHaveLength(1);
    expect(run.stderr).not.toMatch(/TypeError|Cannot read properties/);
    // Either it succeeds naming the merge request, or it fails saying what it made; never a failure that hides it.
    expect(`${run.stdout}\n${run.stderr}`).toContain(mrs[0]!.web_url);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`opened merge request !${mrs[0]!.iid}: \\S+ \\(commit unknown on warden/exempt-\\S+\\)`));
  });
});
