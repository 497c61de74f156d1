/**
 * warden exempt's policy edit: the entry spliced in after the last exemption, or the document rewritten, never anything else changed,
 * as Warden reads a policy (a `%YAML 1.1` file's timestamps as their text: the exempt10 review).
 */
import { describe, expect, it } from "vitest";
import { exemptionEntry, PolicyEditError, withExemption } from "../../../lib/jobs/exempt/edit.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";

const ENTRY = { project: "acme/api", sharedWith: "partners/x", until: "2099-01-01", reason: "a: b # not a comment" };

describe("withExemption", () => {
  it("splices the entry after the last exemption, comments and layout untouched", () => {
    const text = "version: 1\ngitlab:\n  shares:\n    allow: []   # none\n    exempt:\n    - project: a/b  # old\n  guard: { maxRemovals: 5 }\n";
    expect(withExemption(text, ENTRY)).toBe(
      "version: 1\ngitlab:\n  shares:\n    allow: []   # none\n    exempt:\n    - project: a/b  # old\n    - project: acme/api\n      sharedWith: partners/x\n      until: 2099-01-01\n      reason: \"a: b # not a comment\"\n  guard: { maxRemovals: 5 }\n",
    );
  });

  it("adds the list where there is none, or to a flow list, keeping the comments", () => {
    const none = withExemption("# top\nversion: 1\ngitlab:\n  shares:\n    allow: []\n# bottom\n", ENTRY);
    expect(none).toContain("# top\n");
    expect(none).toContain("# bottom");
    expect(none).toContain("    exempt:\n      - project: acme/api\n");
    expect(withExemption("version: 1\ngitlab:\n  shares:\n    allow: []\n    exempt: []  # later\n", ENTRY)).toContain("# later");
  });

  it("refuses a policy without gitlab.shares", () => {
    expect(() => withExemption("version: 1\n", ENTRY)).toThrow(PolicyEditError);
  });
});

describe("withExemption in a %YAML 1.1 policy", () => {
  const POLICY = `%YAML 1.1
---
version: 1
gitlab:
  scope: { groups: [acme] }
  shares:
    allow:
      - group: "acme/**"
      - group: 2027-1-1
        projects: ["acme/app/**"]
`;

  it("keeps every rule as Warden reads it: the result is the old policy plus the entry", () => {
    const request = { project: "acme/app/api", group: "strangers", until: "2099-12-31", reason: "pen test" };
    const before = parsePolicy(POLICY, "before");
    const after = parsePolicy(withExemption(POLICY, exemptionEntry(request)), "after");
    expect(before.gitlab!.shares.allow.map((rule) => rule.group?.pattern)).toEqual(["acme/**", "2027-1-1"]);
    expect(after.gitlab!.shares.allow.map((rule) => rule.group?.pattern), "an allow rule changed, besides the exemption added").toEqual(["acme/**", "2027-1-1"]);
    expect(after.gitlab!.shares.exempt).toHaveLength(1);
  });

  it("splices the entry, written as YAML 1.1 reads it (a `no` quoted), leaving every other line as it was", () => {
    const text = `${POLICY}    exempt:\n      - project: acme/old   # kept\n        until: 2027-01-01\n`;
    const entry = { project: "acme/api", until: "2099-12-31", reason: "no" };
    expect(withExemption(text, entry)).toBe(`${text}      - project: acme/api\n        until: "2099-12-31"\n        reason: "no"\n`);
    expect(parsePolicy(withExemption(text, entry), "after").gitlab!.shares.exempt.at(-1)).toMatchObject({ until: "2099-12-31", reason: "no" });
  });
});
