/**
 * `warden policy check` names a rule that alone makes the policy remove nothing of a kind: valid, and
 * matched by every share, no other finding would name it (lib/policy/check.ts).
 */
import { describe, expect, it } from "vitest";
import { checkPolicy, parsePolicy } from "../../lib/policy/index.ts";

const NOW = new Date("2026-01-01T00:00:00Z");
const check = (shares: string, scope = "  scope: { groups: [acme] }\n") => checkPolicy(parsePolicy(`version: 1\ngitlab:\n${scope}  shares:\n${shares}`, "warden.yaml"), NOW);

describe("policy check: a rule that covers every share in scope", () => {
  it("names an exemption of every project share, and one of every group share", () => {
    const findings = check('    allow:\n      - group: "partners/x"\n    exempt:\n      - project: "**"\n        reason: "temporary"\n      - group: "acme/**"\n        until: "2026-06-30"\n');
    expect(findings).toContain('exempt[0] (project "**") exempts every project share in scope: no project share is removed while it stands');
    expect(findings).toContainEqual(expect.stringMatching(/^exempt\[1\] \(group "acme\/\*\*".*\) exempts every group share in scope until 2026-06-30: no group share is removed while it stands$/));
  });

  it("names an allow rule for any invited group with no limit, without a scope too", () => {
    expect(check('    allow:\n      - group: "**"\n')).toContain('allow[0] (group "**") allows every share in scope: the policy removes nothing');
    expect(check('    allow: []\n    exempt:\n      - project: "**"\n', "")).toContainEqual(expect.stringMatching(/exempts every project share in scope/));
  });

  it("takes a glob every path matches for \"**\": in sharedWith it means what none means, and an earlier exemption so written shadows a later one", () => {
    const findings = check('    allow:\n      - group: "*/**"\n    exempt:\n      - project: "acme/**"\n        sharedWith: "**/**"\n      - project: "acme/app"\n');
    expect(findings).toContain('allow[0] (group "*/**") allows every share in scope: the policy removes nothing');
    expect(findings).toContain('exempt[0] (project "acme/**", sharedWith "**/**") exempts every project share in scope: no project share is removed while it stands');
    expect(findings).toContainEqual(expect.stringMatching(/^exempt\[1\] \(project "acme\/app"\) is shadowed by exempt\[0\]/));
  });

  it("says nothing of rules that leave some share to remove", () => {
    const findings = check(
      '    allow:\n      - group: "**"\n        maxAccess: reporter\n      - group: "**"\n        projects: ["acme/app/**"]\n    exempt:\n      - project: "acme/app/**"\n      - project: "**"\n        sharedWith: "partners/*"\n',
    );
    expect(findings.filter((f) => /every .*share in scope/.test(f))).toEqual([]);
  });
});
