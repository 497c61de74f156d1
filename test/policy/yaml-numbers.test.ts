/**
 * "A value is judged as the file writes it" (docs/policy.md), yet a number YAML reads in another base became
 * another id or count without a word: a notices project `0123` (YAML 1.2: decimal 123, a leading zero
 * dropped; `0x7B` hex) was project 123, and under `%YAML 1.1` `010` was the octal 8 and `1:30` the
 * sexagesimal 90 (the second inputs review's finding). A number not written in decimal is refused now,
 * naming the line and what YAML reads it as.
 */
import { describe, expect, it } from "vitest";
import { parsePolicy, PolicyError } from "../../lib/policy/index.ts";

const notices = (project: string, authors = "[]") => `version: 1
gitlab:
  scope: { groups: [acme] }
  shares:
    allow:
      - group: "acme/**"
    onStray: notify
    grace: 7d
    notices: { project: ${project}, authors: ${authors} }
`;

/** The value parsePolicy gives `pick`, or "refused" when it refuses the policy. */
function read<T>(text: string, pick: (p: ReturnType<typeof parsePolicy>) => T): T | "refused" {
  try {
    return pick(parsePolicy(text, "warden.yaml"));
  } catch (err) {
    if (err instanceof PolicyError) return "refused";
    throw err;
  }
}

describe("a number YAML reads in another base is refused, not turned into another id or count", () => {
  it.each(["0123", "0x7B", "0o173"])("notices.project %s is refused, not read as project 123", (written) => {
    expect(read(notices(written), (p) => p.gitlab?.shares.notices?.project)).toBe("refused");
  });

  it("says which line, what YAML reads, and how to write it; a decimal number, a quoted name and a float are read as written", () => {
    expect(() => parsePolicy(notices("0123"), "warden.yaml")).toThrow("line 9, column 25: 0123 is read by YAML as the number 123: write it in decimal, without a leading zero (or quote it, if it is a name)");
    expect(read(notices("123"), (p) => p.gitlab?.shares.notices?.project)).toBe("123");
    expect(read(notices('"0123"'), (p) => p.gitlab?.shares.notices?.project)).toBe("refused");
    expect(read(notices("security/access-notices", "[1, 42]"), (p) => p.gitlab?.shares.notices?.authors)).toEqual([1, 42]);
  });

  it("under %YAML 1.1, notices.authors [010] is refused, not read as user 8 (whose issues would then count as Warden's notices and closes)", () => {
    expect(read(`%YAML 1.1\n---\n${notices("security/access-notices", "[010]")}`, (p) => p.gitlab?.shares.notices?.authors)).toBe("refused");
  });

  it("under %YAML 1.1, guard.maxRemovals 1:30 is refused (as YAML 1.2 refuses it), not read as 90", () => {
    const text = `%YAML 1.1\n---\nversion: 1\ngitlab:\n  shares:\n    allow: []\n  guard:\n    maxRemovals: 1:30\n`;
    expect(read(text, (p) => p.gitlab?.guard.maxRemovals)).toBe("refused");
  });
});
