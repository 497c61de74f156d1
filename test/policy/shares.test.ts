import { describe, expect, it } from "vitest";
import { evaluateShare, inScope, maxRemovals, parsePolicy, scopeGroups } from "../../lib/policy/index.ts";
import type { ShareInput, ShareVerdict } from "../../lib/policy/index.ts";

const policy = parsePolicy(
  `
version: 1
gitlab:
  scope:
    groups: [acme, Widgets]
  shares:
    allow:
      - group: "acme/**"
      - group: "partners/contractor-x"
        projects: ["acme/mobile/**", "acme/web-*"]
        maxAccess: developer
      - group: "partners/auditor-*"
        maxAccess: reporter
    exempt:
      - project: "acme/legacy/**"
        until: 2027-01-01
      - project: "acme/forever"
  guard:
    maxRemovals: 7
`,
  "shares.yaml",
);

const NOW = new Date("2026-06-15T12:00:00Z");
const DEVELOPER = 30;

/** A project share without expiry, as every share was before group shares and expiry rules. */
function projectShare(target: string, groupPath: string, accessLevel: number): ShareInput {
  return { kind: "project", target, groupPath, accessLevel, expiresAt: null };
}

describe("evaluateShare", () => {
  it.each<[string, string, string, number, ShareVerdict]>([
    // scope: projects under acme or widgets, whole segments, any case
    ["outside every scope group", "other/app", "partners/agency-y", DEVELOPER, { kind: "out-of-scope" }],
    ["a group sharing the scope's prefix", "acme-ext/app", "partners/agency-y", DEVELOPER, { kind: "out-of-scope" }],
    ["a scope group written in capitals", "widgets/app", "acme/team", DEVELOPER, { kind: "allowed", rule: "allow[0] acme/**", index: 0 }],
    ["a project path in capitals", "ACME/App", "partners/agency-y", DEVELOPER,
      { kind: "stray", reason: "no allow rule matches group partners/agency-y" }],
    // allow rules
    ["the organisation itself", "acme/app", "acme", 50, { kind: "allowed", rule: "allow[0] acme/**", index: 0 }],
    ["a subgroup of the organisation", "acme/app", "acme/platform/sre", 50, { kind: "allowed", rule: "allow[0] acme/**", index: 0 }],
    ["a group that only starts like acme", "acme/app", "acme-ext/team", 10,
      { kind: "stray", reason: "no allow rule matches group acme-ext/team" }],
    // project-scoped rule
    ["contractor on a mobile project", "acme/mobile/ios", "partners/contractor-x", DEVELOPER,
      { kind: "allowed", rule: "allow[1] partners/contractor-x", index: 1 }],
    ["contractor on the second project glob", "acme/web-shop", "Partners/Contractor-X", 20,
      { kind: "allowed", rule: "allow[1] partners/contractor-x", index: 1 }],
    ["contractor on another project", "acme/api", "partners/contractor-x", 20,
      { kind: "stray",
        reason: "no allow rule matches group partners/contractor-x on project acme/api " +
          "(allow[1] partners/contractor-x applies only to projects acme/mobile/**, acme/web-*)" }],
    // maxAccess boundary
    ["contractor at maxAccess", "acme/mobile/ios", "partners/contractor-x", DEVELOPER,
      { kind: "allowed", rule: "allow[1] partners/contractor-x", index: 1 }],
    ["contractor below maxAccess", "acme/mobile/ios", "partners/contractor-x", 10,
      { kind: "allowed", rule: "allow[1] partners/contractor-x", index: 1 }],
    ["contractor above maxAccess", "acme/mobile/ios", "partners/contractor-x", 40,
      { kind: "stray", reason: "partners/contractor-x at maintainer exceeds maxAccess developer of allow[1]", covering: [1] }],
    ["auditor above maxAccess at an unnamed level", "acme/app", "partners/auditor-big4", 35,
      { kind: "stray", reason: "partners/auditor-big4 at level 35 exceeds maxAccess reporter of allow[2]", covering: [2] }],
    ["auditor at maxAccess", "acme/app", "partners/auditor-big4", 20, { kind: "allowed", rule: "allow[2] partners/auditor-*", index: 2 }],
    // exemptions
    ["an exempt project, stray otherwise", "acme/legacy/erp", "partners/agency-y", 50,
      { kind: "exempt", rule: "exempt[0] acme/legacy/**", index: 0 }],
    ["an exemption without until", "acme/forever", "partners/agency-y", 50, { kind: "exempt", rule: "exempt[1] acme/forever", index: 1 }],
    ["a project next to the exempt one", "acme/legacy-ui", "partners/agency-y", 50,
      { kind: "stray", reason: "no allow rule matches group partners/agency-y" }],
  ])("%s", (_, projectPath, groupPath, accessLevel, verdict) => {
    expect(evaluateShare(policy, projectShare(projectPath, groupPath, accessLevel), NOW)).toEqual(verdict);
  });

  it.each([
    ["long before", "2026-01-01T00:00:00Z", "exempt"],
    ["on the day, first instant", "2027-01-01T00:00:00.000Z", "exempt"],
    ["on the day, last instant", "2027-01-01T23:59:59.999Z", "exempt"],
    ["the day after, first instant", "2027-01-02T00:00:00.000Z", "stray"],
    ["a year after", "2028-01-01T00:00:00Z", "stray"],
  ])("an exemption until 2027-01-01, %s (%s): %s", (_, now, kind) => {
    const share = projectShare("acme/legacy/erp", "partners/agency-y", 30);
    expect(evaluateShare(policy, share, new Date(now)).kind).toBe(kind);
  });

  it("uses the UTC day whatever the offset the instant was written with", () => {
    const share = projectShare("acme/legacy/erp", "partners/agency-y", 30);
    // 2027-01-01 20:00 in New York is already 2027-01-02 in UTC.
    expect(evaluateShare(policy, share, new Date("2027-01-01T20:00:00-05:00")).kind).toBe("stray");
  });

  it("lets an allowed share through even when an earlier rule's maxAccess rejects it", () => {
    const lenient = parsePolicy(
      `
version: 1
gitlab:
  shares:
    allow:
      - { group: "partners/*", maxAccess: guest }
      - { group: "partners/contractor-x", maxAccess: owner }
`,
      "lenient.yaml",
    );
    const share = projectShare("any/project", "partners/contractor-x", 50);
    // allow[0] covers the share too (its condition broken): it matched it, and is no typo.
    expect(evaluateShare(lenient, share, NOW)).toEqual({ kind: "allowed", rule: "allow[1] partners/contractor-x", index: 1, covering: [0] });
  });

  it("an exempt share names the allow rules that cover it and the later exemptions that match it: each matched it", () => {
    const frozen = parsePolicy(
      `
version: 1
gitlab:
  shares:
    allow:
      - { group: "acme/**" }
      - { group: "partners/vendor", projects: ["acme/legacy/**"], maxAccess: developer }
      - { group: "partners/vendor", projects: ["acme/web/**"] }
    exempt:
      - { project: "acme/legacy/**" }
      - { project: "acme/legacy/billing", sharedWith: "partners/**" }
`,
      "frozen.yaml",
    );
    expect(evaluateShare(frozen, projectShare("acme/legacy/billing", "partners/vendor", 50), NOW)).toEqual({ kind: "exempt", rule: "exempt[0] acme/legacy/**", index: 0, covering: [1], alsoExempt: [1] });
  });
});

describe("scope", () => {
  const wholeInstance = parsePolicy("version: 1\ngitlab:\n  shares:\n    allow: []\n", "instance.yaml");
  const noGitlab = parsePolicy("version: 1\n", "empty.yaml");

  it.each([
    [policy, "acme/app", true],
    [policy, "acme/a/b/c", true],
    [policy, "Acme/App", true],
    [policy, "WIDGETS/app", true],
    [policy, "acme-ext/app", false],
    [policy, "other/acme/app", false],
    [wholeInstance, "anything/at/all", true],
    [noGitlab, "acme/app", false],
  ])("inScope(%#, %s) is %s", (p, projectPath, expected) => {
    expect(inScope(p, projectPath)).toBe(expected);
  });

  it("lists the scope groups as written, undefined for the whole instance, none without a gitlab section", () => {
    expect(scopeGroups(policy)).toEqual(["acme", "Widgets"]);
    expect(scopeGroups(wholeInstance)).toBeUndefined();
    expect(scopeGroups(noGitlab)).toEqual([]);
  });

  it("makes every share stray when no allow rule is given, and touches nothing without a gitlab section", () => {
    const share = projectShare("x/y", "z", 10);
    expect(evaluateShare(wholeInstance, share, NOW)).toEqual({ kind: "stray", reason: "no allow rule matches group z" });
    expect(evaluateShare(noGitlab, share, NOW)).toEqual({ kind: "out-of-scope" });
  });

  it("reads the removal guard, 25 by default", () => {
    expect(maxRemovals(policy)).toBe(7);
    expect(maxRemovals(wholeInstance)).toBe(25);
    expect(maxRemovals(noGitlab)).toBe(25);
  });
});
