/**
 * The CI-sources tests' world (test/jobs/pipeline/ci-*.test.ts): the pipeline tests' (pipeline-world.ts:
 * a GitLab simulator per test, an allowed project acme/platform/… whose `main` Developers cannot
 * change), with a shared CI-templates project outside the rule (`main` any of its Developers pushes to,
 * `release` only Maintainers), a project no rule allows, and three more whose default branch is
 * protected, for rules of their own (each project's tags named `main`, `release` or its default branch created
 * by Maintainers alone); and a front (spec.ts startProxy) that answers the CI Lint as older
 * or newer GitLab versions do.
 */
import { beforeEach } from "vitest";
import { runPipeline } from "../../lib/jobs/index.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import type { SimProject } from "../../sim/gitlab/index.ts";
import { pipelineWorld } from "./pipeline-world.ts";
import { validated } from "./report.ts";
import { afterTest } from "./cleanup.ts";
import { startProxy } from "./spec.ts";

export function ciWorld() {
  const policy = (extra = "") =>
    parsePolicy(`version: 1\npipelines:\n  allow:\n    - project: "acme/platform/**"\n      refs: ["main"]\n      variables: ["DEPLOY_ENV"]\n${extra}`, "test.yaml");

  /** The simulator, and the allowed project: `main` protected, only Maintainers push or merge. */
  const base = pipelineWorld();
  /** A shared CI-templates project outside the rule: `main` any of its Developers pushes to, `release` only Maintainers. */
  let templates: SimProject;
  /** A project the policy allows no pipeline in. */
  let payroll: SimProject;
  /** Projects outside acme/platform/** that tests give rules of their own, their default branch protected. */
  let others: SimProject[];
  let templatesCommit: string;

  beforeEach(() => {
    const { sim } = base;
    const outside = sim.dataset.projects.filter((p) => !p.path_with_namespace.startsWith("acme/platform/"));
    [templates, payroll] = [outside[0]!, outside[1]!];
    others = outside.slice(2, 5);
    for (const p of others) p.protected_branches = [p.default_branch];
    templates.protected_branches = ["release"];
    sim.protectedBranches.protect(templates, "main", { developersCanPush: true });
    // Tags of the protected branches' names only Maintainers create: GitLab reads an include at a tag before a branch of
    // the same name (ci-refs.ts), so a branch is trusted only where no Developer can make such a tag.
    for (const p of [base.platform, templates, ...others]) for (const name of new Set(["main", "release", p.default_branch])) sim.protectedTags.protect(p, name);
    const files = { "deploy.yml": "deploy:\n  script: ./deploy.sh\n", "templates/deploy.yml": "deploy:\n  script: ./deploy.sh\n" };
    templatesCommit = sim.repositories.commit(templates, files);
    sim.repositories.commit(templates, files, "release");
  });

  /** A Maintainer's CI file (and other files) on a project's default branch: platform's protected main, unless named. */
  function commitTo(project: SimProject, ci: string, files: Record<string, string> = {}): void {
    base.sim.repositories.commit(project, { ".gitlab-ci.yml": ci, ...files });
  }
  const commit = (ci: string, files: Record<string, string> = {}) => commitTo(base.platform, ci, files);
  const client = (url?: string) => base.gitlab(url);

  async function start(opts: { variables?: { key: string; value: string }[]; apply?: boolean; extra?: string; url?: string } = {}) {
    const report = await validated(runPipeline({ gitlab: client(opts.url), policy: policy(opts.extra), project: base.platform.path_with_namespace, ref: "main", variables: opts.variables ?? [], apply: opts.apply ?? true }));
    return report.actions[0]!;
  }

  /**
   * A GitLab version in front of the simulator, for what the simulator's CI Lint does not do as GitLab does.
   * `since-content-ref`: GET /projects/:id/ci/lint declares `mutually_exclusive :sha, :content_ref`
   * (lib/api/lint.rb, every version that has content_ref: MR !143098), and Grape answers a request with
   * both 400 before the handler runs. `before-sha`: a GitLab older than the `sha` parameter (MR !131890)
   * declares neither; Grape drops undeclared parameters and the lint reads the default branch's head.
   */
  async function gitlabVersion(version: "since-content-ref" | "before-sha") {
    const front = await startProxy({
      target: base.sim.url,
      forward: (path, method) => {
        const url = new URL(path, "http://x");
        if (method !== "GET" || !url.pathname.endsWith("/ci/lint")) return path;
        if (version === "since-content-ref" && url.searchParams.has("sha") && url.searchParams.has("content_ref")) return { status: 400, body: JSON.stringify({ error: "sha, content_ref are mutually exclusive" }) };
        if (version === "before-sha") for (const name of ["sha", "content_ref"]) url.searchParams.delete(name);
        return url.pathname + url.search;
      },
    });
    return afterTest.add(front);
  }

  return {
    get sim() {
      return base.sim;
    },
    get platform() {
      return base.platform;
    },
    get templates() {
      return templates;
    },
    get payroll() {
      return payroll;
    },
    get others() {
      return others;
    },
    get templatesCommit() {
      return templatesCommit;
    },
    commit,
    commitTo,
    client,
    start,
    gitlabVersion,
  };
}
