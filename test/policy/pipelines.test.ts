import { describe, expect, it } from "vitest";
import { evaluatePipeline, parsePolicy } from "../../lib/policy/index.ts";
import type { PipelineVerdict } from "../../lib/policy/index.ts";

const policy = parsePolicy(
  `
version: 1
pipelines:
  allow:
    - project: "acme/platform/**"
      refs: ["main", "release/*"]
      variables: ["DEPLOY_ENV", "DRY_RUN"]
    - project: "acme/platform/api"
      refs: ["main"]
      variables: ["DEPLOY_ENV", "API_KEY_ROTATION"]
    - project: "acme/mobile/*"
      refs: ["main"]
`,
  "pipelines.yaml",
);

const vars = (...keys: string[]) => keys.map((key) => ({ key, value: "x" }));

describe("evaluatePipeline", () => {
  it.each<[string, string, string, string[], PipelineVerdict]>([
    ["a project and ref the first rule allows", "acme/platform/web", "main", [],
      { allowed: true, rule: "allow[0] acme/platform/**", unprotected: false }],
    ["a project path in capitals", "Acme/Platform/Web", "main", [], { allowed: true, rule: "allow[0] acme/platform/**", unprotected: false }],
    ["a release branch", "acme/platform/web", "release/1.4", ["DRY_RUN"], { allowed: true, rule: "allow[0] acme/platform/**", unprotected: false }],
    ["allowed variables", "acme/platform/web", "main", ["DEPLOY_ENV", "DRY_RUN"],
      { allowed: true, rule: "allow[0] acme/platform/**", unprotected: false }],
    ["a variable only a later rule allows", "acme/platform/api", "main", ["API_KEY_ROTATION"],
      { allowed: true, rule: "allow[1] acme/platform/api", unprotected: false }],
    ["a project no rule matches", "acme/web", "main", [],
      { allowed: false, reason: "no pipelines.allow rule matches project acme/web" }],
    ["a project that only starts like an allowed one", "acme/platform-old/x", "main", [],
      { allowed: false, reason: "no pipelines.allow rule matches project acme/platform-old/x" }],
    ["a ref no rule allows for the project", "acme/platform/api", "feature/x", [],
      { allowed: false, reason: "ref feature/x is not allowed for project acme/platform/api (allowed: main, release/*)" }],
    ["a ref below release/*'s one segment", "acme/platform/web", "release/1.4/hotfix", [],
      { allowed: false, reason: "ref release/1.4/hotfix is not allowed for project acme/platform/web (allowed: main, release/*)" }],
    ["a ref in the wrong case (refs are case-sensitive)", "acme/platform/web", "Main", [],
      { allowed: false, reason: "ref Main is not allowed for project acme/platform/web (allowed: main, release/*)" }],
    ["one variable refused", "acme/platform/web", "main", ["DEPLOY_ENV", "SECRET"],
      { allowed: false,
        reason: "variable SECRET not allowed for project acme/platform/web on main (allow[0] allows: DEPLOY_ENV, DRY_RUN)" }],
    ["several variables refused, each named once", "acme/platform/web", "release/2", ["A", "DRY_RUN", "B", "A"],
      { allowed: false,
        reason: "variables A, B not allowed for project acme/platform/web on release/2 (allow[0] allows: DEPLOY_ENV, DRY_RUN)" }],
    ["variable names are case-sensitive", "acme/platform/web", "main", ["dry_run"],
      { allowed: false,
        reason: "variable dry_run not allowed for project acme/platform/web on main (allow[0] allows: DEPLOY_ENV, DRY_RUN)" }],
    ["variables judged against the closest rule", "acme/platform/api", "main", ["DEPLOY_ENV", "API_KEY_ROTATION", "X"],
      { allowed: false,
        reason: "variable X not allowed for project acme/platform/api on main (allow[1] allows: DEPLOY_ENV, API_KEY_ROTATION)" }],
    ["variables on a rule that allows none", "acme/mobile/ios", "main", ["DRY_RUN"],
      { allowed: false, reason: "variable DRY_RUN not allowed for project acme/mobile/ios on main (allow[2] allows: none)" }],
  ])("%s", (_, projectPath, ref, keys, verdict) => {
    expect(evaluatePipeline(policy, { projectPath, ref, variables: vars(...keys) })).toEqual(verdict);
  });

  it("refuses everything when the policy has no pipelines section", () => {
    const none = parsePolicy("version: 1\n", "none.yaml");
    expect(evaluatePipeline(none, { projectPath: "acme/platform/web", ref: "main", variables: [] })).toEqual({
      allowed: false,
      reason: "pipelines are not enabled (the policy has no pipelines section)",
    });
  });

  it("allows an unprotected ref only by a rule that says unprotected: true, preferring such a rule when several allow", () => {
    const both = parsePolicy(
      `version: 1
pipelines:
  allow:
    - { project: "acme/**", refs: ["release/*"] }
    - { project: "acme/platform/**", refs: ["release/*"], unprotected: true }
`,
      "both.yaml",
    );
    const judge = (projectPath: string) => evaluatePipeline(both, { projectPath, ref: "release/x", variables: [] });
    expect(judge("acme/platform/web")).toEqual({ allowed: true, rule: "allow[1] acme/platform/**", unprotected: true });
    expect(judge("acme/mobile/ios")).toEqual({ allowed: true, rule: "allow[0] acme/**", unprotected: false });
  });

  it("takes unprotected as a boolean only", () => {
    expect(() => parsePolicy(`version: 1\npipelines:\n  allow:\n    - { project: "a/**", refs: ["main"], unprotected: "yes" }\n`, "bad.yaml")).toThrow(/pipelines\.allow\[0\]\.unprotected/);
  });
});
