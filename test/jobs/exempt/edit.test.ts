/** warden exempt's policy edit: the entry spliced in after the last exemption, or the document rewritten, never anything else changed. */
import { describe, expect, it } from "vitest";
import { PolicyEditError, withExemption } from "../../../lib/jobs/exempt/edit.ts";

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
