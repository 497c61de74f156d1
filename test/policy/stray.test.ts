/** onStray, grace, notices and scope overrides (issue 30.1), and exemptions limited to an invited group. */
import { describe, expect, it } from "vitest";
import { checkPolicy, evaluateShare, parsePolicy, strayHandling, unsupportedOnStray, type PolicyIssue } from "../../lib/policy/index.ts";
import { issuesOf } from "../support/policies.ts";

const policy = (shares: string, scope = "") => `version: 1
gitlab:
  scope:
    groups: [acme]
${scope}  shares:
    allow: []
${shares}`;

const NOTICES = "    notices: { project: security/access-notices }\n";

describe("onStray, grace and notices", () => {
  it("a policy without them keeps today's behaviour: remove everywhere, nothing unsupported", () => {
    const p = parsePolicy(policy(""), "warden.yaml");
    expect(p.gitlab!.shares.onStray).toBe("remove");
    expect(p.gitlab!.scope!.overrides).toEqual([]);
    expect(strayHandling(p, "acme/x")).toEqual({ onStray: "remove", from: "gitlab.shares" });
    expect(unsupportedOnStray(p)).toBeUndefined();
  });

  it("parses notify with its grace and notices, defaults filled in", () => {
    const p = parsePolicy(policy(`    onStray: notify\n    grace: 36h\n    notices: { project: security/access-notices, labels: [access, "team::platform"] }\n`), "w");
    expect(p.gitlab!.shares.grace).toEqual({ text: "36h", hours: 36 });
    expect(p.gitlab!.shares.notices).toEqual({ project: "security/access-notices", labels: ["access", "team::platform"], assignAdder: true, authors: [] });
    expect(strayHandling(p, "acme/x")).toEqual({ onStray: "notify", grace: { text: "36h", hours: 36 }, from: "gitlab.shares" });
  });

  it("refuses every malformed value at once, each by its path", () => {
    const issues = issuesOf(
      policy(
        '    onStray: warn\n    grace: 2w\n    notices: { project: "security/*", labels: ["a,b", "", "warden-share::project:1:group:2"], assignAdder: yes, authors: [12, "ops", 0], extra: 1 }\n',
        "    overrides:\n      - { group: acme/mobile, grace: 0d }\n      - { group: \"acme/*\", onStray: notify }\n",
      ),
    );
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: "gitlab.shares.onStray", message: 'expected remove, notify or report, got "warn"' },
        { path: "gitlab.shares.grace", message: 'expected a duration <N>d or <N>h (like 7d or 36h), from 1h to 3650d, got "2w"' },
        { path: "gitlab.shares.notices.project", message: 'invalid project path "security/*": wildcards are not allowed here' },
        { path: "gitlab.shares.notices.labels[0]", message: '"a,b" is not a label name (1 to 255 characters, no comma or control character)' },
        { path: "gitlab.shares.notices.labels[1]", message: '"" is not a label name (1 to 255 characters, no comma or control character)' },
        // Warden's own: a second share label would leave every notice naming no share.
        { path: "gitlab.shares.notices.labels[2]", message: '"warden-share::project:1:group:2" is one of Warden\'s own labels (warden::…, warden-share::…, warden-closed::…): choose another' },
        { path: "gitlab.shares.notices.assignAdder", message: 'expected a boolean, got "yes"' },
        { path: "gitlab.shares.notices.authors[1]", message: expect.stringContaining('got "ops"') },
        { path: "gitlab.shares.notices.authors[2]", message: expect.any(String) },
        { path: "gitlab.shares.notices.extra", message: expect.stringContaining("unknown field") },
        { path: "gitlab.scope.overrides[0].grace", message: expect.stringContaining('got "0d"') },
        { path: "gitlab.scope.overrides[1].group", message: 'invalid group path "acme/*": wildcards are not allowed here' },
      ]),
    );
  });

  it.each<[string, string, string, PolicyIssue[]]>([
    ["notify without grace or notices", "    onStray: notify\n", "", [
      { path: "gitlab.shares.grace", message: expect.stringContaining("required when onStray is notify") },
      { path: "gitlab.shares.notices", message: expect.stringContaining("required when onStray is notify (gitlab.shares.onStray)") },
    ]],
    ["an override to notify with no grace anywhere", NOTICES, "    overrides:\n      - { group: acme/mobile, onStray: notify }\n", [
      { path: "gitlab.scope.overrides[0].grace", message: expect.stringContaining("required when onStray is notify here") },
    ]],
    ["an override setting nothing, and a group overridden twice", "", "    overrides:\n      - { group: acme/mobile, onStray: report }\n      - { group: ACME/Mobile, onStray: remove }\n      - { group: acme/web }\n", [
      { path: "gitlab.scope.overrides[1].group", message: 'group "ACME/Mobile" is already overridden by overrides[0]: merge the two' },
      { path: "gitlab.scope.overrides[2]", message: "expected onStray, grace or both: an override that sets neither changes nothing" },
    ]],
  ])("refuses %s", (_, shares, scope, expected) => {
    expect(issuesOf(policy(shares, scope))).toEqual(expected);
  });

  it("for each field the deepest override containing the subject that sets it wins, else gitlab.shares; paths compare in any case", () => {
    const p = parsePolicy(
      policy(`    onStray: notify\n    grace: 7d\n${NOTICES}`, "    overrides:\n      - { group: acme/mobile/ios, grace: 1d }\n      - { group: acme, onStray: report }\n      - { group: acme/mobile, onStray: remove }\n"),
      "w",
    );
    expect(strayHandling(p, "acme/mobile/ios/app")).toEqual({ onStray: "remove", grace: { text: "1d", hours: 24 }, from: 'gitlab.scope.overrides[2] (group "acme/mobile")' });
    expect(strayHandling(p, "ACME/Mobile/android")).toEqual({ onStray: "remove", grace: { text: "7d", hours: 168 }, from: 'gitlab.scope.overrides[2] (group "acme/mobile")' });
    expect(strayHandling(p, "acme/web").onStray).toBe("report");
    // Whole segments only: acme/mobile-ext is not below acme/mobile.
    expect(strayHandling(p, "acme/mobile-ext/x").from).toBe('gitlab.scope.overrides[1] (group "acme")');
    expect(strayHandling(p, "other/x")).toEqual({ onStray: "notify", grace: { text: "7d", hours: 168 }, from: "gitlab.shares" });
  });

  it("any onStray but remove, anywhere, refuses a saved plan's apply (warden enforce --apply reads the notices)", () => {
    const override = parsePolicy(policy("", "    overrides:\n      - { group: acme/mobile, onStray: report }\n"), "w");
    expect(unsupportedOnStray(override)).toMatch(/^the policy sets onStray report, and a saved plan holds removals only/);
  });

  it("policy check names notices and graces nothing reads, and overrides outside the scope", () => {
    const p = parsePolicy(policy(`    grace: 7d\n${NOTICES}`, "    overrides:\n      - { group: other, onStray: remove }\n"), "w");
    expect(checkPolicy(p, new Date())).toEqual([
      'gitlab.scope.overrides[0] (group "other") lies outside every scope group (acme), so applies to nothing',
      "gitlab.shares.notices is set, but onStray is notify nowhere: no notice is ever opened",
      "gitlab.shares.grace 7d is set, but onStray is notify nowhere: nothing waits for it",
    ]);
  });

  it("policy check does not call an override on a scope group's ancestor one that applies to nothing: it applies to the whole scope", () => {
    const p = parsePolicy("version: 1\ngitlab:\n  scope:\n    groups: [acme/platform]\n    overrides:\n      - { group: acme, onStray: report }\n  shares:\n    allow: []\n", "warden.yaml");
    // What every run does: the override decides the shares of everything in scope.
    expect(strayHandling(p, "acme/platform/api")).toMatchObject({ onStray: "report", from: 'gitlab.scope.overrides[0] (group "acme")' });
    expect(checkPolicy(p, new Date("2026-01-01T00:00:00Z"))).not.toContainEqual(expect.stringMatching(/overrides\[0\].*applies to nothing/));
  });
});

describe("an exemption limited to one invited group, with its reason", () => {
  const p = parsePolicy(policy('    exempt:\n      - { project: acme/api, sharedWith: partners/x, until: 2027-03-31, reason: "audit until March" }\n'), "w");
  const share = (groupPath: string) => ({ kind: "project" as const, target: "acme/api", groupPath, accessLevel: 30, expiresAt: null });
  const now = new Date("2027-01-01T00:00:00Z");

  it("exempts that project's share with that group only", () => {
    expect(evaluateShare(p, share("partners/x"), now)).toEqual({ kind: "exempt", rule: "exempt[0] acme/api shared with partners/x", index: 0 });
    expect(evaluateShare(p, share("partners/y"), now).kind).toBe("stray");
    expect(p.gitlab!.shares.exempt[0]!.reason).toBe("audit until March");
  });

  it("a narrower exemption after a wider one is shadowed; a wider one after a narrower is not", () => {
    const both = parsePolicy(policy("    exempt:\n      - { project: acme/api }\n      - { project: acme/api, sharedWith: partners/x }\n      - { project: acme/web, sharedWith: partners/x }\n      - { project: acme/web }\n"), "w");
    expect(checkPolicy(both, now)).toEqual([expect.stringMatching(/^exempt\[1\] \(project "acme\/api", sharedWith "partners\/x"\) is shadowed by exempt\[0\]/)]);
  });

  it("refuses a reason that is empty, multi-line or too long", () => {
    const reason = (text: string) => issuesOf(policy(`    exempt:\n      - { project: acme/api, reason: ${JSON.stringify(text)} }\n`))[0]?.path;
    expect(reason(" ")).toBe("gitlab.shares.exempt[0].reason");
    expect(reason("a\nb")).toBe("gitlab.shares.exempt[0].reason");
    expect(reason("x".repeat(501))).toBe("gitlab.shares.exempt[0].reason");
  });
});
