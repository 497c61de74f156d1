/**
 * `warden exempt` / `/warden exempt`: the reason a requester writes. It is documented as
 * "one line of at most 500 characters without control characters" (docs/cli.md), and it goes raw
 * into the policy file the reviewers approve in GitLab's diff. reasonProblem (lib/policy/rules.ts)
 * refused only C0 controls and DEL: C1 controls (U+0085 NEL), line and paragraph separators
 * (U+2028/U+2029: mandatory line breaks in Unicode's line breaking, which browsers render as one) and
 * bidirectional overrides and isolates passed, although lib/jobs/escape.ts treats every one of them as
 * unsafe to show a person: it refuses those too now (lib/policy/unseen.ts). From Slack, a bidi override or a NEL survives the split into words
 * (JavaScript's \s matches neither).
 */
import { describe, expect, it } from "vitest";
import { parseExempt } from "../../functions/shared/slack/exempt-command.ts";
import { exemptionEntry, withExemption } from "../../lib/jobs/exempt/edit.ts";
import { exemptRequestProblems } from "../../lib/policy/index.ts";

const NOW = new Date("2026-03-10T12:00:00Z");
const POLICY = "version: 1\ngitlab:\n  scope: { groups: [acme] }\n  shares:\n    allow: []\n    exempt:\n      - project: acme/legacy\n        reason: migration\n";

/** Characters that reorder or break a line a reviewer reads (the set lib/jobs/escape.ts escapes beyond C0). */
const UNSAFE = [
  ["U+0085 NEL (a C1 control)", "pen test\u0085approved by security"],
  ["U+2028 LINE SEPARATOR", "pen test\u2028        until: 2026-12-31"],
  ["U+2029 PARAGRAPH SEPARATOR", "pen test\u2029approved"],
  ["U+202E RIGHT-TO-LEFT OVERRIDE", "pen test \u202e1202-21-62 litnu"],
  ["U+2067 RIGHT-TO-LEFT ISOLATE", "pen test \u2067approved\u2069"],
] as const;

describe("an exemption request's reason", () => {
  it.each(UNSAFE)("with %s is refused as not one line without control characters, before any request", (_name, reason) => {
    const problems = exemptRequestProblems({ project: "acme/api", group: "partners/x", reason }, NOW);
    expect(problems).toContainEqual(expect.objectContaining({ field: "reason", kind: "invalid" }));
  });

  it("from Slack, a reason with a bidi override or a NEL is refused by chat-ops, which otherwise writes it raw into the policy file", () => {
    for (const word of ["ok\u202elitnu", "ok\u0085approved"]) {
      const parsed = parseExempt(["acme/api", "partners/x", "reason", "pen", word], NOW);
      // What would be committed: the character itself, in the line the reviewer reads in GitLab's diff.
      if ("request" in parsed) expect(withExemption(POLICY, exemptionEntry({ ...parsed.request, group: "partners/x" }))).toContain(word);
      expect(parsed).toHaveProperty("error");
    }
  });
});
