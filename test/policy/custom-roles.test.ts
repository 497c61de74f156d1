/**
 * A share with a custom role (`member_role_id`): GitLab grants the role's permissions on top of its
 * base access level (a Guest with `admin_cicd_variables` reads and writes CI secrets), so under a rule
 * with `maxAccess` the level alone does not say what the share grants. Such a share is allowed only
 * by a rule that names its role in `memberRoles`; a rule without `maxAccess` allows any access.
 */
import { describe, expect, it } from "vitest";
import { checkPolicy, evaluateShare, parsePolicy, type ShareInput } from "../../lib/policy/index.ts";
import { issuesOf, standardPolicy } from "../support/policies.ts";

/** The standard policy (partners/contractor-x on acme/mobile/** up to developer: allow[1]), `rule` after that rule's maxAccess. */
const policyText = (rule = "") => standardPolicy().replace("        maxAccess: developer\n", `        maxAccess: developer\n${rule}`);

const NOW = new Date("2026-06-15T12:00:00Z");
const GUEST = 10;
const share = (groupPath: string, memberRoleId?: number | null): ShareInput => ({
  kind: "project",
  target: "acme/mobile/app",
  groupPath,
  accessLevel: GUEST,
  expiresAt: null,
  ...(memberRoleId === undefined ? {} : { memberRoleId }),
});

describe("custom roles under maxAccess", () => {
  const policy = parsePolicy(policyText(), "w.yaml");

  // A group share the same (test/jobs/enforce/groups.test.ts, over the simulator).
  it("a project share at guest with a custom role is stray under a maxAccess rule that does not name the role", () => {
    expect(evaluateShare(policy, share("partners/contractor-x", 7), NOW)).toEqual({
      kind: "stray",
      reason: "partners/contractor-x at guest with custom role 7 exceeds maxAccess developer of allow[1] (a custom role adds permissions to its level: name it in memberRoles to allow it)",
      covering: [1],
    });
  });

  it("the same share without a custom role (absent or null) is allowed, as before", () => {
    expect(evaluateShare(policy, share("partners/contractor-x"), NOW).kind).toBe("allowed");
    expect(evaluateShare(policy, share("partners/contractor-x", null), NOW).kind).toBe("allowed");
  });

  it("a rule without maxAccess allows any access, a custom role too", () => {
    expect(evaluateShare(policy, share("acme/platform", 7), NOW)).toMatchObject({ kind: "allowed", rule: "allow[0] acme/**" });
  });

  it("a rule naming the role in memberRoles allows it, and only the roles it names", () => {
    const named = parsePolicy(policyText("        memberRoles: [7, 12]\n"), "w.yaml");
    expect(named.gitlab!.shares.allow[1]!.memberRoles).toEqual([7, 12]);
    expect(evaluateShare(named, share("partners/contractor-x", 7), NOW)).toMatchObject({ kind: "allowed", rule: "allow[1] partners/contractor-x" });
    expect(evaluateShare(named, share("partners/contractor-x", 8), NOW)).toMatchObject({ kind: "stray", reason: expect.stringContaining("with custom role 8 exceeds maxAccess developer") });
    // The level is judged as before: a named role does not lift maxAccess.
    expect(evaluateShare(named, { ...share("partners/contractor-x", 7), accessLevel: 40 }, NOW)).toMatchObject({
      kind: "stray",
      reason: "partners/contractor-x at maintainer exceeds maxAccess developer of allow[1]",
    });
  });

  it.each<[string, string, string]>([
    ["memberRoles without maxAccess", '      - group: "partners/y"\n        memberRoles: [7]\n', "gitlab.shares.allow[2].memberRoles"],
    ["an empty memberRoles", "        memberRoles: []\n", "gitlab.shares.allow[1].memberRoles"],
    ["a role that is not a positive whole number", '        memberRoles: ["admin"]\n', "gitlab.shares.allow[1].memberRoles[0]"],
    ["a role of 0", "        memberRoles: [0]\n", "gitlab.shares.allow[1].memberRoles[0]"],
  ])("refuses %s, naming the field", (_, rule, path) => {
    expect(issuesOf(policyText(rule)).map((issue) => issue.path)).toContain(path);
  });

  it("names why memberRoles needs maxAccess, and how to fix it", () => {
    expect(issuesOf(policyText('      - group: "partners/y"\n        memberRoles: [7]\n'))).toContainEqual({
      path: "gitlab.shares.allow[2].memberRoles",
      message: "memberRoles names the custom roles a rule with maxAccess allows; without maxAccess the rule allows any access already: add maxAccess, or remove memberRoles",
    });
  });

  it("policy check: a later rule allowing a custom role the earlier one does not is not shadowed by it", () => {
    const later = `      - group: "partners/contractor-x"\n        projects: ["acme/mobile/**"]\n        maxAccess: guest\n        memberRoles: [7]\n`;
    expect(checkPolicy(parsePolicy(policyText(later), "w.yaml"), NOW)).toEqual([]);
    // One that allows no role the earlier one does not is shadowed, as before.
    const covered = parsePolicy(policyText(`        memberRoles: [7]\n${later}`), "w.yaml");
    expect(checkPolicy(covered, NOW)).toEqual([expect.stringMatching(/^allow\[2\] .*duplicates allow\[1\]/)]);
  });
});
