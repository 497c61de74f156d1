/**
 * A ref that names both a branch and a tag: GitLab refuses to run a pipeline on it before anything else
 * (Gitlab::Ci::Pipeline::Chain::Validate::Repository, every version from 12.x on: 400
 * `{"message":{"base":["Ref is ambiguous"]}}`). The simulator ran it, and Warden's ref look-up took the
 * branch "as GitLab resolves it" (the fidelity review's finding): safe, as GitLab refuses, but a dry run
 * said "planned". Warden now refuses such a ref itself, naming why, before any POST.
 */
import { describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { runPipeline } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import type { GitLabDataset } from "../../../sim/gitlab/index.ts";
import { startSim } from "../../support/enforce-world.ts";
import { api, enc } from "../../support/gitlab-api.ts";
import { validated } from "../../support/report.ts";
import { simGroup, simProject } from "../../support/tiny-world.ts";

/** acme/api with a protected branch v1.0.0 beside main; v1.0.0 is also one of the simulator's tags. */
function world(): GitLabDataset {
  const acme = simGroup(10, "acme", null, "internal");
  const project = { ...simProject(100, acme, "api", []), branches: ["main", "v1.0.0"], protected_branches: ["main", "v1.0.0"] };
  return { groups: [acme], users: [], projects: [project] };
}

describe("a ref that is both a branch and a tag", () => {
  it("sanity: the simulator has both a branch and a tag v1.0.0 in the project", async () => {
    const sim = await startSim({ dataset: world() });
    expect((await api(sim, `/projects/100/repository/branches/${enc("v1.0.0")}`)).status).toBe(200);
    expect((await api(sim, `/projects/100/repository/tags/${enc("v1.0.0")}`)).status).toBe(200);
  });

  it("POST /projects/:id/pipeline with ref=v1.0.0: 400 Ref is ambiguous, no pipeline", async () => {
    const sim = await startSim({ dataset: world() });
    const res = await api(sim, "/projects/100/pipeline", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ ref: "v1.0.0" }) });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: { base: ["Ref is ambiguous"] } });
    expect(sim.pipelines).toEqual([]);
  });
});

describe("Warden", () => {
  it("refuses a pipeline on an ambiguous ref itself, naming why, and sends no POST", async () => {
    const sim = await startSim({ dataset: world() });
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
    const policy = parsePolicy(`version: 1\npipelines:\n  allow:\n    - project: "acme/**"\n      refs: ["v*"]\n`, "test.yaml");
    const report = await validated(runPipeline({ gitlab, policy, project: "acme/api", ref: "v1.0.0", variables: [], apply: true }));
    expect(report.actions[0]).toMatchObject({ status: "refused", reason: expect.stringContaining('names both a branch and a tag of project acme/api: GitLab runs no pipeline on it ("Ref is ambiguous")') });
    expect(sim.counters.byRoute["POST /projects/:id/pipeline"]).toBeUndefined();
    expect(sim.pipelines).toEqual([]);
  });
});
