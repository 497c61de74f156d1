import { describe, expect, it } from "vitest";
import { evaluateShare, inScope, parsePolicy } from "../../lib/policy/index.ts";
import type { ShareInput, ShareKind, ShareVerdict } from "../../lib/policy/index.ts";

// Group shares and expiry rules (issue #11), next to the project-share cases in shares.test.ts.
const policy = parsePolicy(
  `
version: 1
gitlab:
  scope:
    groups: [acme]
  shares:
    allow:
      - group: "acme/**"
      - group: "partners/contractor-x"
        projects: ["acme/mobile/**"]
        maxAccess: developer
      - group: "auditors"
        groups: ["acme", "acme/platform/**"]
        maxAccess: reporter
        expiresWithin: 90d
      - group: "partners/agency-y"
        projects: ["acme/web/**"]
        groups: ["acme/web"]
      - group: "incident/**"
        expiresWithin: 1d
    exempt:
      - project: "acme/vendor/**"
      - group: "acme/legacy/**"
      - group: "acme/frozen"
        until: 2026-06-30
`,
  "group-shares.yaml",
);

const NOW = new Date("2026-06-15T12:00:00Z");
const REPORTER = 20;
const DEVELOPER = 30;
const IN_90_DAYS = "2026-09-13";

function share(kind: ShareKind, target: string, groupPath: string, accessLevel = REPORTER, expiresAt: string | null = null): ShareInput {
  return { kind, target, groupPath, accessLevel, expiresAt };
}

const allowed = (rule: string): ShareVerdict => ({ kind: "allowed", rule, index: Number(/\[(\d+)\]/.exec(rule)![1]) });
/** `covering`: the allow rules that cover the share but whose condition it breaks. */
const stray = (reason: string, ...covering: number[]): ShareVerdict => ({ kind: "stray", reason, ...(covering.length && { covering }) });

describe("evaluateShare: each rule shape for each kind", () => {
  const AUDITORS_ONLY = "allow[2] auditors applies only to group shares of acme, acme/platform/**";
  const AGENCY_ONLY = "allow[3] partners/agency-y applies only to projects acme/web/** and group shares of acme/web";
  const CONTRACTOR_ONLY = "allow[1] partners/contractor-x applies only to projects acme/mobile/**";

  it.each<[string, ShareInput, ShareVerdict]>([
    // no projects/groups key: both kinds
    ["no key, project share", share("project", "acme/app", "acme/platform/sre"), allowed("allow[0] acme/**")],
    ["no key, group share", share("group", "acme/platform", "acme/data"), allowed("allow[0] acme/**")],
    // only projects: project shares on those projects, never group shares
    ["projects only, a listed project", share("project", "acme/mobile/ios", "partners/contractor-x", DEVELOPER),
      allowed("allow[1] partners/contractor-x")],
    ["projects only, another project", share("project", "acme/api", "partners/contractor-x"),
      stray(`no allow rule matches group partners/contractor-x on project acme/api (${CONTRACTOR_ONLY})`)],
    ["projects only, a group share by a group the project glob matches", share("group", "acme/mobile", "partners/contractor-x"),
      stray(`no allow rule matches group partners/contractor-x for group shares of acme/mobile (${CONTRACTOR_ONLY})`)],
    // only groups: group shares made by those groups, never project shares
    ["groups only, a listed group", share("group", "acme", "auditors", REPORTER, "2026-07-01"), allowed("allow[2] auditors")],
    ["groups only, under a listed glob, any case", share("group", "ACME/Platform/SRE", "Auditors", REPORTER, "2026-07-01"),
      allowed("allow[2] auditors")],
    ["groups only, another group", share("group", "acme/data", "auditors", REPORTER, "2026-07-01"),
      stray(`no allow rule matches group auditors for group shares of acme/data (${AUDITORS_ONLY})`)],
    ["groups only, a project share below a listed group", share("project", "acme/platform/api", "auditors", REPORTER, "2026-07-01"),
      stray(`no allow rule matches group auditors on project acme/platform/api (${AUDITORS_ONLY})`)],
    // both keys: each to its kind
    ["both, a listed project", share("project", "acme/web/shop", "partners/agency-y", 50), allowed("allow[3] partners/agency-y")],
    ["both, a listed group", share("group", "acme/web", "partners/agency-y", 50), allowed("allow[3] partners/agency-y")],
    ["both, another project", share("project", "acme/api", "partners/agency-y"),
      stray(`no allow rule matches group partners/agency-y on project acme/api (${AGENCY_ONLY})`)],
    ["both, a group only the projects glob matches", share("group", "acme/web/frontend", "partners/agency-y"),
      stray(`no allow rule matches group partners/agency-y for group shares of acme/web/frontend (${AGENCY_ONLY})`)],
    // conditions of a rule that covers the share
    ["a group share above maxAccess", share("group", "acme", "auditors", DEVELOPER, "2026-07-01"),
      stray("auditors at developer exceeds maxAccess reporter of allow[2]", 2)],
    ["a group share no rule's group matches", share("group", "acme", "partners/agency-z"),
      stray("no allow rule matches group partners/agency-z")],
    ["the invited group need not be in scope", share("group", "acme", "other/team"), stray("no allow rule matches group other/team")],
  ])("%s", (_, input, verdict) => {
    expect(evaluateShare(policy, input, NOW)).toEqual(verdict);
  });
});

describe("evaluateShare: expiresWithin, in UTC days (now 2026-06-15)", () => {
  it.each<[string, string | null, ShareVerdict]>([
    ["long past", "2020-01-01", allowed("allow[2] auditors")],
    ["yesterday", "2026-06-14", allowed("allow[2] auditors")],
    ["today", "2026-06-15", allowed("allow[2] auditors")],
    ["today + 90 days", IN_90_DAYS, allowed("allow[2] auditors")],
    ["today + 91 days", "2026-09-14",
      stray("auditors expires 2026-09-14, later than expiresWithin 90d of allow[2] allows", 2)],
    ["years ahead", "2031-01-01", stray("auditors expires 2031-01-01, later than expiresWithin 90d of allow[2] allows", 2)],
    ["no expiry", null, stray("auditors has no expiry, but allow[2] requires expiresWithin 90d", 2)],
  ])("a group share expiring %s (%s)", (_, expiresAt, verdict) => {
    expect(evaluateShare(policy, share("group", "acme/platform", "auditors", REPORTER, expiresAt), NOW)).toEqual(verdict);
  });

  it.each<[ShareKind, string | null, ShareVerdict["kind"]]>([
    ["project", "2026-06-15", "allowed"],
    ["project", "2026-06-16", "allowed"],
    ["project", "2026-06-17", "stray"],
    ["project", null, "stray"],
    ["group", "2026-06-16", "allowed"],
    ["group", "2026-06-17", "stray"],
    ["group", null, "stray"],
  ])("expiresWithin 1d on a rule without keys judges a %s share expiring %s: %s", (kind, expiresAt, verdict) => {
    expect(evaluateShare(policy, share(kind, "acme/ops", "incident/responders", 50, expiresAt), NOW).kind).toBe(verdict);
  });

  it.each([
    ["at the day's first instant", "2026-06-15T00:00:00.000Z", "allowed", "stray"],
    ["at the day's last instant", "2026-06-15T23:59:59.999Z", "allowed", "stray"],
    ["the next day", "2026-06-16T00:00:00.000Z", "allowed", "allowed"],
    ["in New York, already the next day in UTC", "2026-06-15T20:00:00-05:00", "allowed", "allowed"],
  ])("counts from now's UTC date, %s (%s)", (_, now, on90, on91) => {
    const at = (expiresAt: string) => evaluateShare(policy, share("group", "acme", "auditors", REPORTER, expiresAt), new Date(now)).kind;
    expect([at(IN_90_DAYS), at("2026-09-14")]).toEqual([on90, on91]);
  });

  it("crosses month ends and leap days by the calendar", () => {
    const at = (expiresAt: string) =>
      evaluateShare(policy, share("project", "acme/ops", "incident/x", 10, expiresAt), new Date("2028-02-28T10:00:00Z")).kind;
    expect([at("2028-02-29"), at("2028-03-01")]).toEqual(["allowed", "stray"]);
  });

  it("explains a share that breaks maxAccess before its expiry", () => {
    expect(evaluateShare(policy, share("group", "acme", "auditors", DEVELOPER, null), NOW)).toEqual(
      stray("auditors at developer exceeds maxAccess reporter of allow[2]", 2),
    );
  });
});

describe("evaluateShare: exemptions by kind", () => {
  it.each<[string, ShareInput, string, ShareVerdict]>([
    ["a group share by an exempt group", share("group", "acme/legacy/erp", "partners/agency-z"), "2026-06-15T12:00:00Z",
      { kind: "exempt", rule: "exempt[1] acme/legacy/**", index: 1 }],
    ["a group share by the exempt glob's root", share("group", "acme/legacy", "partners/agency-z"), "2026-06-15T12:00:00Z",
      { kind: "exempt", rule: "exempt[1] acme/legacy/**", index: 1 }],
    ["a group exemption without until, long after", share("group", "acme/legacy", "partners/agency-z"), "2100-01-01T00:00:00Z",
      { kind: "exempt", rule: "exempt[1] acme/legacy/**", index: 1 }],
    ["a group exemption on its until day's last instant", share("group", "acme/frozen", "partners/agency-z"),
      "2026-06-30T23:59:59.999Z", { kind: "exempt", rule: "exempt[2] acme/frozen", index: 2 }],
    ["a group exemption the day after its until", share("group", "acme/frozen", "partners/agency-z"), "2026-07-01T00:00:00.000Z",
      stray("no allow rule matches group partners/agency-z")],
    ["a group next to the exempt one", share("group", "acme/legacy-ui", "partners/agency-z"), "2026-06-15T12:00:00Z",
      stray("no allow rule matches group partners/agency-z")],
    ["a group exemption does not cover a project of that path", share("project", "acme/frozen", "partners/agency-z"),
      "2026-06-15T12:00:00Z", stray("no allow rule matches group partners/agency-z")],
    ["a project exemption does not cover a group of that path", share("group", "acme/vendor/sdk", "partners/agency-z"),
      "2026-06-15T12:00:00Z", stray("no allow rule matches group partners/agency-z")],
    ["a project exemption still covers its projects", share("project", "acme/vendor/sdk", "partners/agency-z"),
      "2026-06-15T12:00:00Z", { kind: "exempt", rule: "exempt[0] acme/vendor/**", index: 0 }],
  ])("%s", (_, input, now, verdict) => {
    expect(evaluateShare(policy, input, new Date(now))).toEqual(verdict);
  });
});

describe("scope for group shares", () => {
  it.each<[string, string, ShareVerdict["kind"]]>([
    ["a group outside the scope", "other", "out-of-scope"],
    ["a subgroup outside the scope", "other/acme", "out-of-scope"],
    ["a group that only starts like the scope group", "acme-ext", "out-of-scope"],
    ["a subgroup of that group", "acme-ext/platform", "out-of-scope"],
    ["the scope group itself", "acme", "stray"],
    ["the scope group in capitals", "ACME", "stray"],
    ["a descendant of the scope group", "acme/a/b/c", "stray"],
  ])("%s (%s) sharing with an unlisted group: %s", (_, sharingGroup, verdict) => {
    expect(evaluateShare(policy, share("group", sharingGroup, "partners/agency-z"), NOW).kind).toBe(verdict);
  });

  it.each([
    ["acme", true],
    ["Acme/Platform", true],
    ["acme-ext", false],
    ["other/acme", false],
  ])("inScope(policy, %s) is %s", (path, expected) => {
    expect(inScope(policy, path)).toBe(expected);
  });

  it("governs every group without a scope, and none without a gitlab section", () => {
    const wholeInstance = parsePolicy("version: 1\ngitlab:\n  shares:\n    allow: []\n", "instance.yaml");
    const noGitlab = parsePolicy("version: 1\n", "empty.yaml");
    const input = share("group", "anything", "z");
    expect(evaluateShare(wholeInstance, input, NOW)).toEqual(stray("no allow rule matches group z"));
    expect(evaluateShare(noGitlab, input, NOW)).toEqual({ kind: "out-of-scope" });
  });
});
