/**
 * What the CI file of an allowed, protected ref hands to others (the pipeline review's findings, third
 * pass). GitLab resolves `include:` with the pipeline user's access, Warden's: another project's file at a
 * branch its Developers push to, a URL, a component at a branch, is written by someone no rule judged, as
 * a ci_config_path in another project is (ci-config.test.ts); and `trigger:` starts pipelines in other
 * projects as Warden's user too. Warden asks GitLab's CI Lint what the file resolves to at the checked
 * commit (the simulator resolves includes as GitLab does: sim/gitlab/ci-lint.ts) and judges each source.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { runPipeline } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim, type SimProject } from "../../../sim/gitlab/index.ts";
import { validated } from "../../support/report.ts";
import { json, serve } from "../../support/server.ts";

const policy = (extra = "") =>
  parsePolicy(
    `version: 1
pipelines:
  allow:
    - project: "acme/platform/**"
      refs: ["main"]
      variables: ["DEPLOY_ENV"]
${extra}`,
    "test.yaml",
  );

let sim: GitLabSim;
/** The allowed project: `main` protected, only Maintainers push or merge. */
let platform: SimProject;
/** A shared CI-templates project outside the rule: `main` any of its Developers pushes to, `release` only Maintainers. */
let templates: SimProject;
/** A project the policy allows no pipeline in. */
let payroll: SimProject;
/** Projects outside acme/platform/** that tests give rules of their own, their default branch protected. */
let others: SimProject[];
let templatesCommit: string;

beforeEach(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 200, seed: 3 }).dataset });
  platform = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/platform/"))!;
  platform.protected_branches = ["main"];
  const outside = sim.dataset.projects.filter((p) => !p.path_with_namespace.startsWith("acme/platform/"));
  [templates, payroll] = [outside[0]!, outside[1]!];
  others = outside.slice(2, 5);
  for (const p of others) p.protected_branches = [p.default_branch];
  templates.protected_branches = ["release"];
  sim.protectedBranches.protect(templates, "main", { developersCanPush: true });
  const files = { "deploy.yml": "deploy:\n  script: ./deploy.sh\n", "templates/deploy.yml": "deploy:\n  script: ./deploy.sh\n" };
  templatesCommit = sim.repositories.commit(templates, files);
  sim.repositories.commit(templates, files, "release");
});
afterEach(() => sim.close());

/** A Maintainer's CI file (and other files) on a project's default branch: platform's protected main, unless named. */
function commitTo(project: SimProject, ci: string, files: Record<string, string> = {}): void {
  sim.repositories.commit(project, { ".gitlab-ci.yml": ci, ...files });
}
const commit = (ci: string, files: Record<string, string> = {}) => commitTo(platform, ci, files);

const client = (url = sim.url) => new GitLabClient({ url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });

async function start(opts: { variables?: { key: string; value: string }[]; apply?: boolean; extra?: string; url?: string } = {}) {
  const report = await validated(runPipeline({ gitlab: client(opts.url), policy: policy(opts.extra), project: platform.path_with_namespace, ref: "main", variables: opts.variables ?? [], apply: opts.apply ?? true }));
  return report.actions[0]!;
}

const HOP = new Set(["content-length", "transfer-encoding", "connection", "content-encoding", "keep-alive"]);

/**
 * A GitLab version in front of the simulator, for what the simulator's CI Lint does not do as GitLab does.
 * `since-content-ref`: GET /projects/:id/ci/lint declares `mutually_exclusive :sha, :content_ref`
 * (lib/api/lint.rb, every version that has content_ref: MR !143098), and Grape answers a request with
 * both 400 before the handler runs. `before-sha`: a GitLab older than the `sha` parameter (MR !131890)
 * declares neither; Grape drops undeclared parameters and the lint reads the default branch's head.
 */
async function gitlabVersion(version: "since-content-ref" | "before-sha") {
  return serve((req, res) => {
    const url = new URL(req.url, "http://x");
    const lint = req.method === "GET" && url.pathname.endsWith("/ci/lint");
    if (lint && version === "since-content-ref" && url.searchParams.has("sha") && url.searchParams.has("content_ref")) {
      json(res, 400, { error: "sha, content_ref are mutually exclusive" });
      return;
    }
    if (lint && version === "before-sha") for (const name of ["sha", "content_ref"]) url.searchParams.delete(name);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== "host" && !HOP.has(k)) as [string, string][]);
    const body = req.method === "GET" || req.method === "HEAD" ? undefined : req.body;
    void fetch(new URL(url.pathname + url.search, sim.url), { method: req.method, headers, body, redirect: "manual" }).then(async (answer) => {
      const text = await answer.text();
      const out: Record<string, string> = {};
      answer.headers.forEach((v, k) => (HOP.has(k) ? undefined : (out[k] = v)));
      res.writeHead(answer.status, out);
      res.end(text);
    });
  });
}


describe("pipeline: what the CI file includes", () => {
  it.each([
    ["another project's file at its default branch, which its Developers push to", () => `include:\n  - project: ${templates.path_with_namespace}\n    file: deploy.yml\n`, "include: project"],
    ["another project's file at a branch its Developers push to", () => `include:\n  - project: ${templates.path_with_namespace}\n    ref: main\n    file: deploy.yml\n`, "Developers may push to it"],
    ["a URL", () => "include:\n  - remote: https://user:secret@ci.example/shared/deploy.yml?token=signed\n", "include: remote"],
    ["a CI/CD component at a branch its Developers push to", () => `include:\n  - component: gitlab.example.com/${templates.path_with_namespace}/deploy@main\n`, "include: component"],
    ["a file of its own that includes another project's at a branch its Developers push to", () => "include: ci/base.yml\n", "include: project"],
  ])("%s: refused, saying which and what to change, and no pipeline starts", async (_what, ci, says) => {
    commit(ci(), { "ci/base.yml": `include:\n  - project: ${templates.path_with_namespace}\n    file: deploy.yml\n` });
    const action = await start();
    expect(action).toMatchObject({ status: "refused" });
    expect(action.reason).toContain(says);
    expect(action.reason).toContain("unprotected: true");
    // A remote include's credentials (user:password, a signed query) are quoted by scheme, host and path only.
    expect(action.reason).not.toMatch(/secret|signed/);
    expect(sim.pipelines).toEqual([]);
  });

  it.each([
    ["its own files and GitLab's templates", () => "include:\n  - local: ci/base.yml\n  - template: Security/SAST.gitlab-ci.yml\n"],
    ["another project's file at a branch only Maintainers change", () => `include:\n  - project: ${templates.path_with_namespace}\n    ref: release\n    file: deploy.yml\n`],
    ["another project's file at a commit", () => `include:\n  - project: ${templates.path_with_namespace}\n    ref: ${templatesCommit}\n    file: deploy.yml\n`],
    ["a component at a branch only Maintainers change", () => `include:\n  - component: gitlab.example.com/${templates.path_with_namespace}/deploy@release\n`],
    ["a component named by $CI_SERVER_FQDN, as GitLab's docs write it, at a branch only Maintainers change", () => `include:\n  - component: $CI_SERVER_FQDN/${templates.path_with_namespace}/deploy@release\n`],
  ])("%s: the pipeline starts", async (_what, ci) => {
    commit(ci(), { "ci/base.yml": "build:\n  script: make\n" });
    expect(await start()).toMatchObject({ status: "created" });
    expect(sim.pipelines).toHaveLength(1);
  });

  it("a file trusted by its ref may include files of its own project; what it includes from elsewhere is judged too", async () => {
    const shared = `include:\n  - project: ${templates.path_with_namespace}\n    ref: release\n    file: deploy.yml\n`;
    sim.repositories.commit(templates, { "deploy.yml": "include: more.yml\n", "more.yml": "more:\n  script: ./more.sh\n" }, "release");
    commit(shared);
    expect(await start()).toMatchObject({ status: "created" });

    payroll.protected_branches = [];
    sim.repositories.commit(templates, { "more.yml": `include:\n  - project: ${payroll.path_with_namespace}\n    file: x.yml\n` }, "release");
    sim.repositories.commit(payroll, { "x.yml": "x:\n  script: ./x.sh\n" });
    const refused = await start();
    expect(refused).toMatchObject({ status: "refused" });
    expect(refused.reason).toContain(payroll.path_with_namespace);
  });

  it("a CI file GitLab finds invalid is refused before any POST; a dry run reads only", async () => {
    commit("include:\n  - local: missing.yml\n");
    const action = await start({ apply: false });
    expect(action).toMatchObject({ status: "refused", reason: expect.stringContaining("invalid") });
    expect(Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "))).toEqual([]);
  });

  it("a GitLab whose CI Lint does not list the includes is not taken for one that has none", async () => {
    commit("build:\n  script: make\n");
    sim.addFaults({ kind: "rewrite", route: "GET /projects/:id/ci/lint", times: 1, edit: (body) => ({ ...(body as object), includes: undefined }) });
    expect(await start()).toMatchObject({ status: "refused", reason: expect.stringContaining("does not list") });
    expect(sim.pipelines).toEqual([]);
  });

  it("a rule with unprotected: true trusts whoever writes the CI file, and does not ask", async () => {
    commit("include:\n  - remote: https://ci.example/deploy.yml\n");
    const extra = `    - project: "${platform.path_with_namespace}"\n      refs: ["main"]\n      unprotected: true\n`;
    expect(await start({ extra })).toMatchObject({ status: "created" });
    expect(sim.counters.byRoute["GET /projects/:id/ci/lint"]).toBeUndefined();
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

  it("another project's file behind rules: is refused, whatever its ref", async () => {
    commit(`include:\n  - project: ${templates.path_with_namespace}\n    ref: release\n    file: deploy.yml\n${prodOnly}`);
    const action = await start({ variables: [{ key: "DEPLOY_ENV", value: "prod" }] });
    expect(action).toMatchObject({ status: "refused", reason: expect.stringContaining("which the requester's variables turn on or name") });
    expect(sim.pipelines).toEqual([]);
  });

  it("a file of its own behind rules: is read: what it includes and triggers is judged", async () => {
    const conditional = `include:\n  - local: ci/prod.yml\n${prodOnly}`;
    commit(conditional, { "ci/prod.yml": `deploy:\n  trigger: ${payroll.path_with_namespace}\n` });
    expect(await start()).toMatchObject({ status: "refused", reason: expect.stringContaining(`in project "${payroll.path_with_namespace}", which Warden would not start itself`) });
    commit(conditional, { "ci/prod.yml": `include:\n  - project: ${templates.path_with_namespace}\n    file: deploy.yml\n` });
    expect(await start()).toMatchObject({ status: "refused", reason: expect.stringContaining("Developers may push to it") });
    commit(conditional, { "ci/prod.yml": "deploy:\n  script: ./deploy.sh\n" });
    expect(await start()).toMatchObject({ status: "created" });
  });

  it("another project's file named by a variable is refused", async () => {
    commit(`include:\n  - project: acme/$DEPLOY_ENV\n    file: deploy.yml\n`);
    expect(await start({ apply: false })).toMatchObject({ status: "refused" });
  });
});

describe("pipeline: what the CI file starts", () => {
  it("a pipeline in a project no rule allows (on a ref no rule allows, with the requester's variables) is refused", async () => {
    commit(`deploy:\n  trigger:\n    project: ${payroll.path_with_namespace}\n    branch: feature/anything\n    forward:\n      pipeline_variables: true\n`);
    const action = await start({ variables: [{ key: "DEPLOY_ENV", value: "prod" }] });
    expect(action).toMatchObject({ status: "refused" });
    expect(action.reason).toContain(`no pipelines.allow rule matches project ${payroll.path_with_namespace}`);
    expect(sim.pipelines).toEqual([]);
  });

  it("a pipeline in a project a rule allows, on its protected default branch, starts; forwarded variables are judged by that project's rule", async () => {
    // Outside acme/platform/**, whose rule allows DEPLOY_ENV: this project's allows no variable.
    const other = sim.dataset.projects.filter((p) => !p.path_with_namespace.startsWith("acme/platform/") && p !== templates && p !== payroll)[0]!;
    other.protected_branches = [other.default_branch];
    const extra = `    - project: "${other.path_with_namespace}"\n      refs: ["${other.default_branch}"]\n`;
    commit(`deploy:\n  trigger: ${other.path_with_namespace}\n`);
    expect(await start({ extra, variables: [{ key: "DEPLOY_ENV", value: "prod" }] })).toMatchObject({ status: "created" });

    commit(`deploy:\n  trigger:\n    project: ${other.path_with_namespace}\n    forward:\n      pipeline_variables: true\n`);
    const forwarded = await start({ extra, variables: [{ key: "DEPLOY_ENV", value: "prod" }] });
    expect(forwarded).toMatchObject({ status: "refused", reason: expect.stringContaining("variable DEPLOY_ENV not allowed") });
  });

  it("a trigger hidden in a template a job extends counts, as does one in an included file", async () => {
    commit(`.deploy:\n  trigger:\n    project: ${payroll.path_with_namespace}\ndeploy:\n  extends: .deploy\n`);
    expect(await start()).toMatchObject({ status: "refused" });
    commit("include: ci/deploy.yml\n", { "ci/deploy.yml": `deploy:\n  trigger: ${payroll.path_with_namespace}\n` });
    expect(await start()).toMatchObject({ status: "refused" });
    expect(sim.pipelines).toEqual([]);
  });

  it.each([
    ["the project's own file", "child:\n  trigger:\n    include: ci/child.yml\n", "build:\n  script: make\n", "created"],
    ["a file of its own that includes another project's", "child:\n  trigger:\n    include:\n      - local: ci/child.yml\n", "include:\n  - project: acme/x\n    file: y.yml\n", "refused"],
    ["a file of its own that triggers a project no rule allows", "child:\n  trigger:\n    include: ci/child.yml\n", "deploy:\n  trigger: PAYROLL\n", "refused"],
    ["a file a job writes (dynamic)", "child:\n  trigger:\n    include:\n      - artifact: generated.yml\n        job: generate\n", "", "refused"],
  ])("a child pipeline made of %s: %s", async (_what, ci, child, status) => {
    commit(ci, { "ci/child.yml": child.replace("PAYROLL", payroll.path_with_namespace) });
    expect(await start()).toMatchObject({ status });
  });

  it("a pipeline that starts itself again is refused, not followed round the cycle", async () => {
    commit(`deploy:\n  trigger: ${platform.path_with_namespace}\n`);
    const action = await start();
    expect(action).toMatchObject({ status: "refused", reason: expect.stringContaining("again from within the pipelines it starts") });
    expect(sim.pipelines).toEqual([]);
  });
});

describe("pipeline: the CI Lint request, as GitLab versions answer it", () => {
  it("GitLab refuses content_ref and sha together (400, mutually exclusive): a plain CI file on a protected ref must still start", async () => {
    commit("build:\n  script: make\n");
    const front = await gitlabVersion("since-content-ref");
    // Asked with both, every GitLab since 16.10 refused the lint with a 400: every start under a rule without unprotected: true failed.
    await expect(start({ url: front.url })).resolves.toMatchObject({ status: "created" });
    expect(sim.pipelines).toHaveLength(1);
  });

  it("a GitLab older than the sha parameter lints the default branch: what the allowed ref's own CI file triggers must still be judged", async () => {
    platform.protected_branches = ["main", "release"];
    commit("build:\n  script: make\n");
    // The ref the rule allows, protected: its CI file (not main's) is what the pipeline runs.
    sim.repositories.commit(platform, { ".gitlab-ci.yml": `deploy:\n  trigger:\n    project: ${payroll.path_with_namespace}\n    branch: feature/anything\n` }, "release");
    const front = await gitlabVersion("before-sha");
    const report = await validated(
      runPipeline({ gitlab: client(front.url), policy: parsePolicy(`version: 1\npipelines:\n  allow:\n    - project: "acme/platform/**"\n      refs: ["release"]\n`, "test.yaml"), project: platform.path_with_namespace, ref: "release", variables: [], apply: true }),
    );
    expect(report.actions[0], "release starts a pipeline in payroll, on a branch no rule allows, as Warden; Warden judged main's CI file").toMatchObject({ status: "refused" });
    expect(sim.pipelines).toEqual([]);
  });
});

describe("pipeline: CI files read as GitLab reads them (YAML 1.1, `<<` merge keys: Psych)", () => {
  it("a trigger merged into a job with `<<: *anchor` (GitLab's documented YAML anchors) is judged: a pipeline in a project no rule allows is refused", async () => {
    // GitLab's loader (Psych) merges `<<` keys, as its docs' "YAML anchors" show: `deploy` becomes a
    // trigger job. The `yaml` package parses YAML 1.2 without merge keys: `deploy` has only a "<<" key.
    const child = `.defs:\n  payroll: &payroll\n    trigger:\n      project: ${payroll.path_with_namespace}\n      branch: feature/anything\n      forward:\n        pipeline_variables: true\ndeploy:\n  <<: *payroll\n`;
    commit("child:\n  trigger:\n    include: ci/child.yml\n", { "ci/child.yml": child });
    const action = await start({ variables: [{ key: "DEPLOY_ENV", value: "prod" }] });
    expect(action, "the child pipeline starts payroll on feature/anything, as Warden, with the requester's variables").toMatchObject({ status: "refused" });
    expect(sim.pipelines).toEqual([]);
  });

  it("an include behind rules: merged into the root with `<<: *anchor` is judged as one written there (GitLab merges it before reading include:)", async () => {
    // Psych merges `<<` as it loads the file: the root has include: with rules:, which a static lint,
    // without the pipeline's variables, leaves out (the simulator evaluates include rules as GitLab's does).
    // Warden's own scan of the CI file for such includes reads YAML 1.2: the root has only a "<<" key.
    const ci = `.includes: &includes\n  include:\n    - project: ${templates.path_with_namespace}\n      ref: main\n      file: deploy.yml\n      rules:\n        - if: '$DEPLOY_ENV == "prod"'\n<<: *includes\nbuild:\n  script: make\n`;
    commit(ci);
    const action = await start({ variables: [{ key: "DEPLOY_ENV", value: "prod" }] });
    expect(action, "with DEPLOY_ENV=prod the pipeline includes templates' main, which every Developer of templates pushes to").toMatchObject({ status: "refused" });
    expect(sim.pipelines).toEqual([]);
  });
});

describe("pipeline: what a trigger passes on", () => {
  it("a trigger job's own variables (forwarded as yaml_variables by default) are judged by the downstream project's rule", async () => {
    const [other] = others as [SimProject];
    // The rule for `other` allows no variable: Warden would not start a pipeline there with TEMPLATES_REF set.
    const extra = `    - project: "${other.path_with_namespace}"\n      refs: ["${other.default_branch}"]\n`;
    commit(`deploy:\n  variables:\n    TEMPLATES_REF: main\n  trigger:\n    project: ${other.path_with_namespace}\n`);
    const action = await start({ extra });
    expect(action, "the downstream pipeline gets TEMPLATES_REF=main as a pipeline variable, which no rule for it allows").toMatchObject({ status: "refused" });
    expect(sim.pipelines).toEqual([]);
  });
});

describe("pipeline: what the check costs", () => {
  it("triggers of the same allowed pipeline are judged once, not once per job and level (6 jobs a level, 3 levels)", async () => {
    const [b, c, d] = others as [SimProject, SimProject, SimProject];
    const jobs = (target: SimProject) => Array.from({ length: 6 }, (_, i) => `deploy-${i}:\n  trigger: ${target.path_with_namespace}\n`).join("");
    commit(jobs(b));
    commitTo(b, jobs(c));
    commitTo(c, jobs(d));
    commitTo(d, "build:\n  script: make\n");
    const extra = [b, c, d].map((p) => `    - project: "${p.path_with_namespace}"\n      refs: ["${p.default_branch}"]\n`).join("");
    expect(await start({ extra })).toMatchObject({ status: "created" });
    // Four distinct pipelines (platform, b, c, d): judged once each, not 1 + 6 + 36 + 216 = 259 lints and five times as many other GETs.
    expect(sim.counters.byRoute["GET /projects/:id/ci/lint"]).toBeLessThanOrEqual(4);
  });
});

/**
 * CI files as platform teams write them (a review of this session's changes): an include behind a rule on
 * the ref (`if: $CI_COMMIT_BRANCH == "main"`, which a static lint, knowing no ref, leaves out while the
 * pipeline on main takes it), a file with inputs (a `spec:` header, then `---`), a key written twice
 * (Psych takes the last), a component given the requester's variable as an input.
 */
describe("pipeline: CI files as platform teams write them", () => {
  it("an include of another project's file at a branch its Developers push to, behind rules: if: $CI_COMMIT_BRANCH == \"main\", is refused", async () => {
    commit(`include:\n  - project: ${templates.path_with_namespace}\n    ref: main\n    file: deploy.yml\n    rules:\n      - if: $CI_COMMIT_BRANCH == "main"\nbuild:\n  script: make\n`);
    expect(await start()).toMatchObject({ status: "refused", reason: expect.stringContaining("Developers may push to it") });
    expect(sim.pipelines).toEqual([]);
  });

  it("an include named by the ref's own variables ($CI_COMMIT_REF_NAME) is judged as the pipeline on that ref names it", async () => {
    commit(`include:\n  - project: ${templates.path_with_namespace}\n    ref: $CI_COMMIT_REF_NAME\n    file: deploy.yml\n    rules:\n      - if: $CI_COMMIT_BRANCH\n`);
    // On main, that is templates' main, which its Developers push to.
    expect(await start()).toMatchObject({ status: "refused", reason: expect.stringContaining("Developers may push to it") });
  });

  it("a child pipeline's file with a spec: header is judged by its jobs: a trigger of a project no rule allows is refused", async () => {
    const child = `spec:\n  inputs:\n    environment:\n      default: staging\n---\ndeploy:\n  trigger:\n    project: ${payroll.path_with_namespace}\n    branch: feature/anything\n`;
    commit("child:\n  trigger:\n    include: ci/child.yml\n", { "ci/child.yml": child });
    expect(await start()).toMatchObject({ status: "refused", reason: expect.stringContaining(payroll.path_with_namespace) });
    expect(sim.pipelines).toEqual([]);
  });

  it("a file with a key written twice (GitLab takes the last) starts", async () => {
    const twice = "test:\n  variables:\n    A: '1'\n  script: make test\n  variables:\n    B: '2'\n";
    commit(twice, { "ci/child.yml": twice });
    expect(await start()).toMatchObject({ status: "created" });
    commit("child:\n  trigger:\n    include: ci/child.yml\n", { "ci/child.yml": twice });
    expect(await start()).toMatchObject({ status: "created" });
  });

  it("a component at a ref only Maintainers change, given the requester's DEPLOY_ENV as an input, starts", async () => {
    commit(`include:\n  - component: $CI_SERVER_FQDN/${templates.path_with_namespace}/deploy@release\n    inputs:\n      environment: $DEPLOY_ENV\n`);
    expect(await start({ variables: [{ key: "DEPLOY_ENV", value: "prod" }] })).toMatchObject({ status: "created" });
  });
});
