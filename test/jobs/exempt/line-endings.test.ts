/**
 * warden exempt's edit of a policy file written on Windows (CRLF line endings) or with a byte order mark
 * (the exempt15 review): the commit must change the entry's lines alone. A file turned to LF, or its BOM
 * dropped, shows every line changed in the merge request's diff, and the one added entry is lost among
 * them for the reviewer; lines of mixed endings are a second change nobody asked for.
 */
import { describe, expect, it } from "vitest";
import { withExemption } from "../../../lib/jobs/exempt/edit.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";

const ENTRY = { project: "acme/b", reason: "new one" };
const LISTED = "version: 1\ngitlab:\n  shares:\n    allow: []\n    exempt:\n      - project: acme/a # keep\n        reason: old\n    onStray: remove\n";
const UNLISTED = "# top\nversion: 1\ngitlab:\n  shares:\n    allow: [] # none\n    onStray: remove\n";
const crlf = (text: string) => text.replace(/\n/g, "\r\n");
/** The lines of `after` not in `before`, as a diff counts them. */
const added = (before: string, after: string) => {
  const old = new Set(before.split("\n"));
  return after.split("\n").filter((line) => !old.has(line));
};

describe("withExemption in a policy with CRLF line endings or a BOM", () => {
  it("a CRLF file spliced: the entry's lines end in CRLF too, every other line as it was", () => {
    const out = withExemption(crlf(LISTED), ENTRY);
    expect(out).toBe(crlf("version: 1\ngitlab:\n  shares:\n    allow: []\n    exempt:\n      - project: acme/a # keep\n        reason: old\n      - project: acme/b\n        reason: new one\n    onStray: remove\n"));
  });

  it("a CRLF file without a final line break: the entry starts on a line of its own, after a CRLF", () => {
    const text = crlf(LISTED).replace(/\r\n$/, "").replace(/\r\n    onStray: remove$/, "");
    expect(withExemption(text, ENTRY)).toBe(`${text}\r\n      - project: acme/b\r\n        reason: new one\r\n`);
  });

  it("a CRLF file rewritten (no exempt list yet): it stays CRLF, only the new lines differ", () => {
    const out = withExemption(crlf(UNLISTED), ENTRY);
    expect(out.replace(/\r\n/g, ""), "a line ends in LF alone").not.toContain("\n");
    expect(added(crlf(UNLISTED), out)).toEqual(["    exempt:\r", "      - project: acme/b\r", "        reason: new one\r"]);
    expect(parsePolicy(out, "after").gitlab!.shares.exempt).toHaveLength(1);
  });

  it("a file with a BOM keeps it, spliced or rewritten", () => {
    expect(withExemption(`\uFEFF${LISTED}`, ENTRY).startsWith("\uFEFFversion: 1\n")).toBe(true);
    const out = withExemption(`\uFEFF${UNLISTED}`, ENTRY);
    expect(out.startsWith("\uFEFF# top\n"), JSON.stringify(out.slice(0, 20))).toBe(true);
    expect(added(`\uFEFF${UNLISTED}`, out)).toEqual(["    exempt:", "      - project: acme/b", "        reason: new one"]);
  });
});

describe("withExemption after an exemption whose last lines are comments of its own", () => {
  it("the entry goes after the comments indented under the last item, which stay with it", () => {
    const text = "version: 1\ngitlab:\n  shares:\n    exempt:\n      - project: a/b\n        reason: x\n        # until: 2027-01-01, once the audit ends (a/b's)\n    # allow below\n    onStray: remove\n";
    expect(withExemption(text, ENTRY)).toBe(
      "version: 1\ngitlab:\n  shares:\n    exempt:\n      - project: a/b\n        reason: x\n        # until: 2027-01-01, once the audit ends (a/b's)\n      - project: acme/b\n        reason: new one\n    # allow below\n    onStray: remove\n",
    );
  });
});
