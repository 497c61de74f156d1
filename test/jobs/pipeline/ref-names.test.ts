/**
 * A branch or tag name may hold `#` or `?` where git allows them (`fix/#123` is a common branch name; git
 * refuses `?`, but a file name does not). 97b2eb7 sent no credential to a path holding `#` at any decoding:
 * the ref's look-up (`GET /projects/:id/repository/branches/fix%2F%23123`) went without PRIVATE-TOKEN,
 * GitLab answered 401, and the run blamed the token (a review of this session's changes). A decoded `#`
 * or `?` routes nowhere (nginx keeps it in the path): only dot segments and separators refuse a token now.
 */
import { expect, it } from "vitest";
import { runPipeline } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { pipelineWorld } from "../../support/pipeline-world.ts";
import { validated } from "../../support/report.ts";

const world = pipelineWorld();

const POLICY = parsePolicy(
  `version: 1
pipelines:
  allow:
    - project: "acme/platform/**"
      refs: ["release/*"]
`,
  "test.yaml",
);

it("starts an allowed pipeline on a protected branch whose name holds # (release/#42)", async () => {
  const { sim, platform } = world;
  sim.repositories.commit(platform, { ".gitlab-ci.yml": "build:\n  script: make\n" }, "release/#42");
  platform.protected_branches = ["main", "release/*"];
  const report = await validated(runPipeline({ gitlab: world.gitlab(), policy: POLICY, project: platform.path_with_namespace, ref: "release/#42", variables: [], apply: true }));
  expect(report.actions[0], JSON.stringify(report.actions[0])).toMatchObject({ status: "created", refKind: "branch", refProtected: true });
});
