/**
 * What the fourth CI-sources review found in the files Warden reads and the configuration it judges:
 * variables a trigger passes on from workflow:rules:variables, its rules:variables and its
 * parallel:matrix; `extends:` resolved before `!reference` (GitLab's order), and a job extending a
 * component's job (read now); files merged in include order, with the files of its own the lint took by
 * a wildcard read in place, in trusted projects' files too; and what a wide file costs (each reference and
 * each extended job resolved once, a child pipeline judged once a start). And from the sixth: another
 * project's file named by a variable the lint expands, read as the lint took it; `inherit: variables:` as
 * a list of the global names a trigger job passes on. And from the last pass over pipelines: an optional
 * file (`rules: exists:`) that is not there, and each project and ref judged once a start.
 */
import { describe, expect, it } from "vitest";
import { ciWorld } from "../../support/ci-world.ts";
import { afterTest } from "../../support/cleanup.ts";
import { startProxy } from "../../support/spec.ts";

const w = ciWorld();
const otherRule = () => `    - project: "${w.others[0]!.path_with_namespace}"\n      refs: ["${w.others[0]!.default_branch}"]\n`;
const trigger = () => `  trigger:\n    project: ${w.others[0]!.path_with_namespace}\n`;

describe("pipeline: the variables a trigger passes on, from wherever its YAML sets them", () => {
  it("workflow:rules:variables (root variables GitLab forwards with every trigger job) are judged by the downstream project's rule", async () => {
    w.commit(`workflow:\n  rules:\n    - if: $CI_COMMIT_BRANCH == "main"\n      variables:\n        TEMPLATES_REF: main\n    - when: always\ndeploy:\n${trigger()}`);
    const action = await w.start({ extra: otherRule() });
    expect(action, "on main the downstream pipeline gets TEMPLATES_REF=main, which no rule for it allows").toMatchObject({ status: "refused", reason: expect.stringContaining("TEMPLATES_REF") });
    expect(w.sim.pipelines).toEqual([]);
  });

  it("a trigger job's rules:variables are judged by the downstream project's rule", async () => {
    w.commit(`deploy:\n  rules:\n    - if: $CI_COMMIT_BRANCH == "main"\n      variables:\n        TEMPLATES_REF: main\n${trigger()}`);
    const action = await w.start({ extra: otherRule() });
    expect(action, "on main the trigger job forwards TEMPLATES_REF=main").toMatchObject({ status: "refused", reason: expect.stringContaining("TEMPLATES_REF") });
    expect(w.sim.pipelines).toEqual([]);
  });

  it("a trigger job's parallel:matrix variables are judged by the downstream project's rule", async () => {
    w.commit(`deploy:\n  parallel:\n    matrix:\n      - TEMPLATES_REF: [main]\n${trigger()}`);
    const action = await w.start({ extra: otherRule() });
    expect(action, "the matrix job's downstream pipeline gets TEMPLATES_REF=main").toMatchObject({ status: "refused", reason: expect.stringContaining("TEMPLATES_REF") });
    expect(w.sim.pipelines).toEqual([]);
  });
});


describe("pipeline: a trigger's variables hidden behind extends: or !reference in files Warden reads itself", () => {
  it("a child pipeline's trigger job taking variables: by !reference from a job that has them by extends: (GitLab resolves extends first) passes them on, judged", async () => {
    const child = [
      ".vars:\n  variables:\n    TEMPLATES_REF: main\n",
      ".deploy-vars:\n  extends: .vars\n",
      `deploy:\n  variables: !reference [.deploy-vars, variables]\n  trigger:\n    project: ${w.others[0]!.path_with_namespace}\n`,
    ].join("");
    w.commit("child:\n  trigger:\n    include: ci/child.yml\n", { "ci/child.yml": child });
    const action = await w.start({ extra: otherRule() });
    expect(action, "GitLab's deploy has variables {TEMPLATES_REF: main} and forwards them to other").toMatchObject({ status: "refused", reason: expect.stringContaining("TEMPLATES_REF") });
    expect(w.sim.pipelines).toEqual([]);
  });

  it("a job behind rules: that extends a component's trigger job and adds variables passes them on, judged", async () => {
    // A component at a ref only Maintainers change, holding a hidden trigger job of a project a rule allows.
    w.sim.repositories.commit(w.templates, { "templates/deploy.yml": `.deploy-other:\n  trigger:\n    project: ${w.others[0]!.path_with_namespace}\n` }, "release");
    w.commit(
      `include:\n  - component: $CI_SERVER_FQDN/${w.templates.path_with_namespace}/deploy@release\n  - local: ci/prod.yml\n    rules:\n      - if: $DEPLOY_ENV == "prod"\nbuild:\n  script: make\n`,
      { "ci/prod.yml": "deploy:\n  extends: .deploy-other\n  variables:\n    TEMPLATES_REF: main\n" },
    );
    const action = await w.start({ extra: otherRule(), variables: [{ key: "DEPLOY_ENV", value: "prod" }] });
    expect(action, "with DEPLOY_ENV=prod GitLab's deploy triggers other and forwards TEMPLATES_REF=main").toMatchObject({ status: "refused", reason: expect.stringContaining("TEMPLATES_REF") });
    expect(w.sim.pipelines).toEqual([]);
  });
});


describe("pipeline: the walk's merge order", () => {
  it("a file behind rules: included before one the lint lists is overridden by it, as GitLab merges them: the trigger's forwarded variables are judged", async () => {
    w.commit(`include:\n  - local: ci/prod.yml\n    rules:\n      - if: $DEPLOY_ENV == "prod"\n  - local: ci/base.yml\nbuild:\n  script: make\n`, {
      // Behind rules: the lint, knowing no DEPLOY_ENV, leaves it out.
      "ci/prod.yml": "deploy:\n  variables:\n    TEMPLATES_REF: main\n  trigger:\n    forward:\n      yaml_variables: false\n",
      // Listed by the lint, and included after ci/prod.yml: its keys win in GitLab's merge.
      "ci/base.yml": `deploy:\n  trigger:\n    project: ${w.others[0]!.path_with_namespace}\n    forward:\n      yaml_variables: true\n`,
    });
    const action = await w.start({ extra: otherRule(), variables: [{ key: "DEPLOY_ENV", value: "prod" }] });
    // GitLab: deploy = prod.yml, then base.yml over it: trigger other, yaml_variables true, TEMPLATES_REF forwarded.
    expect(action, "GitLab forwards TEMPLATES_REF=main to other; the walk merged ci/prod.yml last and read yaml_variables: false").toMatchObject({ status: "refused", reason: expect.stringContaining("TEMPLATES_REF") });
    expect(w.sim.pipelines).toEqual([]);
  });
});

describe("pipeline: local wildcards in another project's trusted file", () => {
  it("an include behind rules: on the ref, in a file a trusted template includes by a wildcard, is judged: templates' main is refused", async () => {
    const templates = w.templates.path_with_namespace;
    // Written by templates' Maintainers at release (only they change it): a folder of job files, and one job file
    // that, on main, includes templates' main, which any Developer of templates pushes to.
    w.sim.repositories.commit(w.templates, {
      "deploy.yml": "include:\n  - local: jobs/*.yml\n",
      "jobs/a.yml": `include:\n  - project: ${templates}\n    ref: main\n    file: deploy.yml\n    rules:\n      - if: $CI_COMMIT_BRANCH == "main"\na:\n  script: ./a.sh\n`,
    }, "release");
    w.commit(`include:\n  - project: ${templates}\n    ref: release\n    file: deploy.yml\nbuild:\n  script: make\n`);
    const releaseSha = w.sim.repositories.resolve(w.templates, "release")?.id;
    // GitLab's static lint: the wildcard's file listed in templates' context; the rules-gated include not taken (no ref).
    w.sim.addFaults({
      kind: "rewrite",
      route: "GET /projects/:id/ci/lint",
      times: 1,
      edit: (body) => {
        const { includes } = body as { includes: Record<string, unknown>[] };
        const first = includes[0]!;
        return {
          valid: true,
          errors: [],
          warnings: [],
          includes: [first, { type: "local", location: "jobs/a.yml", blob: null, raw: null, extra: {}, context_project: templates, context_sha: releaseSha }],
          merged_yaml: ":a:\n  :script: ./a.sh\n:build:\n  :script: make\n",
        };
      },
    });
    const action = await w.start();
    expect(action, "on main the pipeline includes templates' main through jobs/a.yml").toMatchObject({ status: "refused", reason: expect.stringContaining("Developers may push to it") });
    expect(w.sim.pipelines).toEqual([]);
  });
});

describe("pipeline: what the check costs", () => {
  it("a child pipeline file of under 1 KB whose hidden jobs reference each other 5 wide and 9 deep is judged (each reference resolved once), not refused as too large", async () => {
    let child = ".l0: [x]\n";
    for (let l = 1; l <= 9; l++) child += `.l${l}: [${Array.from({ length: 5 }, () => `!reference [.l${l - 1}]`).join(", ")}]\n`;
    child += "build:\n  script: make\n";
    expect(child.length).toBeLessThan(1000);
    w.commit("child:\n  trigger:\n    include: ci/child.yml\n", { "ci/child.yml": child });
    // Each reference resolved afresh built 5^9 (about 2 million) copies of .l0: 1.8 s and 200 MB here, 6 wide out of memory;
    // past ci-yaml.ts's bound on values it would be refused. Resolved once each, it is a few dozen.
    expect(await w.start({ apply: false })).toMatchObject({ status: "planned" });
  });

  it("a child pipeline file whose hidden jobs extend each other 5 wide and 9 deep is judged (each reference resolved once), not refused as too large", async () => {
    let child = ".e0-0:\n  script: [x]\n";
    for (let l = 1; l <= 9; l++) for (let i = 0; i < 5; i++) child += `.e${l}-${i}:\n  extends: [${l === 1 ? ".e0-0" : Array.from({ length: 5 }, (_, j) => `.e${l - 1}-${j}`).join(", ")}]\n`;
    child += "build:\n  script: make\n";
    w.commit("child:\n  trigger:\n    include: ci/child.yml\n", { "ci/child.yml": child });
    // Each job extended afresh through 5^(level-1) chains: 1 s here for this 2.3 KB file, 10 deep up to 10 s, past the bound refused.
    expect(await w.start({ apply: false })).toMatchObject({ status: "planned" });
  });

  it("a child pipeline named by 6 trigger jobs a level over 3 levels is read once a file, not once per job and level", async () => {
    const jobs = (file: string) => Array.from({ length: 6 }, (_, i) => `deploy-${i}:\n  trigger:\n    include: ${file}\n`).join("");
    w.commit(jobs("ci/l1.yml"), { "ci/l1.yml": jobs("ci/l2.yml"), "ci/l2.yml": jobs("ci/l3.yml"), "ci/l3.yml": "build:\n  script: make\n" });
    expect(await w.start({ apply: false })).toMatchObject({ status: "planned" });
    const reads = w.sim.counters.byRoute["GET /projects/:id/repository/files/:file_path"] ?? 0;
    // Four files (.gitlab-ci.yml, ci/l1.yml, ci/l2.yml, ci/l3.yml): a few reads, not 1 + 2 × (6 + 36 + 216) = 517.
    expect(reads).toBeLessThanOrEqual(8);
  });
});

/**
 * GitLab with the project CI/CD variable SHARED_CI_PROJECT set (the simulator has no CI/CD variables): its
 * CI Lint expands the variable in `include:`. Played by linting a commit where it is written out, and
 * answering with the commit asked for.
 */
async function gitlabWithVariable(asked: () => string, written: () => string) {
  const isLint = (target: string, method: string) => method === "GET" && new URL(target, "http://x").pathname.endsWith("/ci/lint");
  const front = await startProxy({
    target: w.sim.url,
    forward: (path, method) => (isLint(path, method) ? path.replace(`sha=${asked()}`, `sha=${written()}`) : path),
    answer: (upstream, target, method) => (isLint(target, method) ? { ...upstream, body: upstream.body.split(written()).join(asked()) } : undefined),
  });
  return afterTest.add(front);
}

describe("pipeline: another project's file named by a variable the lint expands", () => {
  it("an include behind rules: on the ref, inside another project's file named by a CI/CD variable, is judged", async () => {
    // The shared file, at templates' Maintainer-only `release`: on main it takes templates' `main`, which any Developer there pushes to.
    w.sim.repositories.commit(w.templates, { "shared.yml": `include:\n  - project: ${w.templates.path_with_namespace}\n    ref: main\n    file: deploy.yml\n    rules:\n      - if: $CI_COMMIT_BRANCH == "main"\nbuild:\n  script: make\n` }, "release");
    const ci = (project: string) => `include:\n  - project: ${project}\n    ref: release\n    file: shared.yml\ntest:\n  script: make test\n`;
    w.commit(ci("$SHARED_CI_PROJECT"));
    const asked = w.sim.repositories.resolve(w.platform, w.platform.default_branch)!.id;
    const written = w.sim.repositories.commit(w.platform, { ".gitlab-ci.yml": ci(w.templates.path_with_namespace) }, "lint-view");
    const front = await gitlabWithVariable(() => asked, () => written);
    const action = await w.start({ url: front.url });
    expect(action, "what the lint took for the variable is read as if written out: shared.yml, and what it includes behind rules").toMatchObject({
      status: "refused",
      reason: expect.stringContaining("deploy.yml"),
    });
    expect(w.sim.pipelines).toEqual([]);
  });
});

describe("pipeline: inherit: variables: as a list of names", () => {
  it("a trigger job inheriting only DEPLOY_ENV of the global variables starts under a downstream rule that allows DEPLOY_ENV", async () => {
    const other = w.others[0]!;
    const rule = `    - project: "${other.path_with_namespace}"\n      refs: ["${other.default_branch}"]\n      variables: ["DEPLOY_ENV"]\n`;
    w.commit(`variables:\n  DOCKER_DRIVER: overlay2\n  DEPLOY_ENV: staging\nbuild:\n  script: make\ndeploy:\n  inherit:\n    variables: [DEPLOY_ENV]\n  trigger:\n    project: ${other.path_with_namespace}\n`);
    const action = await w.start({ extra: rule });
    expect(action, `GitLab passes DEPLOY_ENV alone downstream; refused: ${action.reason}`).toMatchObject({ status: "created" });
  });
});

describe("pipeline: a conditional include of a file that is not there", () => {
  it("a local include behind rules: [if: $CI_COMMIT_BRANCH, exists: [itself]] (an optional file, absent) does not fail the start", async () => {
    // GitLab's Mapper filters includes by their rules before it reads any file: on main, `exists:` is false
    // (the file is not in the commit), so the pipeline takes nothing and starts. Warden reads a local file
    // whatever its rules: a file that is not there holds nothing to run (it failed the start with a bare 404).
    w.commit(
      "include:\n  - local: .gitlab/ci/local-overrides.yml\n    rules:\n      - if: $CI_COMMIT_BRANCH\n        exists:\n          - .gitlab/ci/local-overrides.yml\n" +
        "build:\n  script: make\n",
    );
    const action = await w.start();
    expect(action).toMatchObject({ status: "created" });
    expect(w.sim.pipelines).toHaveLength(1);
  });
});

describe("pipeline: what one start costs", () => {
  it("one include of two files of another project at a protected ref judges that project and ref once, not once per file and again in the walk", async () => {
    w.sim.repositories.commit(w.templates, { "deploy.yml": "deploy:\n  script: ./deploy.sh\n", "lint.yml": "lint:\n  script: ./lint.sh\n" }, "release");
    w.commit(`include:\n  - project: ${w.templates.path_with_namespace}\n    ref: release\n    file: [deploy.yml, lint.yml]\nbuild:\n  script: make\n`);
    const front = afterTest.add(await startProxy({ target: w.sim.url }));
    const action = await w.start({ apply: false, url: front.url });
    expect(action).toMatchObject({ status: "planned" });
    const seen = front.requests.map((r) => `${r.method} ${r.url}`);
    expect(seen.filter((r) => r.includes("/repository/branches/")).length, "the start judged templates' release through the front").toBeGreaterThan(0);
    const twice = [...new Set(seen.filter((r, i) => seen.indexOf(r) !== i))];
    // Each GET answers the same within one start: asking it again costs a request of the hour's budget for nothing.
    expect(twice).toEqual([]);
  });
});
