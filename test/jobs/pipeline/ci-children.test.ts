/**
 * Child pipelines (the fifth CI-sources review): one that triggers itself, directly or through another
 * child file, was waited on for ever (a memo entry awaiting itself: no report, the chat worker to its
 * Lambda timeout); the variables a parent passes its child, which the child's triggers may forward with
 * `pipeline_variables: true`, went unjudged; a child from another project's file at a Maintainer-only
 * ref was refused though the walk judges such files at the top; and a child named by many triggers was
 * walked again for each (now judged once for what it includes and is passed, each file read once a
 * start, 20 children at most).
 */
import { describe, expect, it } from "vitest";
import { ciWorld } from "../../support/ci-world.ts";

const w = ciWorld();
/** A rule of its own for others[0]: its protected default branch, no variables. */
const otherRule = () => `    - project: "${w.others[0]!.path_with_namespace}"\n      refs: ["${w.others[0]!.default_branch}"]\n`;
const forwarding = () => `deploy:\n  trigger:\n    project: ${w.others[0]!.path_with_namespace}\n    forward:\n      pipeline_variables: true\n`;

describe("pipeline: variables a child pipeline received, passed on by its own trigger", () => {
  it("a parent trigger job's variables, forwarded by the child's trigger with pipeline_variables: true, are judged by the downstream project's rule", async () => {
    w.commit("child:\n  variables:\n    TEMPLATES_REF: main\n  trigger:\n    include: ci/child.yml\n", { "ci/child.yml": forwarding() });
    const action = await w.start({ extra: otherRule() });
    expect(action, "the child pipeline has TEMPLATES_REF=main as a pipeline variable and forwards it to other").toMatchObject({ status: "refused", reason: expect.stringContaining("TEMPLATES_REF") });
    expect(w.sim.pipelines).toEqual([]);
  });

  it("the parent's global variables (every trigger job passes them to its child) forwarded on by the child are judged", async () => {
    w.commit("variables:\n  TEMPLATES_REF: main\nchild:\n  trigger:\n    include: ci/child.yml\n", { "ci/child.yml": forwarding() });
    const action = await w.start({ extra: otherRule() });
    expect(action, "the child's pipeline variables hold the parent's TEMPLATES_REF, and its trigger forwards them").toMatchObject({ status: "refused", reason: expect.stringContaining("TEMPLATES_REF") });
    expect(w.sim.pipelines).toEqual([]);
  });
});

/** The start's outcome, or "never settled" after `ms` with nothing pending but the check. */
async function settles<T>(run: Promise<T>, ms = 4_000): Promise<T | "never settled"> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"never settled">((resolve) => (timer = setTimeout(() => resolve("never settled"), ms)));
  try {
    return await Promise.race([run, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe("pipeline: a child pipeline that starts itself again", () => {
  it("a child file that triggers itself (GitLab stops it at its depth limit) is judged, not waited on forever", async () => {
    w.commit("child:\n  trigger:\n    include: ci/child.yml\n", { "ci/child.yml": "build:\n  script: make\nagain:\n  trigger:\n    include: ci/child.yml\n" });
    const outcome = await settles(w.start());
    expect(outcome, "the check awaits the verdict it is computing").not.toBe("never settled");
  });

  it("two child files that trigger each other are judged, not waited on forever", async () => {
    w.commit("child:\n  trigger:\n    include: ci/a.yml\n", {
      "ci/a.yml": "a:\n  script: make\nto-b:\n  trigger:\n    include: ci/b.yml\n",
      "ci/b.yml": "b:\n  script: make\nto-a:\n  trigger:\n    include: ci/a.yml\n",
    });
    const outcome = await settles(w.start());
    expect(outcome, "ci/a.yml's verdict waits on ci/b.yml's, which waits on ci/a.yml's").not.toBe("never settled");
  });
});

describe("pipeline: a child pipeline from other projects' files, judged by their refs", () => {
  it("a child pipeline from another project's file at a branch only Maintainers change (trigger: include: - project:, GitLab 13.5+) starts", async () => {
    w.sim.repositories.commit(w.templates, { "child.yml": "build:\n  script: make\n" }, "release");
    w.commit(`child:\n  trigger:\n    include:\n      - project: ${w.templates.path_with_namespace}\n        ref: release\n        file: child.yml\n    strategy: depend\n`);
    const action = await w.start();
    expect(action, `the same include at the top level of the CI file is trusted and read at that ref; refused: ${action.reason}`).toMatchObject({ status: "created" });
    expect(w.sim.pipelines).toHaveLength(1);
  });

  it.each([
    ["another project's file at a branch only Maintainers change", () => `include:\n  - project: ${w.templates.path_with_namespace}\n    ref: release\n    file: deploy.yml\n`],
    ["a component at a branch only Maintainers change", () => `include:\n  - component: $CI_SERVER_FQDN/${w.templates.path_with_namespace}/deploy@release\n`],
  ])("a child pipeline's own file that includes %s starts", async (_what, include) => {
    w.commit("child:\n  trigger:\n    include: ci/child.yml\n    strategy: depend\n", { "ci/child.yml": `${include()}build:\n  script: make\n` });
    const action = await w.start();
    expect(action, `the same include in the top-level CI file starts (test/jobs/pipeline/ci-sources.test.ts); refused: ${action.reason}`).toMatchObject({ status: "created" });
    expect(w.sim.pipelines).toHaveLength(1);
  });
});

describe("pipeline: what a child pipeline costs", () => {
  it("a child pipeline of 40 files named by 100 trigger jobs, each with its own value of a variable, is judged once and read once a file", async () => {
    const parts = Object.fromEntries(Array.from({ length: 39 }, (_, i) => [`ci/part-${i}.yml`, `part-${i}:\n  script: make\n`]));
    const child = `include:\n${Object.keys(parts).map((p) => `  - local: ${p}\n`).join("")}build:\n  script: make\n`;
    const jobs = Array.from({ length: 100 }, (_, i) => `child-${i}:\n  variables:\n    SHARD: "${i}"\n  trigger:\n    include: ci/child.yml\n`).join("");
    w.commit(jobs, { "ci/child.yml": child, ...parts });
    const started = Date.now();
    expect(await w.start({ apply: false })).toMatchObject({ status: "planned" });
    const reads = w.sim.counters.byRoute["GET /projects/:id/repository/files/:file_path"] ?? 0;
    // 41 files (.gitlab-ci.yml, ci/child.yml, 39 parts): each read once, not 1 + 100 × 40 = 4,001 times.
    expect(reads, `${reads} file reads in ${Date.now() - started} ms`).toBeLessThanOrEqual(41);
  });

  it("more than 20 child pipelines judged one by one (each passed other variables) are refused, not passed by", async () => {
    const jobs = Array.from({ length: 21 }, (_, i) => `child-${i}:\n  variables:\n    SHARD_${i}: "${i}"\n  trigger:\n    include: ci/child.yml\n`).join("");
    w.commit(jobs, { "ci/child.yml": "build:\n  script: make\n" });
    expect(await w.start({ apply: false })).toMatchObject({ status: "refused", reason: expect.stringContaining("more than 20 child pipelines") });
  });
});
