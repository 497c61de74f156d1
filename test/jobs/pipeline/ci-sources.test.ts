/**
 * What the CI file of an allowed, protected ref hands to others (the pipeline review's findings, third
 * pass). GitLab resolves `include:` with the pipeline user's access, Warden's: another project's file at a
 * branch its Developers push to, a URL, a component at a branch, is written by someone no rule judged, as
 * a ci_config_path in another project is (ci-config.test.ts); and `trigger:` starts pipelines in other
 * projects as Warden's user too. Warden asks GitLab's CI Lint what the file resolves to at the checked
 * commit (the simulator resolves includes as GitLab does: sim/gitlab/ci-lint.ts) and judges each source.
 */
import { describe, expect, it } from "vitest";
import { runPipeline } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import type { SimProject } from "../../../sim/gitlab/index.ts";
import { ciWorld } from "../../support/ci-world.ts";
import { validated } from "../../support/report.ts";

const w = ciWorld();

describe("pipeline: what the CI file includes", () => {
  it.each([
    ["another project's file at its default branch, which its Developers push to", () => `include:\n  - project: ${w.templates.path_with_namespace}\n    file: deploy.yml\n`, "include: project"],
    ["another project's file at a branch its Developers push to", () => `include:\n  - project: ${w.templates.path_with_namespace}\n    ref: main\n    file: deploy.yml\n`, "Developers may push to it"],
    ["a URL", () => "include:\n  - remote: https://user:secret@ci.example/shared/deploy.yml?token=signed\n", "include: remote"],
    ["a CI/CD component at a branch its Developers push to", () => `include:\n  - component: gitlab.example.com/${w.templates.path_with_namespace}/deploy@main\n`, "include: component"],
    ["a file of its own that includes another project's at a branch its Developers push to", () => "include: ci/base.yml\n", "include: project"],
  ])("%s: refused, saying which and what to change, and no pipeline starts", async (_what, ci, says) => {
    w.commit(ci(), { "ci/base.yml": `include:\n  - project: ${w.templates.path_with_namespace}\n    file: deploy.yml\n` });
    const action = await w.start();
    expect(action).toMatchObject({ status: "refused" });
    expect(action.reason).toContain(says);
    expect(action.reason).toContain("unprotected: true");
    // A remote include's credentials (user:password, a signed query) are quoted by scheme, host and path only.
    expect(action.reason).not.toMatch(/secret|signed/);
    expect(w.sim.pipelines).toEqual([]);
  });

  it.each([
    ["its own files and GitLab's templates", () => "include:\n  - local: ci/base.yml\n  - template: Security/SAST.gitlab-ci.yml\n"],
    ["another project's file at a branch only Maintainers change", () => `include:\n  - project: ${w.templates.path_with_namespace}\n    ref: release\n    file: deploy.yml\n`],
    ["another project's file at a commit", () => `include:\n  - project: ${w.templates.path_with_namespace}\n    ref: ${w.templatesCommit}\n    file: deploy.yml\n`],
    ["a component at a branch only Maintainers change", () => `include:\n  - component: gitlab.example.com/${w.templates.path_with_namespace}/deploy@release\n`],
    ["a component named by $CI_SERVER_FQDN, as GitLab's docs write it, at a branch only Maintainers change", () => `include:\n  - component: $CI_SERVER_FQDN/${w.templates.path_with_namespace}/deploy@release\n`],
  ])("%s: the pipeline starts", async (_what, ci) => {
    w.commit(ci(), { "ci/base.yml": "build:\n  script: make\n" });
    expect(await w.start()).toMatchObject({ status: "created" });
    expect(w.sim.pipelines).toHaveLength(1);
  });

  // GitLab reads an include (and a component) at the commit git resolves its ref to, a tag before a branch: a Developer
  // who tags a commit of their own `release` after the check chooses what the pipeline includes (a child pipeline's, hours later).
  it.each([
    ["no protected-tag rule matches its name", () => undefined, "no protected-tag rule matches that name"],
    ["a protected-tag rule matching it lets Developers create it", () => w.sim.protectedTags.protect(w.templates, "rel*", { developersCanCreate: true }), `its protected-tag rule "rel*" lets Developers create it`],
  ])("another project's file or component at a branch only Maintainers change, where a Developer may create a tag of its name (%s): refused", async (_what, rules, says) => {
    w.templates.protected_tags = [];
    rules();
    for (const ci of [`include:\n  - project: ${w.templates.path_with_namespace}\n    ref: release\n    file: deploy.yml\n`, `include:\n  - component: gitlab.example.com/${w.templates.path_with_namespace}/deploy@release\n`]) {
      w.commit(ci);
      expect(await w.start()).toMatchObject({ status: "refused", reason: expect.stringMatching(new RegExp(`a Developer may create a tag of the same name \\(${says.replace(/[*()]/g, "\\$&")}\\).*Protected tags`)) });
    }
    expect(w.sim.pipelines).toEqual([]);
  });

  it("an included project renamed since the file was written is named as the file names it, not where GitLab has it now", async () => {
    // Whoever reads the answer (a chat user, the file's author) may not see where it went; GitLab, answering them 404, would not show them.
    w.templates.protected_tags = [];
    const old = w.templates.path_with_namespace;
    w.sim.renameProject(w.templates.id, "templates-private-2026");
    try {
      // In a child pipeline's file, which CI Lint does not resolve: Warden reads it, and looks the project up itself.
      w.commit("child:\n  trigger:\n    include: ci/child.yml\n", { "ci/child.yml": `include:\n  - project: ${old}\n    ref: release\n    file: deploy.yml\nbuild:\n  script: make\n` });
      const action = await w.start();
      expect(action).toMatchObject({ status: "refused", reason: expect.stringContaining(`branch release of project ${old} is protected, but a Developer may create a tag of the same name`) });
      expect(action.reason).not.toContain("templates-private-2026");
    } finally {
      w.sim.renameProject(w.templates.id, old.split("/").at(-1)!);
    }
  });

  it("a file trusted by its ref may include files of its own project; what it includes from elsewhere is judged too", async () => {
    const shared = `include:\n  - project: ${w.templates.path_with_namespace}\n    ref: release\n    file: deploy.yml\n`;
    w.sim.repositories.commit(w.templates, { "deploy.yml": "include: more.yml\n", "more.yml": "more:\n  script: ./more.sh\n" }, "release");
    w.commit(shared);
    expect(await w.start()).toMatchObject({ status: "created" });

    w.payroll.protected_branches = [];
    w.sim.repositories.commit(w.templates, { "more.yml": `include:\n  - project: ${w.payroll.path_with_namespace}\n    file: x.yml\n` }, "release");
    w.sim.repositories.commit(w.payroll, { "x.yml": "x:\n  script: ./x.sh\n" });
    const refused = await w.start();
    expect(refused).toMatchObject({ status: "refused" });
    expect(refused.reason).toContain(w.payroll.path_with_namespace);
  });

  it("a CI file GitLab finds invalid is refused before any POST; a dry run reads only", async () => {
    w.commit("include:\n  - local: missing.yml\n");
    const action = await w.start({ apply: false });
    expect(action).toMatchObject({ status: "refused", reason: expect.stringContaining("invalid") });
    expect(Object.keys(w.sim.counters.byRoute).filter((route) => !route.startsWith("GET "))).toEqual([]);
  });

  it("a GitLab whose CI Lint does not list the includes is not taken for one that has none", async () => {
    w.commit("build:\n  script: make\n");
    w.sim.addFaults({ kind: "rewrite", route: "GET /projects/:id/ci/lint", times: 1, edit: (body) => ({ ...(body as object), includes: undefined }) });
    expect(await w.start()).toMatchObject({ status: "refused", reason: expect.stringContaining("does not list") });
    expect(w.sim.pipelines).toEqual([]);
  });

  it("a rule with unprotected: true trusts whoever writes the CI file, and does not ask", async () => {
    w.commit("include:\n  - remote: https://ci.example/deploy.yml\n");
    const extra = `    - project: "${w.platform.path_with_namespace}"\n      refs: ["main"]\n      unprotected: true\n`;
    expect(await w.start({ extra })).toMatchObject({ status: "created" });
    expect(w.sim.counters.byRoute["GET /projects/:id/ci/lint"]).toBeUndefined();
  });
});

/**
 * GitLab's static CI Lint evaluates an include's `rules:` with no pipeline variable, so an include behind
 * `rules: [if: $DEPLOY_ENV == "prod"]` is not in its answer (the simulator's lint evaluates them so), yet the
 * pipeline Warden starts with the requester's DEPLOY_ENV=prod includes it. Warden reads the project's own CI
 * files for what the lint cannot show.
 */
describe("pipeline: what the CI file includes behind rules:, which the static lint does not list", () => {
  const prodOnly = "    rules:\n      - if: $DEPLOY_ENV == \"prod\"\n";

  it("another project's file behind rules: is judged by its ref whatever its rules: refused where Developers push, started where only Maintainers do", async () => {
    w.commit(`include:\n  - project: ${w.templates.path_with_namespace}\n    ref: main\n    file: deploy.yml\n${prodOnly}`);
    const action = await w.start({ variables: [{ key: "DEPLOY_ENV", value: "prod" }] });
    expect(action).toMatchObject({ status: "refused", reason: expect.stringContaining("Developers may push to it") });
    w.commit(`include:\n  - project: ${w.templates.path_with_namespace}\n    ref: release\n    file: deploy.yml\n${prodOnly}`);
    expect(await w.start({ variables: [{ key: "DEPLOY_ENV", value: "prod" }] })).toMatchObject({ status: "created" });
  });

  it("a file of its own behind rules: is read: what it includes and triggers is judged", async () => {
    const conditional = `include:\n  - local: ci/prod.yml\n${prodOnly}`;
    w.commit(conditional, { "ci/prod.yml": `deploy:\n  trigger: ${w.payroll.path_with_namespace}\n` });
    expect(await w.start()).toMatchObject({ status: "refused", reason: expect.stringContaining(`in project "${w.payroll.path_with_namespace}", which Warden would not start itself`) });
    w.commit(conditional, { "ci/prod.yml": `include:\n  - project: ${w.templates.path_with_namespace}\n    file: deploy.yml\n` });
    expect(await w.start()).toMatchObject({ status: "refused", reason: expect.stringContaining("Developers may push to it") });
    w.commit(conditional, { "ci/prod.yml": "deploy:\n  script: ./deploy.sh\n" });
    expect(await w.start()).toMatchObject({ status: "created" });
  });

  it("another project's file named by a variable is refused", async () => {
    w.commit(`include:\n  - project: acme/$DEPLOY_ENV\n    file: deploy.yml\n`);
    expect(await w.start({ apply: false })).toMatchObject({ status: "refused" });
  });
});

describe("pipeline: what the CI file starts", () => {
  it("a pipeline in a project no rule allows (on a ref no rule allows, with the requester's variables) is refused", async () => {
    w.commit(`deploy:\n  trigger:\n    project: ${w.payroll.path_with_namespace}\n    branch: feature/anything\n    forward:\n      pipeline_variables: true\n`);
    const action = await w.start({ variables: [{ key: "DEPLOY_ENV", value: "prod" }] });
    expect(action).toMatchObject({ status: "refused" });
    expect(action.reason).toContain(`no pipelines.allow rule matches project ${w.payroll.path_with_namespace}`);
    expect(w.sim.pipelines).toEqual([]);
  });

  it("a pipeline in a project a rule allows, on its protected default branch, starts; forwarded variables are judged by that project's rule", async () => {
    // Outside acme/platform/**, whose rule allows DEPLOY_ENV: this project's allows no variable.
    const other = w.sim.dataset.projects.filter((p) => !p.path_with_namespace.startsWith("acme/platform/") && p !== w.templates && p !== w.payroll)[0]!;
    other.protected_branches = [other.default_branch];
    const extra = `    - project: "${other.path_with_namespace}"\n      refs: ["${other.default_branch}"]\n`;
    w.commit(`deploy:\n  trigger: ${other.path_with_namespace}\n`);
    expect(await w.start({ extra, variables: [{ key: "DEPLOY_ENV", value: "prod" }] })).toMatchObject({ status: "created" });

    w.commit(`deploy:\n  trigger:\n    project: ${other.path_with_namespace}\n    forward:\n      pipeline_variables: true\n`);
    const forwarded = await w.start({ extra, variables: [{ key: "DEPLOY_ENV", value: "prod" }] });
    expect(forwarded).toMatchObject({ status: "refused", reason: expect.stringContaining("variable DEPLOY_ENV not allowed") });
  });

  it("a trigger hidden in a template a job extends counts, as does one in an included file", async () => {
    w.commit(`.deploy:\n  trigger:\n    project: ${w.payroll.path_with_namespace}\ndeploy:\n  extends: .deploy\n`);
    expect(await w.start()).toMatchObject({ status: "refused" });
    w.commit("include: ci/deploy.yml\n", { "ci/deploy.yml": `deploy:\n  trigger: ${w.payroll.path_with_namespace}\n` });
    expect(await w.start()).toMatchObject({ status: "refused" });
    expect(w.sim.pipelines).toEqual([]);
  });

  it.each([
    ["the project's own file", "child:\n  trigger:\n    include: ci/child.yml\n", "build:\n  script: make\n", "created"],
    ["a file of its own that includes another project's", "child:\n  trigger:\n    include:\n      - local: ci/child.yml\n", "include:\n  - project: acme/x\n    file: y.yml\n", "refused"],
    ["a file of its own that triggers a project no rule allows", "child:\n  trigger:\n    include: ci/child.yml\n", "deploy:\n  trigger: PAYROLL\n", "refused"],
    ["a file a job writes (dynamic)", "child:\n  trigger:\n    include:\n      - artifact: generated.yml\n        job: generate\n", "", "refused"],
  ])("a child pipeline made of %s: %s", async (_what, ci, child, status) => {
    w.commit(ci, { "ci/child.yml": child.replace("PAYROLL", w.payroll.path_with_namespace) });
    expect(await w.start()).toMatchObject({ status });
  });

  it("a pipeline that starts itself again is refused, not followed round the cycle", async () => {
    w.commit(`deploy:\n  trigger: ${w.platform.path_with_namespace}\n`);
    const action = await w.start();
    expect(action).toMatchObject({ status: "refused", reason: expect.stringContaining("again from within the pipelines it starts") });
    expect(w.sim.pipelines).toEqual([]);
  });
});
