/**
 * A rule's path glob with a part "." or ".." (`group: "."`, `projects: [".."]`), which no GitLab path is:
 * the policy took it, and a run looked the literal path up (lib/jobs/shares/literal-rules.ts) as
 * GET /namespaces/. or /projects/., which the URL resolves to /namespaces/ or /projects/: a listing
 * (every namespace, for an administrator's token), then blamed on GitLab ("could not be looked up"),
 * every run. It is refused when the policy is read, as a command's plain path is (glob.ts plainPathProblem).
 */
import { describe, expect, it } from "vitest";
import { globProblem, parsePolicy, PolicyError } from "../../lib/policy/index.ts";

const policy = (group: string) => `version: 1\ngitlab:\n  scope: { groups: [acme] }\n  shares:\n    allow:\n      - group: "${group}"\n  guard: { unmatchedRules: warn }\n`;

describe('a path glob with a part "." or ".."', () => {
  it.each([".", "..", "acme/.", "acme/../**", "./acme"])("%s is refused, naming the part", (glob) => {
    expect(globProblem(glob)).toMatch(/"\." or "\.\.", which no GitLab path/);
    expect(() => parsePolicy(policy(glob), "warden.yaml")).toThrow(PolicyError);
  });

  it("a ref glob keeps git's own rules (refs are judged by refs.ts)", () => {
    expect(globProblem("release/*", "ref")).toBeUndefined();
  });
});
