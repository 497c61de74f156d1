/**
 * A predefined variable the CI file redefines (the eighth pipelines review). GitLab expands
 * trigger:project and trigger:branch with the bridge's scoped variables as a hash
 * (Ci::Bridge#target_ref / #downstream_project_path), in which the job's YAML variables, the global
 * ones it inherits and the pipeline's variables come after the predefined ones and win (GitLab's
 * "CI/CD variable precedence"); `forward: yaml_variables: false` keeps them from being passed
 * downstream, not from expanding the trigger. A child pipeline's include: is expanded with its pipeline
 * variables, what its parent passed. So such a name is left as written, and refused as a variable.
 */
import { describe, expect, it } from "vitest";
import { ciWorld } from "../../support/ci-world.ts";

const w = ciWorld();
/** A rule of its own for others[0]: its protected default branch, no variables. */
const otherRule = () => `    - project: "${w.others[0]!.path_with_namespace}"\n      refs: ["${w.others[0]!.default_branch}"]\n`;
const toOther = () => `  trigger:\n    project: ${w.others[0]!.path_with_namespace}\n    branch: $CI_COMMIT_REF_NAME\n    forward:\n      yaml_variables: false\n`;

describe("pipeline: a trigger's predefined variables, redefined by the YAML", () => {
  it("a job variable CI_COMMIT_REF_NAME sends the trigger to a branch no one judged (Developer-written), so it is refused", async () => {
    const other = w.others[0]!;
    // An unprotected branch of the downstream project: any of its Developers writes its CI file.
    w.sim.repositories.commit(other, { ".gitlab-ci.yml": "pwn:\n  script: ./anything.sh\n" }, "feature/dev");
    w.commit(
      `deploy:\n  variables:\n    CI_COMMIT_REF_NAME: feature/dev\n  trigger:\n    project: ${other.path_with_namespace}\n    branch: $CI_COMMIT_REF_NAME\n    forward:\n      yaml_variables: false\n`,
    );
    const action = await w.start({ extra: otherRule() });
    expect(action, "GitLab runs the downstream pipeline on feature/dev, which no rule allows and Developers write").toMatchObject({ status: "refused" });
    expect(w.sim.pipelines).toEqual([]);
  });

  it.each([
    ["the pipeline's global variables (inherited)", () => `variables:\n  CI_COMMIT_REF_NAME: feature/dev\ndeploy:\n${toOther()}`],
    ["the trigger job's rules: variables", () => `deploy:\n  rules:\n    - if: $CI_PIPELINE_SOURCE\n      variables:\n        CI_COMMIT_REF_NAME: feature/dev\n${toOther()}`],
  ])("CI_COMMIT_REF_NAME set by %s is not taken for the ref's name: refused", async (_where, ci) => {
    w.commit(ci());
    expect(await w.start({ extra: otherRule() })).toMatchObject({ status: "refused", reason: expect.stringContaining("a predefined one its variables redefine") });
    expect(w.sim.pipelines).toEqual([]);
  });

  it("CI_COMMIT_REF_NAME defined from the requester's variable ($DEPLOY_ENV) lets them choose the downstream branch: refused", async () => {
    w.commit(`deploy:\n  variables:\n    CI_COMMIT_REF_NAME: $DEPLOY_ENV\n${toOther()}`);
    const action = await w.start({ extra: otherRule(), variables: [{ key: "DEPLOY_ENV", value: "feature/dev" }] });
    expect(action, "GitLab's trigger:branch is feature/dev, the requester's choice").toMatchObject({ status: "refused" });
    expect(w.sim.pipelines).toEqual([]);
  });

  it("a child pipeline's include named by CI_COMMIT_REF_NAME, which its parent's trigger job sets, is refused, not read as the ref's file", async () => {
    w.commit("child:\n  variables:\n    CI_COMMIT_REF_NAME: feature\n  trigger:\n    include: ci/$CI_COMMIT_REF_NAME.yml\n", {
      "ci/main.yml": "build:\n  script: make\n",
      // What GitLab's child pipeline takes: CI_COMMIT_REF_NAME is its pipeline variable, feature.
      "ci/feature.yml": `deploy:\n  trigger:\n    project: ${w.payroll.path_with_namespace}\n`,
    });
    const action = await w.start();
    expect(action, "the child pipeline is made of ci/feature.yml, which triggers a project no rule allows").toMatchObject({ status: "refused", reason: expect.stringContaining("a file named by a variable") });
    expect(w.sim.pipelines).toEqual([]);
  });
});
