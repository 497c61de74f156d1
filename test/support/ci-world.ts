/**
 * The CI-sources tests' world (test/jobs/pipeline/ci-*.test.ts): a GitLab simulator per test with an allowed
 * project (acme/platform/…, `main` protected from Developers), a shared CI-templates project outside the
 * rule (`main` any of its Developers pushes to, `release` only Maintainers), a project no rule allows, and
 * three more whose default branch is protected, for rules of their own; and a front that answers the CI
 * Lint as older or newer GitLab versions do.
 */
import { afterEach, beforeEach } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { runPipeline } from "../../lib/jobs/index.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim, type SimProject } from "../../sim/gitlab/index.ts";
import { validated } from "./report.ts";
import { json, serve } from "./server.ts";

export function ciWorld() {
  const policy = (extra = "") =>
    parsePolicy(`version: 1\npipelines:\n  allow:\n    - project: "acme/platform/**"\n      refs: ["main"]\n      variables: ["DEPLOY_ENV"]\n${extra}`, "test.yaml");

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



  return {
    get sim() {
      return sim;
    },
    get platform() {
      return platform;
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
