import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { exitCode, runPipeline, type PipelineOptions } from "../../lib/jobs/index.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim, type SimProject } from "../../sim/gitlab/index.ts";
import { commitSha } from "../../sim/gitlab/repository.ts";
import { validated } from "../support/report.ts";

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

/** A start (--apply) unless told otherwise. */
function run(opts: Partial<PipelineOptions>) {
  const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  return validated(runPipeline({ gitlab, policy: POLICY, project: platform.path_with_namespace, ref: "main", variables: [], apply: true, ...opts }));
}

/** Every route the simulator saw that is not a read. */
const changes = () => Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "));

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

  it("is a dry run without apply: the same checks, GETs only, and the branch and commit it would start on", async () => {
    const audit: string[] = [];
    const report = await run({ apply: false, ref: "release/1.0", variables: [{ key: "DEPLOY_ENV", value: "staging" }], audit: { info: (message) => audit.push(message) } });
    expect(report).toMatchObject({ dryRun: true, summary: { allowed: true, rule: expect.stringMatching(/^allow\[0\]/) } });
    expect(report.actions[0]).toEqual({
      type: "create-pipeline",
      project: platform.path_with_namespace,
      ref: "release/1.0",
      refKind: "branch",
      commit: commitSha(platform, "release/1.0"),
      variables: ["DEPLOY_ENV"],
      status: "planned",
    });
    expect(exitCode(report)).toBe(2);
    // The branch name travels URL-encoded (release%2F1.0): the simulator answers it by that route only.
    expect(sim.counters.byRoute).toEqual({ "GET /projects/:id": 1, "GET /projects/:id/repository/branches/:branch": 1 });
    expect(sim.pipelines).toEqual([]);
    expect(audit).toEqual([]);
  });

  it("takes a tag when no branch has the ref's name, as GitLab does", async () => {
    const tags = parsePolicy(`version: 1\npipelines:\n  allow:\n    - { project: "acme/**", refs: ["stable/*"] }\n`, "t.yaml");
    const report = await run({ apply: false, ref: "stable/2024.06", policy: tags });
    expect(report.actions[0]).toMatchObject({ status: "planned", refKind: "tag", commit: commitSha(platform, "stable/2024.06") });
    expect(sim.counters.byRoute["GET /projects/:id/repository/tags/:tag"]).toBe(1);
    expect(changes()).toEqual([]);
  });

  it.each([true, false])("refuses a ref that is neither a branch nor a tag, naming it, and starts nothing (apply: %s)", async (apply) => {
    const report = await run({ apply, ref: "release/9.9" });
    expect(report.actions[0]).toMatchObject({ status: "refused", reason: `ref release/9.9 is neither a branch nor a tag of project ${platform.path_with_namespace}` });
    expect(report.summary.allowed).toBe(false);
    expect(changes()).toEqual([]);
    expect(exitCode(report)).toBe(1);
  });

  it("does not take another 404 on the branch (a proxy's, say) for a missing branch", async () => {
    sim.addFaults({ kind: "status", status: 404, route: "GET /projects/:id/repository/branches/:branch", times: 1 });
    await expect(run({ apply: false })).rejects.toThrow(/repository\/branches\/main answered 404: 404 Not Found/);
    expect(changes()).toEqual([]);
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
