/**
 * A pipeline on a protected branch or tag other than the default branch whose CI file takes its templates
 * from the project's own default branch (`include: project: $CI_PROJECT_PATH, ref: $CI_DEFAULT_BRANCH`), a
 * common way to keep one CI definition for every release. GitLab's CI Lint lists the templates' own local
 * includes read at the default branch's commit, as it should; taking any include of the project read at
 * another commit for a GitLab older than 16.5 (which lints the default branch whatever is asked) refused
 * the pipeline, naming a cause that was not (an upgrade) and no fix that would do.
 */
import { describe, expect, it } from "vitest";
import { runPipeline } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { ciWorld } from "../../support/ci-world.ts";
import { validated } from "../../support/report.ts";

const w = ciWorld();

const policy = () => parsePolicy(`version: 1\npipelines:\n  allow:\n    - project: "acme/platform/**"\n      refs: ["main", "release"]\n`, "test.yaml");
const CI = "include:\n  - project: $CI_PROJECT_PATH\n    ref: $CI_DEFAULT_BRANCH\n    file: ci/templates.yml\n";

async function startOn(ref: string) {
  const report = await validated(runPipeline({ gitlab: w.client(), policy: policy(), project: w.platform.path_with_namespace, ref, variables: [], apply: true }));
  return report.actions[0]!;
}

describe("pipeline: a release whose CI file includes the templates of its project's own default branch", () => {
  it("starts on a protected branch only Maintainers change: the templates' local includes were read at main's commit, not this one", async () => {
    // main (protected, Maintainers only) holds the templates and their local include.
    w.commit(CI, { "ci/templates.yml": "include:\n  - local: ci/build.yml\n", "ci/build.yml": "build:\n  script: make\n" });
    w.sim.protectedBranches.protect(w.platform, "release");
    w.sim.repositories.commit(w.platform, { ".gitlab-ci.yml": `${CI}# release 1.2\n` }, "release");
    const action = await startOn("release");
    expect(action, `refused: ${action.reason}`).toMatchObject({ status: "created", refKind: "branch", refProtected: true });
    expect(w.sim.pipelines).toHaveLength(1);
  });

  it("still refuses where the lint read this project's own CI file at another commit (a GitLab before 16.5)", async () => {
    w.commit(CI, { "ci/templates.yml": "include:\n  - local: ci/build.yml\n", "ci/build.yml": "build:\n  script: make\n" });
    w.sim.protectedBranches.protect(w.platform, "release");
    w.sim.repositories.commit(w.platform, { ".gitlab-ci.yml": `${CI}# release 1.2\n` }, "release");
    const front = await w.gitlabVersion("before-sha");
    const report = await validated(runPipeline({ gitlab: w.client(front.url), policy: policy(), project: w.platform.path_with_namespace, ref: "release", variables: [], apply: true }));
    expect(report.actions[0]).toMatchObject({ status: "refused", reason: expect.stringContaining("GitLab 16.5 or later") });
    expect(w.sim.pipelines).toEqual([]);
  });
});
