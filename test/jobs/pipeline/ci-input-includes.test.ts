/**
 * An include named by a file's inputs (`$[[ inputs.x ]]`; the eighth pipelines review). GitLab
 * interpolates a file's inputs before it reads the file's own include: (Ci::Config::Yaml load_result!
 * with the entry's inputs), so its static CI Lint lists the file the input names. Warden's walk reads
 * included files to see includes the lint left out (behind rules: on the requester's variables): an
 * input-named include is read as the lint took it, as a variable-named one is, and one that matches
 * nothing the lint took is refused, not taken for nothing (GitLab fails an include that names no file).
 */
import { describe, expect, it } from "vitest";
import { lintCi } from "../../../lib/gitlab/index.ts";
import { ciWorld } from "../../support/ci-world.ts";

const w = ciWorld();
const base = "spec:\n  inputs:\n    next:\n---\ninclude:\n  - local: $[[ inputs.next ]]\n";
const ci = "include:\n  - local: ci/base.yml\n    inputs:\n      next: ci/more.yml\nbuild:\n  script: make\n";

/**
 * GitLab's lint answer for the commit `checked`: the simulator's own lint of a twin commit with
 * `written` (the input written out), with `context_sha` set to the checked commit (the simulator's lint
 * does not interpolate inputs). Returns the locations it lists.
 */
async function lintedAs(checked: string, written: Record<string, string>): Promise<string[]> {
  const twin = w.sim.repositories.commit(w.platform, written, "twin", "main");
  const answer = await lintCi(w.client(), w.platform.id, twin);
  expect(answer.valid).toBe(true);
  w.sim.addFaults({
    kind: "rewrite",
    route: "GET /projects/:id/ci/lint",
    times: 1,
    edit: () => ({ valid: true, errors: [], warnings: [], merged_yaml: answer.mergedYaml, includes: answer.includes!.map((i) => ({ ...i, context_sha: checked })) }),
  });
  return answer.includes!.map((i) => i.location);
}

describe("pipeline: an include named by a file's inputs ($[[ inputs.x ]])", () => {
  it("a file included through an input is read: what it includes behind the requester's variables is judged", async () => {
    const more = `include:\n  - project: ${w.templates.path_with_namespace}\n    ref: main\n    file: deploy.yml\n    rules:\n      - if: $DEPLOY_ENV == "prod"\nmore:\n  script: make\n`;
    const checked = w.sim.repositories.commit(w.platform, { ".gitlab-ci.yml": ci, "ci/base.yml": base, "ci/more.yml": more });
    expect(await lintedAs(checked, { "ci/base.yml": "include:\n  - local: ci/more.yml\n" })).toEqual(["ci/base.yml", "ci/more.yml"]);
    const action = await w.start({ variables: [{ key: "DEPLOY_ENV", value: "prod" }] });
    expect(action, "with DEPLOY_ENV=prod the pipeline includes templates' deploy.yml at main, which its Developers push to").toMatchObject({ status: "refused" });
    expect(w.sim.pipelines).toEqual([]);
  });

  it("a file included through an input that includes nothing from elsewhere starts", async () => {
    const checked = w.sim.repositories.commit(w.platform, { ".gitlab-ci.yml": ci, "ci/base.yml": base, "ci/more.yml": "more:\n  script: make\n" });
    await lintedAs(checked, { "ci/base.yml": "include:\n  - local: ci/more.yml\n" });
    expect(await w.start({ variables: [{ key: "DEPLOY_ENV", value: "prod" }] })).toMatchObject({ status: "created" });
  });

  it("an include named by an input that matches none of the files the lint took is refused, not taken as including nothing", async () => {
    const files = {
      ".gitlab-ci.yml": "include:\n  - local: ci/base.yml\n    inputs:\n      env: prod\n",
      "ci/base.yml": "spec:\n  inputs:\n    env:\n---\ninclude:\n  - local: ci/$[[ inputs.env ]]/deploy.yml\n",
      "ci/prod/deploy.yml": "deploy:\n  script: ./deploy.sh\n",
    };
    const checked = w.sim.repositories.commit(w.platform, files);
    // A lint answer that lists ci/base.yml alone: what the input named, it resolved otherwise than Warden reads it.
    expect(await lintedAs(checked, { "ci/base.yml": "base:\n  script: make\n" })).toEqual(["ci/base.yml"]);
    const action = await w.start();
    expect(action).toMatchObject({ status: "refused", reason: expect.stringContaining("matches none of the files GitLab's CI Lint took") });
    expect(w.sim.pipelines).toEqual([]);
  });
});

/**
 * The requester's variable reaching an include through `inputs:`. GitLab expands the variables of an
 * include entry, its `inputs:` too (Ci::Config::External::Mapper::VariablesExpander walks the whole
 * entry), with the pipeline's variables, the requester's among them; the included file then interpolates
 * that value, into its own `include:` say. GitLab's CI Lint took that include with the values it had (a
 * project variable of the same name, the usual default the requester overrides), so an include named by
 * such an input is refused; the inputs elsewhere (a component's environment) shape only what runs.
 */
describe("pipeline: the requester's variable passed on as an include's input", () => {
  const prod = [{ key: "DEPLOY_ENV", value: "prod" }];

  it("include: local with inputs: {env: $DEPLOY_ENV}, whose file includes ci/$[[ inputs.env ]].yml: the requester chooses the file, so it is refused", async () => {
    const files = {
      ".gitlab-ci.yml": "include:\n  - local: ci/deploy.yml\n    inputs:\n      env: $DEPLOY_ENV\nbuild:\n  script: make\n",
      "ci/deploy.yml": "spec:\n  inputs:\n    env:\n---\ninclude:\n  - local: ci/$[[ inputs.env ]].yml\n",
      "ci/staging.yml": "staging:\n  script: ./deploy.sh staging\n",
      // Never read by Warden: it includes what any Developer of the templates project writes.
      "ci/prod.yml": `include:\n  - project: ${w.templates.path_with_namespace}\n    ref: main\n    file: deploy.yml\n`,
    };
    const checked = w.sim.repositories.commit(w.platform, files);
    // What GitLab's lint resolves with DEPLOY_ENV=staging, a project variable.
    expect(await lintedAs(checked, { "ci/deploy.yml": "include:\n  - local: ci/staging.yml\n" })).toEqual(["ci/deploy.yml", "ci/staging.yml"]);
    const action = await w.start({ variables: prod });
    expect(action, "with DEPLOY_ENV=prod GitLab includes ci/prod.yml, and through it templates' deploy.yml at main").toMatchObject({ status: "refused", reason: expect.stringContaining("an input they set") });
    expect(w.sim.pipelines).toEqual([]);
  });

  it("control: an include naming $DEPLOY_ENV outright is refused (behind rules:, so that GitLab's static lint is valid)", async () => {
    w.commit("include:\n  - local: ci/$DEPLOY_ENV.yml\n    rules:\n      - if: $DEPLOY_ENV\nbuild:\n  script: make\n", { "ci/staging.yml": "staging:\n  script: make\n" });
    expect(await w.start({ apply: false, variables: prod })).toMatchObject({ status: "refused", reason: expect.stringContaining("requester's variables name") });
  });

  it("an input passed on through a second file's inputs is the requester's still: refused", async () => {
    const files = {
      ".gitlab-ci.yml": "include:\n  - local: ci/deploy.yml\n    inputs:\n      env: $DEPLOY_ENV\nbuild:\n  script: make\n",
      "ci/deploy.yml": "spec:\n  inputs:\n    env:\n---\ninclude:\n  - local: ci/pick.yml\n    inputs:\n      which: ci/$[[ inputs.env ]].yml\n",
      "ci/pick.yml": "spec:\n  inputs:\n    which:\n---\ninclude:\n  - local: $[[ inputs.which ]]\n",
      "ci/staging.yml": "staging:\n  script: ./deploy.sh staging\n",
    };
    const checked = w.sim.repositories.commit(w.platform, files);
    await lintedAs(checked, { "ci/deploy.yml": "include:\n  - local: ci/pick.yml\n", "ci/pick.yml": "include:\n  - local: ci/staging.yml\n" });
    expect(await w.start({ variables: prod })).toMatchObject({ status: "refused", reason: expect.stringContaining("an input they set") });
    expect(w.sim.pipelines).toEqual([]);
  });

  it("a file given the requester's variable as one input and a written-out file as another includes that file: it starts", async () => {
    const files = {
      ".gitlab-ci.yml": "include:\n  - local: ci/deploy.yml\n    inputs:\n      env: $DEPLOY_ENV\n      next: ci/more.yml\nbuild:\n  script: make\n",
      "ci/deploy.yml": "spec:\n  inputs:\n    env:\n    next:\n---\ninclude:\n  - local: $[[ inputs.next ]]\ndeploy:\n  script: ./deploy.sh $[[ inputs.env ]]\n",
      "ci/more.yml": "more:\n  script: make\n",
    };
    const checked = w.sim.repositories.commit(w.platform, files);
    await lintedAs(checked, { "ci/deploy.yml": "include:\n  - local: ci/more.yml\n" });
    expect(await w.start({ variables: prod })).toMatchObject({ status: "created" });
  });
});
