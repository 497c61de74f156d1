/**
 * How GitLab versions answer the CI Lint, how GitLab reads the CI files Warden reads itself (YAML 1.1,
 * `<<` merges, `spec:` headers, `!reference`, `extends:`), what a trigger passes on, and what the check
 * costs: the rest of what a pipeline's CI file includes and triggers (ci-sources.test.ts). Merge keys are
 * read as GitLab's Psych reads them (the seventh CI-sources review): any `<<` not tagged `!!str`, quoted
 * too, merged over what the mapping set before it.
 */
import { describe, expect, it } from "vitest";
import { runPipeline } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import type { SimProject } from "../../../sim/gitlab/index.ts";
import { ciWorld } from "../../support/ci-world.ts";
import { validated } from "../../support/report.ts";

const w = ciWorld();

describe("pipeline: the CI Lint request, as GitLab versions answer it", () => {
  it("GitLab refuses content_ref and sha together (400, mutually exclusive): a plain CI file on a protected ref must still start", async () => {
    w.commit("build:\n  script: make\n");
    const front = await w.gitlabVersion("since-content-ref");
    // Asked with both, every GitLab since 16.10 refused the lint with a 400: every start under a rule without unprotected: true failed.
    await expect(w.start({ url: front.url })).resolves.toMatchObject({ status: "created" });
    expect(w.sim.pipelines).toHaveLength(1);
  });

  it("a GitLab older than the sha parameter lints the default branch: what the allowed ref's own CI file triggers must still be judged", async () => {
    w.platform.protected_branches = ["main", "release"];
    w.commit("build:\n  script: make\n");
    // The ref the rule allows, protected: its CI file (not main's) is what the pipeline runs.
    w.sim.repositories.commit(w.platform, { ".gitlab-ci.yml": `deploy:\n  trigger:\n    project: ${w.payroll.path_with_namespace}\n    branch: feature/anything\n` }, "release");
    const front = await w.gitlabVersion("before-sha");
    const report = await validated(
      runPipeline({ gitlab: w.client(front.url), policy: parsePolicy(`version: 1\npipelines:\n  allow:\n    - project: "acme/platform/**"\n      refs: ["release"]\n`, "test.yaml"), project: w.platform.path_with_namespace, ref: "release", variables: [], apply: true }),
    );
    expect(report.actions[0], "release starts a pipeline in w.payroll, on a branch no rule allows, as Warden; Warden judged main's CI file").toMatchObject({ status: "refused" });
    expect(w.sim.pipelines).toEqual([]);
  });
});

describe("pipeline: CI files read as GitLab reads them (YAML 1.1, `<<` merge keys: Psych)", () => {
  it("a trigger merged into a job with `<<: *anchor` (GitLab's documented YAML anchors) is judged: a pipeline in a project no rule allows is refused", async () => {
    // GitLab's loader (Psych) merges `<<` keys, as its docs' "YAML anchors" show: `deploy` becomes a
    // trigger job. The `yaml` package parses YAML 1.2 without merge keys: `deploy` has only a "<<" key.
    const child = `.defs:\n  w.payroll: &w.payroll\n    trigger:\n      project: ${w.payroll.path_with_namespace}\n      branch: feature/anything\n      forward:\n        pipeline_variables: true\ndeploy:\n  <<: *w.payroll\n`;
    w.commit("child:\n  trigger:\n    include: ci/child.yml\n", { "ci/child.yml": child });
    const action = await w.start({ variables: [{ key: "DEPLOY_ENV", value: "prod" }] });
    expect(action, "the child pipeline starts w.payroll on feature/anything, as Warden, with the requester's variables").toMatchObject({ status: "refused" });
    expect(w.sim.pipelines).toEqual([]);
  });

  it.each([
    ["in the CI file", (job: string) => [job] as const],
    ["in a child pipeline's file", (job: string) => ["child:\n  trigger:\n    include: ci/child.yml\n", { "ci/child.yml": job }] as const],
  ])("a job named __proto__ (to GitLab a name like any other) %s is judged: its trigger of a project no rule allows is refused", async (_where, files) => {
    // Assigned as a key, `__proto__` set the read mapping's prototype: the job, and its trigger, were out of the walk's sight.
    const [ci, more] = files(`build:\n  script: make\n__proto__:\n  trigger:\n    project: ${w.payroll.path_with_namespace}\n    branch: feature/anything\n`);
    w.commit(ci, more);
    expect(await w.start()).toMatchObject({ status: "refused", reason: expect.stringContaining(w.payroll.path_with_namespace) });
    expect(w.sim.pipelines).toEqual([]);
  });

  it("an include behind rules: merged into the root with `<<: *anchor` is judged as one written there (GitLab merges it before reading include:)", async () => {
    // Psych merges `<<` as it loads the file: the root has include: with rules:, which a static lint,
    // without the pipeline's variables, leaves out (the simulator evaluates include rules as GitLab's does).
    // Warden's own scan of the CI file for such includes reads YAML 1.2: the root has only a "<<" key.
    const ci = `.includes: &includes\n  include:\n    - project: ${w.templates.path_with_namespace}\n      ref: main\n      file: deploy.yml\n      rules:\n        - if: '$DEPLOY_ENV == "prod"'\n<<: *includes\nbuild:\n  script: make\n`;
    w.commit(ci);
    const action = await w.start({ variables: [{ key: "DEPLOY_ENV", value: "prod" }] });
    expect(action, "with DEPLOY_ENV=prod the pipeline includes w.templates' main, which every Developer of w.templates pushes to").toMatchObject({ status: "refused" });
    expect(w.sim.pipelines).toEqual([]);
  });
});

describe("pipeline: what a trigger passes on", () => {
  it("a trigger job's own variables (forwarded as yaml_variables by default) are judged by the downstream project's rule", async () => {
    const [other] = w.others as [SimProject];
    // The rule for `other` allows no variable: Warden would not start a pipeline there with TEMPLATES_REF set.
    const extra = `    - project: "${other.path_with_namespace}"\n      refs: ["${other.default_branch}"]\n`;
    w.commit(`deploy:\n  variables:\n    TEMPLATES_REF: main\n  trigger:\n    project: ${other.path_with_namespace}\n`);
    const action = await w.start({ extra });
    expect(action, "the downstream pipeline gets TEMPLATES_REF=main as a pipeline variable, which no rule for it allows").toMatchObject({ status: "refused" });
    expect(w.sim.pipelines).toEqual([]);
  });
});

describe("pipeline: what the check costs", () => {
  it("triggers of the same allowed pipeline are judged once, not once per job and level (6 jobs a level, 3 levels)", async () => {
    const [b, c, d] = w.others as [SimProject, SimProject, SimProject];
    const jobs = (target: SimProject) => Array.from({ length: 6 }, (_, i) => `deploy-${i}:\n  trigger: ${target.path_with_namespace}\n`).join("");
    w.commit(jobs(b));
    w.commitTo(b, jobs(c));
    w.commitTo(c, jobs(d));
    w.commitTo(d, "build:\n  script: make\n");
    const extra = [b, c, d].map((p) => `    - project: "${p.path_with_namespace}"\n      refs: ["${p.default_branch}"]\n`).join("");
    expect(await w.start({ extra })).toMatchObject({ status: "created" });
    // Four distinct pipelines (w.platform, b, c, d): judged once each, not 1 + 6 + 36 + 216 = 259 lints and five times as many other GETs.
    expect(w.sim.counters.byRoute["GET /projects/:id/ci/lint"]).toBeLessThanOrEqual(4);
  });
});

/**
 * CI files as w.platform teams write them (a review of this session's changes): an include behind a rule on
 * the ref (`if: $CI_COMMIT_BRANCH == "main"`, which a static lint, knowing no ref, leaves out while the
 * pipeline on main takes it), a file with inputs (a `spec:` header, then `---`), a key written twice
 * (Psych takes the last), a component given the requester's variable as an input.
 */
describe("pipeline: CI files as w.platform teams write them", () => {
  it("an include of another project's file at a branch its Developers push to, behind rules: if: $CI_COMMIT_BRANCH == \"main\", is refused", async () => {
    w.commit(`include:\n  - project: ${w.templates.path_with_namespace}\n    ref: main\n    file: deploy.yml\n    rules:\n      - if: $CI_COMMIT_BRANCH == "main"\nbuild:\n  script: make\n`);
    expect(await w.start()).toMatchObject({ status: "refused", reason: expect.stringContaining("Developers may push to it") });
    expect(w.sim.pipelines).toEqual([]);
  });

  it("an include named by the ref's own variables ($CI_COMMIT_REF_NAME) is judged as the pipeline on that ref names it", async () => {
    w.commit(`include:\n  - project: ${w.templates.path_with_namespace}\n    ref: $CI_COMMIT_REF_NAME\n    file: deploy.yml\n    rules:\n      - if: $CI_COMMIT_BRANCH\n`);
    // On main, that is w.templates' main, which its Developers push to.
    expect(await w.start()).toMatchObject({ status: "refused", reason: expect.stringContaining("Developers may push to it") });
  });

  it("a child pipeline's file with a spec: header is judged by its jobs: a trigger of a project no rule allows is refused", async () => {
    const child = `spec:\n  inputs:\n    environment:\n      default: staging\n---\ndeploy:\n  trigger:\n    project: ${w.payroll.path_with_namespace}\n    branch: feature/anything\n`;
    w.commit("child:\n  trigger:\n    include: ci/child.yml\n", { "ci/child.yml": child });
    expect(await w.start()).toMatchObject({ status: "refused", reason: expect.stringContaining(w.payroll.path_with_namespace) });
    expect(w.sim.pipelines).toEqual([]);
  });

  it("a file with a key written twice (GitLab takes the last) starts", async () => {
    const twice = "test:\n  variables:\n    A: '1'\n  script: make test\n  variables:\n    B: '2'\n";
    w.commit(twice, { "ci/child.yml": twice });
    expect(await w.start()).toMatchObject({ status: "created" });
    w.commit("child:\n  trigger:\n    include: ci/child.yml\n", { "ci/child.yml": twice });
    expect(await w.start()).toMatchObject({ status: "created" });
  });

  it("a component at a ref only Maintainers change, given the requester's DEPLOY_ENV as an input, starts", async () => {
    w.commit(`include:\n  - component: $CI_SERVER_FQDN/${w.templates.path_with_namespace}/deploy@release\n    inputs:\n      environment: $DEPLOY_ENV\n`);
    expect(await w.start({ variables: [{ key: "DEPLOY_ENV", value: "prod" }] })).toMatchObject({ status: "created" });
  });
});

/**
 * The files Warden reads itself (a child pipeline's, and its own files the lint leaves out), read as GitLab
 * reads them (the third CI-sources review): a file named by the requester's variable or a wildcard where
 * the lint does not resolve it, a job written as a `!reference`, `yes` for true (YAML 1.1), a trigger a
 * job takes by `extends:` with variables of its own; and a trigger naming the ref by its predefined variable.
 */
describe("pipeline: the files Warden reads itself, read as GitLab reads them", () => {
  const prod = [{ key: "DEPLOY_ENV", value: "prod" }];
  const payrollTrigger = () => `  trigger:\n    project: ${w.payroll.path_with_namespace}\n    branch: feature/anything\n`;
  const otherRule = () => `    - project: "${w.others[0]!.path_with_namespace}"\n      refs: ["${w.others[0]!.default_branch}"]\n`;

  it("a file of its own named by the requester's variable is refused: they would choose what is included", async () => {
    w.commit("include:\n  - local: ci/envs/$DEPLOY_ENV.yml\n    rules:\n      - if: $DEPLOY_ENV\nbuild:\n  script: make\n", {
      "ci/envs/prod.yml": `include:\n  - project: ${w.templates.path_with_namespace}\n    ref: main\n    file: deploy.yml\n`,
    });
    expect(await w.start({ variables: prod })).toMatchObject({ status: "refused", reason: expect.stringContaining("which the requester's variables name") });
    expect(w.sim.pipelines).toEqual([]);
  });

  // GitLab expands %NAME% in an include or a trigger as it does $NAME (its ExpandVariables).
  it.each([
    ["a file of its own", "include:\n  - local: ci/envs/%DEPLOY_ENV%.yml\n    rules:\n      - if: $DEPLOY_ENV\nbuild:\n  script: make\n"],
    ["a child pipeline's file", "child:\n  trigger:\n    include: ci/envs/%DEPLOY_ENV%.yml\n"],
  ])("%s named by the requester's variable between percent signs is refused, not read as a file of that literal name", async (_what, ci) => {
    w.commit(ci, { "ci/envs/prod.yml": `include:\n  - project: ${w.templates.path_with_namespace}\n    ref: main\n    file: deploy.yml\n` });
    expect(await w.start({ variables: prod })).toMatchObject({ status: "refused" });
    expect(w.sim.pipelines).toEqual([]);
  });

  it("a child pipeline made of a wildcard of the project's files, which no lint resolves, is refused", async () => {
    w.commit("child:\n  trigger:\n    include: ci/child/*.yml\n", { "ci/child/deploy.yml": `deploy:\n${payrollTrigger()}` });
    expect(await w.start()).toMatchObject({ status: "refused", reason: expect.stringContaining("a file named by a variable or a wildcard") });
    expect(w.sim.pipelines).toEqual([]);
  });

  it("a child pipeline's job written as !reference [.defs, w.payroll] is judged as the trigger job GitLab makes of it", async () => {
    const child = `.defs:\n  w.payroll:\n  ${payrollTrigger().trimEnd().replaceAll("\n", "\n  ")}\ndeploy: !reference [.defs, w.payroll]\n`;
    w.commit("child:\n  trigger:\n    include: ci/child.yml\n", { "ci/child.yml": child });
    expect(await w.start()).toMatchObject({ status: "refused", reason: expect.stringContaining(`job "deploy"`) });
    expect(w.sim.pipelines).toEqual([]);
  });

  it("forward: pipeline_variables: yes (true in YAML 1.1, as GitLab reads it) passes the requester's variables on, judged by that project's rule", async () => {
    w.commit(`include:\n  - local: ci/prod.yml\n    rules:\n      - if: $DEPLOY_ENV == "prod"\nbuild:\n  script: make\n`, {
      "ci/prod.yml": `deploy:\n  trigger:\n    project: ${w.others[0]!.path_with_namespace}\n    forward:\n      pipeline_variables: yes\n`,
    });
    expect(await w.start({ extra: otherRule(), variables: prod })).toMatchObject({ status: "refused", reason: expect.stringContaining("variable DEPLOY_ENV not allowed") });
  });

  it("a job that takes its trigger by extends: passes its own variables on, judged by that project's rule", async () => {
    const child = `.base:\n  trigger:\n    project: ${w.others[0]!.path_with_namespace}\ndeploy:\n  extends: .base\n  variables:\n    TEMPLATES_REF: main\n`;
    w.commit("child:\n  trigger:\n    include: ci/child.yml\n", { "ci/child.yml": child });
    expect(await w.start({ extra: otherRule() })).toMatchObject({ status: "refused", reason: expect.stringContaining("variable TEMPLATES_REF not allowed") });
  });

  it("a trigger of the same branch downstream (branch: $CI_COMMIT_REF_NAME), where a rule allows it, starts", async () => {
    w.commit(`deploy:\n  trigger:\n    project: ${w.others[0]!.path_with_namespace}\n    branch: $CI_COMMIT_REF_NAME\n`);
    expect(w.others[0]!.default_branch).toBe("main");
    expect(await w.start({ extra: otherRule() })).toMatchObject({ status: "created" });
  });
});

const parent = "child:\n  trigger:\n    include: ci/child.yml\n";

describe("pipeline: merge keys as Psych reads them (a quoted `<<` merges, and overwrites what came before)", () => {
  it("a quoted \"<<\" key (Psych merges it) that brings a trigger of a project no rule allows is refused", async () => {
    const child = `deploy:\n  "<<":\n    trigger:\n      project: ${w.payroll.path_with_namespace}\n`;
    w.commit(parent, { "ci/child.yml": child });
    const action = await w.start();
    expect(action, "Psych reads deploy as { trigger: { project: payroll } }").toMatchObject({ status: "refused" });
    expect(w.sim.pipelines).toEqual([]);
  });

  it("a `<<` written after the job's own trigger (Psych's merge! overwrites it) is judged as GitLab reads it", async () => {
    const child = `deploy:\n  trigger:\n    include: ci/empty.yml\n  <<: { trigger: { project: ${w.payroll.path_with_namespace} } }\n`;
    w.commit(parent, { "ci/child.yml": child, "ci/empty.yml": "build:\n  script: make\n" });
    const action = await w.start();
    expect(action, "Psych reads deploy's trigger as payroll's; a reader keeping the key set before it, as ci/empty.yml").toMatchObject({ status: "refused" });
    expect(w.sim.pipelines).toEqual([]);
  });

  it("a top-level quoted \"<<\" that brings an include of another project's branch Developers push to is refused", async () => {
    const child = `"<<":\n  include:\n    - project: ${w.templates.path_with_namespace}\n      ref: main\n      file: deploy.yml\nbuild:\n  script: make\n`;
    w.commit(parent, { "ci/child.yml": child });
    const action = await w.start();
    expect(action, "Psych reads the child file's include: templates@main, which its Developers write").toMatchObject({ status: "refused" });
    expect(w.sim.pipelines).toEqual([]);
  });
});
