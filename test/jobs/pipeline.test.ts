import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { exitCode, runPipeline, type PipelineOptions } from "../../lib/jobs/index.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim, type SimProject } from "../sim/gitlab/index.ts";

const POLICY = parsePolicy(
  `version: 1
pipelines:
  allow:
    - project: "acme/platform/**"
      refs: ["main", "release/*"]
      variables: ["DEPLOY_ENV", "DRY_RUN"]
`,
  "test.yaml",
);

let sim: GitLabSim;
let platform: SimProject;
beforeEach(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 200, seed: 3 }).dataset });
  platform = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/platform/"))!;
});
afterEach(() => sim.close());

function run(opts: Partial<PipelineOptions>) {
  const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  return runPipeline({ gitlab, policy: POLICY, project: platform.path_with_namespace, ref: "main", variables: [], ...opts });
}

describe("pipeline job", () => {
  it("starts an allowed pipeline (201) and reports its id, status and web_url", async () => {
    const report = await run({ ref: "release/1.0", variables: [{ key: "DEPLOY_ENV", value: "prod+eu 1" }] });
    const [action] = report.actions;
    expect(action).toMatchObject({ status: "created", project: platform.path_with_namespace, ref: "release/1.0", variables: ["DEPLOY_ENV"], pipelineId: expect.any(Number) });
    expect(action!.webUrl).toMatch(new RegExp(`/${platform.path_with_namespace}/-/pipelines/\\d+$`));
    // Values travel intact in the JSON body ('+' and spaces included) and stay out of the report.
    expect(sim.pipelines).toEqual([expect.objectContaining({ project_id: platform.id, ref: "release/1.0", variables: [{ key: "DEPLOY_ENV", value: "prod+eu 1" }] })]);
    expect(JSON.stringify(report)).not.toContain("prod+eu");
    expect(exitCode(report)).toBe(0);
  });

  it.each([
    ["a project outside the rules", { project: "acme/mobile/ios/whatever" }, /project acme\/mobile\/ios\/whatever/],
    ["a ref outside the rules", { ref: "feature/login" }, /feature\/login/],
    ["variables not listed (named, not dropped)", { variables: [{ key: "DEPLOY_ENV", value: "x" }, { key: "SECRET_SAUCE", value: "y" }] }, /SECRET_SAUCE/],
  ])("refuses %s with the reason and no call to start anything", async (_name, opts, reason) => {
    const report = await run(opts);
    expect(report.actions[0]).toMatchObject({ status: "refused", reason: expect.stringMatching(reason) });
    expect(sim.counters.byRoute["POST /projects/:id/pipeline"]).toBeUndefined();
    expect(sim.pipelines).toEqual([]);
    expect(exitCode(report)).toBe(1);
  });

  it.each([
    ["a ref git would refuse", { ref: "main..release/1.0" }, /^ref "main\.\.release\/1\.0" is not a valid git ref name/],
    ["a ref with a control character", { ref: "main\x1b[2K" }, /is not a valid git ref name: it contains a space or a control character/],
    ["a variable given twice", { variables: [{ key: "DEPLOY_ENV", value: "a" }, { key: "DEPLOY_ENV", value: "b" }] }, /^variable DEPLOY_ENV is given twice$/],
  ])("refuses %s itself, before any request (the console and worker path)", async (_name, opts, reason) => {
    const report = await run(opts);
    expect(report.actions[0]).toMatchObject({ status: "refused", reason: expect.stringMatching(reason) });
    expect(sim.counters.requests).toBe(0);
    expect(exitCode(report)).toBe(1);
  });

  it("throws, before any request, when the policy has no pipelines section", async () => {
    await expect(run({ policy: parsePolicy("version: 1\n", "t.yaml") })).rejects.toThrow(/^the policy has no pipelines section: add pipelines\.allow/);
    expect(sim.counters.requests).toBe(0);
  });

  it("judges the project GitLab resolves, so an old path cannot borrow another project's rule", async () => {
    const renamed = sim.dataset.projects.find((p) => p.previous_paths.length > 0)!;
    const oldPath = renamed.previous_paths[0]!;
    const policyFor = (glob: string) => parsePolicy(`version: 1\npipelines:\n  allow:\n    - { project: "${glob}", refs: [main] }\n`, "t.yaml");

    const byOldRule = await run({ project: oldPath, policy: policyFor(oldPath) });
    expect(byOldRule.actions[0]).toMatchObject({ status: "refused", project: renamed.path_with_namespace });
    expect(sim.pipelines).toEqual([]);

    // Requested by its old path while only the current one is allowed: refused before any call (the
    // requester must name the project as it is now); by its current path it starts, by numeric id.
    const byNewRule = await run({ project: oldPath, policy: policyFor(renamed.path_with_namespace) });
    expect(byNewRule.actions[0]!.status).toBe("refused");
    expect(byNewRule.actions[0]!.reason).toMatch(/project/);
    const direct = await run({ project: renamed.path_with_namespace, policy: policyFor(renamed.path_with_namespace) });
    expect(direct.actions[0]!.status).toBe("created");
    expect(sim.pipelines.map((p) => p.project_id)).toEqual([renamed.id]);
  });

  it("surfaces GitLab's 400 for an unknown ref clearly", async () => {
    const report = await run({ ref: "release/9.9" });
    expect(report.actions[0]).toMatchObject({ status: "failed", error: expect.stringMatching(/answered 400: \{"base":\["Reference not found"\]\}/) });
  });

  it("reports a 502 after sending as unknown, and never retries the POST", async () => {
    sim.addFaults({ kind: "apply-then-status", status: 502, route: "POST /projects/:id/pipeline", times: 1 });
    const report = await run({});
    expect(report.actions[0]).toMatchObject({ status: "unknown", error: expect.stringMatching(/^unknown — check the project's pipelines/) });
    expect(sim.counters.byRoute["POST /projects/:id/pipeline"]).toBe(1);
    expect(sim.pipelines).toHaveLength(1);
    expect(exitCode(report)).toBe(1);
  });

  it("reports GitLab's own 500 after sending as unknown too, and never retries the POST", async () => {
    sim.addFaults({ kind: "apply-then-status", status: 500, route: "POST /projects/:id/pipeline", times: 1 });
    const report = await run({});
    expect(report.actions[0]!.status).toBe("unknown");
    expect(sim.pipelines).toHaveLength(1);
  });

  it("retries the POST after a 429, which GitLab answers before doing anything", async () => {
    sim.addFaults({ kind: "429", headers: "retry-after", seconds: 0, route: "POST /projects/:id/pipeline", times: 1 });
    const report = await run({});
    expect(report.actions[0]!.status).toBe("created");
    expect(sim.pipelines).toHaveLength(1);
  });
});
