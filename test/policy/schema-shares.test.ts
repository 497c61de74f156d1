import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parsePolicy } from "../../lib/policy/index.ts";
import { issuesOf } from "../support/policies.ts";

// Validation of the share keys issue #11 adds: allow[].groups, allow[].expiresWithin, exempt[].group.

const ALLOW = "version: 1\ngitlab:\n  shares:\n    allow:\n      - group: x\n";
const EXEMPT = "version: 1\ngitlab:\n  shares:\n    allow: []\n    exempt:\n";
const EXPIRES = "expected <N>d with N from 1 to 3650, got";

describe("schema: new share keys", () => {
  it.each<[string, string, string, string]>([
    // [kind, YAML, path, message]
    ["an empty groups list", `${ALLOW}        groups: []\n`, "gitlab.shares.allow[0].groups", "must not be empty"],
    ["groups given as one string", `${ALLOW}        groups: acme\n`, "gitlab.shares.allow[0].groups", 'expected a list, got "acme"'],
    ["a bad glob in groups", `${ALLOW}        groups: ["acme", "acme//x"]\n`, "gitlab.shares.allow[0].groups[1]",
      'invalid glob "acme//x": it has an empty segment (//)'],
    ["expiresWithin in words", `${ALLOW}        expiresWithin: 3 months\n`, "gitlab.shares.allow[0].expiresWithin", `${EXPIRES} "3 months"`],
    ["expiresWithin without its unit", `${ALLOW}        expiresWithin: 90\n`, "gitlab.shares.allow[0].expiresWithin", `${EXPIRES} 90`],
    ["expiresWithin in another unit", `${ALLOW}        expiresWithin: 12w\n`, "gitlab.shares.allow[0].expiresWithin", `${EXPIRES} "12w"`],
    ["expiresWithin with a space", `${ALLOW}        expiresWithin: 90 d\n`, "gitlab.shares.allow[0].expiresWithin", `${EXPIRES} "90 d"`],
    ["expiresWithin of zero days", `${ALLOW}        expiresWithin: 0d\n`, "gitlab.shares.allow[0].expiresWithin", `${EXPIRES} "0d"`],
    ["expiresWithin negative", `${ALLOW}        expiresWithin: -5d\n`, "gitlab.shares.allow[0].expiresWithin", `${EXPIRES} "-5d"`],
    ["expiresWithin above ten years", `${ALLOW}        expiresWithin: 3651d\n`, "gitlab.shares.allow[0].expiresWithin",
      `${EXPIRES} "3651d"`],
    ["expiresWithin left empty", `${ALLOW}        expiresWithin:\n`, "gitlab.shares.allow[0].expiresWithin", `${EXPIRES} null`],
    ["an exemption with neither project nor group", `${EXEMPT}      - until: 2027-01-01\n`, "gitlab.shares.exempt[0]",
      "expected exactly one of project or group, got neither"],
    ["an exemption with both project and group", `${EXEMPT}      - { project: acme/x, group: acme/y }\n`, "gitlab.shares.exempt[0]",
      "expected exactly one of project or group, got both"],
    ["a bad glob in an exempt group", `${EXEMPT}      - group: "acme/"\n`, "gitlab.shares.exempt[0].group",
      'invalid glob "acme/": it must not start or end with /'],
    ["a bad until on a group exemption", `${EXEMPT}      - { group: acme, until: 2027-02-30 }\n`, "gitlab.shares.exempt[0].until",
      '"2027-02-30" is not a calendar date YYYY-MM-DD'],
  ])("reports %s", (_, text, path, message) => {
    expect(issuesOf(text)).toEqual([{ path, message }]);
  });

  it("names the new keys among the expected fields of a misspelt one", () => {
    expect(issuesOf(`${ALLOW}        expiresWihtin: 90d\n`)).toEqual([
      { path: "gitlab.shares.allow[0].expiresWihtin", message: "unknown field (expected group, projects, groups, maxAccess, memberRoles or expiresWithin)" },
    ]);
    expect(issuesOf(`${EXEMPT}      - { gruop: acme }\n`)).toEqual([
      { path: "gitlab.shares.exempt[0].gruop", message: "unknown field (expected project, group, sharedWith, until or reason)" },
      { path: "gitlab.shares.exempt[0]", message: "expected exactly one of project or group, got neither" },
    ]);
  });

  it("names the file and the field in the message", () => {
    const text = `${ALLOW}      - group: y\n      - group: z\n        expiresWithin: 3 months\n`;
    expect(() => parsePolicy(text, "warden.yaml")).toThrow(
      'warden.yaml: gitlab.shares.allow[2].expiresWithin: expected <N>d with N from 1 to 3650, got "3 months"',
    );
  });
});

describe("schema: parsed share keys", () => {
  const shares = (text: string) => parsePolicy(text, "warden.yaml").gitlab?.shares;

  it.each([
    ["1d", 1],
    ["90d", 90],
    ["3650d", 3650],
  ])("stores expiresWithin %s as %i days", (text, days) => {
    expect(shares(`${ALLOW}        expiresWithin: ${text}\n`)?.allow[0]?.expiresWithin).toBe(days);
  });

  it("compiles groups globs and keeps them as written", () => {
    const groups = shares(`${ALLOW}        groups: ["Acme/platform/**"]\n`)?.allow[0]?.groups;
    expect(groups?.map((glob) => glob.pattern)).toEqual(["Acme/platform/**"]);
    expect(groups?.[0]?.matches("acme/PLATFORM/sre")).toBe(true);
  });

  it("keeps a version 1 rule and exemption as they were: no groups, no expiry, a project glob", () => {
    const parsed = shares(`${ALLOW}        projects: [acme/app]\n    exempt:\n      - { project: acme/legacy, until: 2027-01-01 }\n`);
    expect(parsed?.allow[0]?.groups).toBeUndefined();
    expect(parsed?.allow[0]?.expiresWithin).toBeUndefined();
    expect(Object.keys(parsed?.allow[0] ?? {})).toEqual(["group", "projects"]);
    expect(parsed?.exempt.map((e) => [e.project?.pattern, e.group, e.until])).toEqual([["acme/legacy", undefined, "2027-01-01"]]);
  });

  it("reads group exemptions with and without until", () => {
    const parsed = shares(`${EXEMPT}      - group: acme/legacy/**\n      - { group: acme/frozen, until: 2026-06-30 }\n`);
    expect(parsed?.exempt.map((e) => [e.project, e.group?.pattern, e.until])).toEqual([
      [undefined, "acme/legacy/**", undefined],
      [undefined, "acme/frozen", "2026-06-30"],
    ]);
  });
});

describe("examples/warden.yaml documents the new keys", () => {
  const gitlab = parsePolicy(readFileSync(new URL("../../examples/warden.yaml", import.meta.url), "utf8"), "warden.yaml").gitlab;

  it("has a groups-only rule with expiresWithin, and a group exemption", () => {
    const auditors = gitlab?.shares.allow.find((rule) => rule.groups !== undefined);
    expect([auditors?.group.pattern, auditors?.groups?.map((g) => g.pattern), auditors?.projects, auditors?.maxAccess, auditors?.expiresWithin])
      .toEqual(["auditors", ["acme/platform/**"], undefined, "reporter", 90]);
    expect(gitlab?.shares.exempt.map((e) => [e.project?.pattern, e.group?.pattern, e.until])).toEqual([
      ["acme/legacy/**", undefined, "2027-01-01"],
      [undefined, "acme/legacy/**", undefined],
      ["acme/api", undefined, "2027-03-31"],
    ]);
  });
});
