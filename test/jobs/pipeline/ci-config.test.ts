/**
 * The CI file a pipeline Warden starts runs (lib/jobs/pipeline/ci-config.ts). GitLab runs the file the
 * project's CI/CD configuration setting names, which may live in another project
 * (`file@group/project[:ref]`) or at a URL: a Developer who can push where it points (a shared
 * CI-templates project's unprotected branch) wrote what a pipeline on a fully protected `main` ran, with
 * Warden's identity. Such a project is refused now, as an unprotected ref is, unless its rule says
 * `unprotected: true`; and one whose setting GitLab does not show is refused too.
 */
import { describe, expect, it } from "vitest";
import { runPipeline } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { pipelineWorld } from "../../support/pipeline-world.ts";
import { validated } from "../../support/report.ts";

const policy = (unprotected = false) =>
  parsePolicy(`version: 1\npipelines:\n  allow:\n    - project: "acme/platform/**"\n      refs: ["main"]\n${unprotected ? "      unprotected: true\n" : ""}`, "test.yaml");

const world = pipelineWorld();

function run(unprotected = false) {
  return validated(runPipeline({ gitlab: world.gitlab(), policy: policy(unprotected), project: world.platform.path_with_namespace, ref: "main", variables: [], apply: true }));
}

describe("pipeline: the CI file the project's settings name", () => {
  it.each([
    ["another project's unprotected branch", ".gitlab-ci.yml@acme/sandbox/ci-templates:feature/mine"],
    ["another project's default branch", "ci/pipeline.yml@acme/sandbox/ci-templates"],
    ["a URL", "https://attacker.example/ci.yml"],
  ])("in %s: the start is refused, saying why and what to change, and no pipeline is created", async (_where, path) => {
    world.platform.ci_config_path = path;
    const [action] = (await run()).actions;
    expect(action).toMatchObject({ status: "refused", reason: expect.stringContaining(`runs the CI file its settings name, ${JSON.stringify(path)}, which is not a file of main`) });
    expect(action!.reason).toMatch(/Settings > CI\/CD > General pipelines > CI\/CD configuration file\), or set unprotected: true on its rule, allow\[0\]/);
    expect(world.sim.pipelines).toEqual([]);
  });

  it.each([
    ["the default (null)", undefined],
    ["another path in the ref", "ci/pipeline.yml"],
  ])("%s: the pipeline starts", async (_what, path) => {
    if (path !== undefined) world.platform.ci_config_path = path;
    expect((await run()).actions[0]).toMatchObject({ status: "created" });
  });

  it("a setting GitLab does not show is refused as one it does not trust, and a rule with unprotected: true allows it", async () => {
    world.sim.addFaults({ kind: "rewrite", route: "GET /projects/:id", times: 2, edit: (body) => ({ ...(body as object), ci_config_path: undefined }) });
    expect((await run()).actions[0]).toMatchObject({ status: "refused", reason: expect.stringMatching(/^GitLab did not say which CI file project \S+'s pipelines run/) });
    world.platform.ci_config_path = "https://ci.example/shared.yml";
    expect((await run(true)).actions[0]).toMatchObject({ status: "created" });
  });
});
