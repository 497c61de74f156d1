/**
 * Keys written twice, found in one pass (parse.ts notAsWritten, which replaced the yaml package's check of
 * each key against every earlier one). Both once skipped a key that is no scalar node, so a key written
 * again through an alias (`&o onStray: report`, then `*o : remove`) was read as its last value, unrefused;
 * and the one-pass check first took two merge keys (`<<`, YAML 1.1), each a value of its own, for a key
 * written twice, refusing an honest 1.1 file (a review of the change's findings).
 */
import { describe, expect, it } from "vitest";
import { parsePolicy, PolicyError } from "../../lib/policy/index.ts";

const refused = (text: string) => {
  try {
    parsePolicy(text, "warden.yaml");
  } catch (error) {
    if (error instanceof PolicyError) return error.message;
    throw error;
  }
  return undefined;
};

describe("keys written twice (parse.ts notAsWritten)", () => {
  it("a key written again through an alias is refused, as the same key written out twice is", () => {
    const plain = "version: 1\ngitlab:\n  shares:\n    allow: []\n    onStray: report\n    onStray: remove\n";
    expect(refused(plain)).toMatch(/Map keys must be unique/); // control
    const aliased = "version: 1\ngitlab:\n  shares:\n    allow: []\n    &o onStray: report\n    *o : remove\n";
    // Read today as onStray: remove, the value a reader of `onStray: report` does not expect.
    expect(refused(aliased)).toMatch(/unique|written twice/);
  });

  it("two merge keys in a YAML 1.1 file, which the yaml package takes, are not refused as a key written twice", () => {
    const merged = "%YAML 1.1\n---\nversion: 1\ngitlab:\n  shares:\n    allow: []\n  guard:\n    <<: { maxRemovals: 5 }\n    <<: { unmatchedRules: warn }\n";
    expect(refused(merged)).toBeUndefined();
  });
});
