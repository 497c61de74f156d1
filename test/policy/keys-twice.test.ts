/**
 * Keys written twice, found in one pass (parse.ts notAsWritten, which replaced the yaml package's check of
 * each key against every earlier one). Both once skipped a key that is no scalar node, so a key written
 * again through an alias (`&o onStray: report`, then `*o : remove`) was read as its last value, unrefused;
 * and the one-pass check first took two merge keys (`<<`, YAML 1.1), each a value of its own, for a key
 * written twice, refusing an honest 1.1 file (a review of the change's findings). Two merge keys that bring
 * in one key are refused, though (yaml-keys.ts keysMergedTwice): readers differ on which value wins.
 */
import { describe, expect, it } from "vitest";
import { refusalOf } from "../support/policies.ts";


describe("keys written twice (parse.ts notAsWritten)", () => {
  it("a key written again through an alias is refused, as the same key written out twice is", () => {
    const plain = "version: 1\ngitlab:\n  shares:\n    allow: []\n    onStray: report\n    onStray: remove\n";
    expect(refusalOf(plain)).toMatch(/Map keys must be unique/); // control
    const aliased = "version: 1\ngitlab:\n  shares:\n    allow: []\n    &o onStray: report\n    *o : remove\n";
    // Read today as onStray: remove, the value a reader of `onStray: report` does not expect.
    expect(refusalOf(aliased)).toMatch(/unique|written twice/);
  });

  it("two merge keys in a YAML 1.1 file, which the yaml package takes, are not refused as a key written twice", () => {
    const merged = "%YAML 1.1\n---\nversion: 1\ngitlab:\n  shares:\n    allow: []\n  guard:\n    <<: { maxRemovals: 5 }\n    <<: { unmatchedRules: warn }\n";
    expect(refusalOf(merged)).toBeUndefined();
  });

  // The yaml package keeps the first merge's value, Ruby's Psych and PyYAML the last's: a reviewer reads `reporter`.
  it("two merge keys that bring in the same key are refused, naming the line and the key, not read as the first one's value", () => {
    const text = [
      "%YAML 1.1",
      "---",
      "version: 1",
      "gitlab:",
      "  shares:",
      "    allow:",
      '      - &wide { group: "acme/**", maxAccess: owner }',
      '      - &strict { group: "acme/**", maxAccess: reporter }',
      '      - group: "partners/contractor-x"',
      '        projects: ["acme/mobile/**"]',
      "        <<: *wide",
      "        <<: *strict",
      "",
    ].join("\n");
    expect(refusalOf(text)).toMatch(/line 12, .*<< merges in "group", "maxAccess" again/);
    // A key a merged map merges in itself counts too; one list of maps is read alike everywhere (the first map wins).
    const guard = (lines: string) => `%YAML 1.1\n---\nversion: 1\ngitlab:\n  shares:\n    allow: []\n  guard:\n${lines}`;
    expect(refusalOf(guard("    <<: { <<: { maxRemovals: 5 } }\n    <<: { maxRemovals: 6 }\n"))).toMatch(/line 9, .*"maxRemovals"/);
    expect(refusalOf(guard("    <<: [{ maxRemovals: 5 }, { maxRemovals: 6 }]\n"))).toBeUndefined();
  });

  // Ruby's Psych (GitLab's reader) merges a << over the keys written before it (`hash.merge!`); the yaml
  // package and PyYAML keep those, as the YAML merge spec says: one file, two rules. After the <<, all agree.
  it("a key written before a << that brings it in again is refused, naming the line and the key", () => {
    const rule = (lines: string[]) =>
      ["%YAML 1.1", "---", "version: 1", "gitlab:", "  shares:", "    allow:", '      - &wide { group: "acme/**", maxAccess: owner }', ...lines, ""].join("\n");
    // Warden read group partners/contractor-x at owner; Psych reads group acme/** at owner.
    const before = ['      - group: "partners/contractor-x"', '        projects: ["acme/mobile/**"]', "        <<: *wide"];
    expect(refusalOf(rule(before))).toMatch(/line 10, .*"group" is written before a << that merges it in again/);
    const after = ["      - <<: *wide", '        group: "partners/contractor-x"', '        projects: ["acme/mobile/**"]'];
    expect(refusalOf(rule(after))).toBeUndefined();
  });
});
