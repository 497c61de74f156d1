/**
 * The report as people read it (text: the tally per invited group, the closing line, wrapping; Markdown:
 * escaping of hostile names) and as machines keep it (the envelope, and the JSON Schema's strictness).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { makeReport } from "../../../lib/jobs/envelope.ts";
import type { EnforceReport, RemoveGroupShareAction, RemoveShareAction, ShareRemoval, WorkflowsReport } from "../../../lib/jobs/index.ts";
import { escapeMarkdown, renderMarkdown, renderSlack, renderText } from "../../../lib/jobs/render/index.ts";
import { wrapLines } from "../../../lib/jobs/render/wrap.ts";
import { mergeRequestDescription } from "../../../lib/jobs/exempt/request-text.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { standardPolicy } from "../../support/policies.ts";
import { runRecord, validReport } from "../../support/report.ts";

const stats = { requests: 12, retries: 1, rateLimited: 0, pages: 3, durationMs: 1500 };

function projectShare(i: number, group: string, status: ShareRemoval["status"] = "planned"): RemoveShareAction {
  return { type: "remove-share", kind: "project", projectId: i, project: `acme/p${i}`, groupId: 90, group, accessLevel: 30, accessLevelName: "developer", expiresAt: null, addedBy: { name: "Jane Doe", username: "jane", at: "2026-11-20T09:30:00.000Z", eventId: 7 }, reason: "no allow rule matches", status };
}

function groupShare(i: number, group: string, status: ShareRemoval["status"] = "planned"): RemoveGroupShareAction {
  return { type: "remove-group-share", kind: "group", sharedGroupId: 500 + i, sharedGroup: `acme/g${i}`, groupId: 91, group, accessLevel: 40, accessLevelName: "maintainer", expiresAt: "2031-01-01", addedBy: null, attribution: "not visible", reason: "no allow rule matches", status };
}

function enforceReport(dryRun: boolean, actions: ShareRemoval[], summary: Partial<EnforceReport["summary"]> = {}): EnforceReport {
  const count = (s: string) => actions.filter((a) => a.status === s).length;
  return {
    ...runRecord("enforce", dryRun),
    summary: {
      projects: 300, shares: 400, groups: 20, groupShares: 30, groupReads: 20, allowed: 300, exempt: 10, strays: actions.length,
      removed: count("done"), alreadyGone: count("already-gone"), skipped: count("skipped"), failed: count("failed"), maxRemovals: 1000, guard: "ok", complete: true, matched: null, ...summary,
    },
    actions,
    stats,
    warnings: [],
  };
}

/** 3 shares with partners/qa, 2 with partners/contractor-x (one of them a group share), 1 with vendor. */
const MIXED = [projectShare(1, "partners/qa"), projectShare(2, "partners/contractor-x"), projectShare(3, "partners/qa"), groupShare(4, "partners/contractor-x"), projectShare(5, "vendor"), projectShare(6, "partners/qa")];

describe("the text report", () => {
  it("tallies the strays per invited group, most first, before the per-project list", () => {
    const text = renderText(validReport(enforceReport(true, MIXED)), { color: false });
    expect(text).toContain("\n\nStray shares by invited group:\n  partners/qa            3\n  partners/contractor-x  2\n  vendor                 1\n\nacme/p1 (#1)\n");
    expect(text.indexOf("Stray shares by invited group")).toBeLessThan(text.indexOf("acme/p1 (#1)"));
  });

  it("lays out a list longer than a call's arguments may be (an access review of every share in a large scope)", () => {
    const text = renderText(enforceReport(true, Array.from({ length: 200_000 }, (_, i) => projectShare(i, "partners/qa"))), { color: false });
    expect(text).toContain("acme/p199999 (#199999)");
  });

  it("names the policy it was judged by (source and short SHA-256) and the GitLab origin", () => {
    const report = enforceReport(true, MIXED);
    report.policy = { source: "gitlab", project: "acme/policies", path: "warden.yaml", ref: "main", commitId: "89abcdef0123456789", sha256: "f".repeat(64) };
    expect(renderText(report, { color: false }).split("\n")[1]).toBe("policy acme/policies:warden.yaml@main (commit 89abcdef, sha256 ffffffff), GitLab https://gitlab.example.com");
    expect(renderText(enforceReport(true, []), { color: false }).split("\n")[1]).toBe("policy warden.yaml (sha256 00000000), GitLab https://gitlab.example.com");
  });

  it.each([
    ["a dry run with strays", enforceReport(true, MIXED), "Plan: 6 shares to remove (5 project, 1 group). Apply with: warden enforce --apply (or warden apply PLAN, for a plan saved with --out PLAN)"],
    ["an applied run", enforceReport(false, [...MIXED.slice(0, 3).map((a) => ({ ...a, status: "done" as const })), { ...MIXED[3]!, status: "already-gone" }, { ...MIXED[4]!, status: "skipped" }, { ...MIXED[5]!, status: "failed" }]), "Applied: 3 removed, 1 already gone, 1 skipped, 1 failed."],
    ["a run in policy", enforceReport(true, []), "No changes: every share in scope is allowed or exempt."],
    ["an applying run in policy", enforceReport(false, []), "No changes: every share in scope is allowed or exempt."],
    ["a dry run over the guard", enforceReport(true, MIXED, { guard: "tripped", maxRemovals: 2 }), "Plan: 6 shares to remove (5 project, 1 group). An applying run would change nothing: the guard tripped (see the warnings)."],
    ["an applying run over the guard", enforceReport(false, MIXED, { guard: "tripped", maxRemovals: 2 }), "Applied: nothing, the guard tripped (see the warnings)."],
    ["a stopped examination", enforceReport(true, MIXED.slice(0, 1), { complete: false }), "Plan (incomplete: the run stopped early, see the warnings): 1 share to remove (1 project, 0 group)."],
    ["an apply stopped midway", enforceReport(false, [{ ...MIXED[0]!, status: "done" }, MIXED[1]!], { complete: false }), "Applied: 1 removed, 0 already gone, 0 skipped, 0 failed; 1 not begun (see the warnings)."],
  ])("ends %s with its closing line", (_name, report, closing) => {
    expect(renderText(validReport(report), { color: false }).endsWith(`\n\n${closing}`)).toBe(true);
  });

  it("workflows end in their own words", () => {
    const report: WorkflowsReport = {
      ...runRecord("workflows", true),
      summary: { apiGeneration: "not checked", workflows: 9, active: 5, archived: 1, changes: 2, reported: 1, applied: 0, failed: 0, maxChanges: 10, guard: "ok", complete: true },
      actions: [
        { type: "deactivate", workflowId: "w1", name: "A", reason: "unlisted", status: "planned" },
        { type: "activate", workflowId: "w2", name: "B", reason: "listed", status: "planned" },
        { type: "deactivate", workflowId: "w3", name: "C", reason: "unlisted", status: "reported" },
      ],
      stats,
      warnings: [],
    };
    expect(renderText(validReport(report), { color: false })).toMatch(/\n\nPlan: 2 changes \(1 to activate, 1 to deactivate\)\. Apply with: warden workflows --apply$/);
  });

  it("wraps every line to the width given, under its own indent, and nothing without one", () => {
    const report = enforceReport(true, MIXED);
    report.warnings = ["the token (bot) is not an administrator or auditor: GitLab lists only the shares with groups it can see, so shares with other groups were neither checked nor removed"];
    const whole = renderText(report, { color: false });
    const wrapped = renderText(report, { color: false, width: 60 });
    expect(whole.split("\n").some((l) => l.length > 100)).toBe(true);
    expect(wrapped.split("\n").every((l) => l.length <= 60)).toBe(true);
    // Only spaces changed: the words are the same, in the same order.
    expect(wrapped.split(/\s+/)).toEqual(whole.split(/\s+/));
    expect(wrapped).toContain("\nwarning: the token (bot) is not an administrator or auditor:\n    GitLab lists");
    // A colour sequence takes no room on the screen.
    expect(renderText(report, { color: true, width: 60 }).split("\n").length).toBe(wrapped.split("\n").length);
  });

  it("leaves a word longer than the width whole", () => {
    expect(wrapLines(`  ${"x".repeat(50)} y`, 30)).toBe(`  ${"x".repeat(50)}\n      y`);
    expect(wrapLines("a b", undefined)).toBe("a b");
  });

  it("Slack names the policy too", () => {
    expect(renderSlack(enforceReport(true, MIXED)).text).toContain("policy warden.yaml (sha256 00000000), GitLab https://gitlab.example.com");
  });
});

/** Names a GitLab group or project could have, each meant to break out of its cell or ping someone. */
const HOSTILE = [
  "a | b || c",
  "line\nbreak",
  "> a quote",
  "# heading",
  "- list item",
  "1. numbered",
  "<img src=x onerror=alert(1)>",
  "<details open>",
  "@all please look",
  "cc @root and @acme/admins",
  "see #1 and !2 and %milestone and ~label and &3 and $4",
  "acme/project#1",
  "`code` and ``two``",
  "[link](https://evil.example) ![img](x)",
  "*em* _em_ **strong** ~~strike~~",
  "back\\slash \\| \\@all",
  "&amp; &#64;all",
  "\u202eevil\x1b[2K",
];

/** What a CommonMark renderer shows for the escaped text: backslash escapes resolved, joiners gone. */
const shown = (markdown: string) => markdown.replace(/\\([!-/:-@[-`{-~])/g, "$1").replaceAll("\u200d", "");
/** Characters not escaped by a backslash (one preceded by an even run of backslashes). */
const unescaped = (markdown: string, char: string) => [...markdown.matchAll(new RegExp(`(?<!\\\\)(\\\\\\\\)*${char.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "g"))].length;

describe("Markdown", () => {
  it("makes no link of a URL in text that is not Warden's own: an adder's display name, a server's error in a warning, an exemption's reason", () => {
    // escapeMarkdown writes https\:\/\/…, which GitLab renders back to https://… and links: a phishing link in Warden's own table.
    const linkable = escapeMarkdown("https://evil.example");
    const named = { ...projectShare(1, "outside"), addedBy: { name: "IT Support https://evil.example/sso-login", username: "jane", at: "2026-11-20T09:30:00.000Z", eventId: 7 } };
    const md = renderMarkdown(validReport(enforceReport(true, [named])));
    const warned = renderMarkdown(validReport({ ...enforceReport(true, []), warnings: ["acme/app could not be read (GitLab said: sign in at https://evil.example/sso)"] }));
    const request = mergeRequestDescription({ project: "acme/app", group: "partners", reason: "approved, see https://evil.example/approve" } as never, { path: "warden.yaml", target: "main" }, "mallory");
    expect([md, warned, request].filter((text) => text.includes(linkable))).toEqual([]);
    expect(md).toContain("IT Support https\\:\u200d\\/\\/evil");
  });

  it.each(HOSTILE)("escapeMarkdown makes %j literal text", (name) => {
    const md = escapeMarkdown(name);
    expect(md).not.toContain("\n");
    for (const char of ["|", "<", ">", "[", "`", "*", "_", "~", "&", "#", "!", "@", "$", "%"]) expect(unescaped(md, char), char).toBe(0);
    // No mention or reference pattern survives: each prefix is followed by the joiner, not a name.
    expect(md).not.toMatch(/[@#!%~&$][\w/-]/);
    // Nothing is lost: a reader sees the name (with controls shown as escapes).
    expect(shown(md)).toBe(name.replace("\n", "\\x0a").replace("\u202e", "\\u202e").replace("\x1b", "\\x1b"));
  });

  it("a report with hostile names keeps its tables whole: every row has its columns, none starts a block", () => {
    const report = enforceReport(true, HOSTILE.map((name, i) => ({ ...projectShare(i, name), project: name, reason: name, addedBy: { name, username: name, at: "2026-11-20T09:30:00.000Z", eventId: i } })));
    report.warnings = HOSTILE.map((name) => `warning about ${name}`);
    const md = renderMarkdown(validReport(report));
    const rows = md.split("\n").filter((l) => l.startsWith("|"));
    const header = (row: string) => unescaped(row, "|");
    const tally = rows.filter((r) => header(r) === 3);
    const list = rows.filter((r) => header(r) === 9);
    expect(tally).toHaveLength(HOSTILE.length + 2);
    expect(list).toHaveLength(HOSTILE.length + 2);
    expect(tally.length + list.length).toBe(rows.length);
    // Outside the tables, every line is Warden's own or starts with Warden's own words.
    const others = md.split("\n").filter((l) => l !== "" && !l.startsWith("|"));
    expect(others.filter((l) => !/^(### Warden enforce|\*\*Plan\\: |policy |300 projects|12 requests|- ⚠️ warning about |<details><summary>All 18 stray shares<\/summary>$|<\/details>$)/.test(l))).toEqual([]);
    // The only HTML is Warden's own: <details><summary>…</summary> and </details>.
    expect(unescaped(md, "<")).toBe(4);
  });

  it("cuts the list where a GitLab comment (at most 1,000,000 characters) would end, saying how many are left out", () => {
    const many = Array.from({ length: 10_000 }, (_, i) => projectShare(i, `partners/contractor-${i % 40}`));
    const md = renderMarkdown(enforceReport(true, many));
    expect(md.length).toBeLessThan(1_000_000);
    const listed = md.split("\n").filter((l) => l.startsWith("| acme")).length;
    expect(listed).toBeGreaterThan(5_000);
    expect(md).toContain(`\n\n…and ${10_000 - listed} more: a comment holds no more (the JSON report, --format json, has them all).\n\n</details>`);
  });

  it("has the summary, the per-group table, and the full list collapsed", () => {
    const md = renderMarkdown(enforceReport(true, MIXED));
    expect(md.startsWith("### Warden enforce \\(dry run\\)\\: 6 stray shares\n\n**Plan\\: 6 shares to remove \\(5 project\\, 1 group\\)\\. Apply with\\: warden enforce \\-\\-apply")).toBe(true);
    expect(md).toContain("| Stray shares by invited group | Shares |\n| --- | ---: |\n| partners\\/qa | 3 |\n| partners\\/contractor\\-x | 2 |\n| vendor | 1 |\n");
    expect(md).toContain("<details><summary>All 6 stray shares</summary>\n\n| Project or group | Status | Share | Invited group | Level | Expiry | Added by | Reason |\n");
    expect(md).toContain("| acme\\/g4 \\(group \\#\u200d504\\) | planned | group share | partners\\/contractor\\-x | maintainer | until 2031\\-01\\-01 | added by \\? \\(not visible\\) | no allow rule matches |");
    expect(md.trimEnd().endsWith("</details>")).toBe(true);
  });
});

describe("the report's envelope and schema", () => {
  const policy = parsePolicy(standardPolicy(), "warden.yaml");
  const made = makeReport(
    { job: "enforce", dryRun: true, policy, gitlab: { instanceUrl: "https://gitlab.example.com" }, startedAt: Date.parse("2026-06-01T00:00:00Z"), finishedAt: Date.parse("2026-06-01T00:00:02Z") },
    { summary: enforceReport(true, []).summary, actions: [{ ...projectShare(1, "vendor"), accessLevelName: undefined, accessLevel: 15 }], stats, warnings: [] },
  );

  it("names Warden's version, the policy, the GitLab instance and the times, and each access level beside its number", () => {
    const { version } = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string };
    expect(made).toMatchObject({ schemaVersion: 1, job: "enforce", version, gitlabUrl: "https://gitlab.example.com", startedAt: "2026-06-01T00:00:00.000Z", finishedAt: "2026-06-01T00:00:02.000Z" });
    expect(made.policy).toEqual({ source: "file", path: "warden.yaml", sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(Object.keys(made.actions[0]!).slice(6, 8)).toEqual(["accessLevel", "accessLevelName"]);
    expect(made.actions[0]!.accessLevelName).toBe("planner");
    validReport(made);
  });

  it.each([
    ["a field missing", (r: Record<string, unknown>) => delete r["finishedAt"]],
    ["a field misspelt", (r: Record<string, unknown>) => (r["finishedat"] = r["finishedAt"], delete r["finishedAt"])],
    ["an unknown field", (r: Record<string, unknown>) => (r["extra"] = 1)],
    ["a path in gitlabUrl", (r: Record<string, unknown>) => (r["gitlabUrl"] = "https://gitlab.example.com/api/v4")],
    ["a summary field misspelt", (r: { summary: Record<string, unknown> }) => (r.summary["stray"] = r.summary["strays"], delete r.summary["strays"])],
    ["an action field misspelt", (r: { actions: Record<string, unknown>[] }) => (r.actions[0]!["accesslevelName"] = "x", delete r.actions[0]!["accessLevelName"])],
    ["a group share's field on a project share", (r: { actions: Record<string, unknown>[] }) => (r.actions[0]!["sharedGroup"] = "acme")],
    ["a policy without its sha256", (r: { policy: Record<string, unknown> }) => delete r.policy["sha256"]],
    ["a date that is no date", (r: Record<string, unknown>) => (r["startedAt"] = "yesterday")],
  ])("fails validation with %s", (_name, change) => {
    const report = structuredClone(made) as never;
    (change as (r: never) => unknown)(report);
    expect(() => validReport(report)).toThrow(/does not fit docs\/report\.schema\.json/);
  });

  it("a workflows report has no gitlabUrl, a restore written before restores read a policy has none", () => {
    const workflows = { ...runRecord("workflows", true), summary: { apiGeneration: 2, workflows: 0, active: 0, archived: 0, changes: 0, reported: 0, applied: 0, failed: 0, maxChanges: 1, guard: "ok", complete: true }, actions: [], stats, warnings: [] };
    validReport(workflows);
    expect(() => validReport({ ...workflows, gitlabUrl: "https://gitlab.example.com" })).toThrow(/does not fit/);
    validReport({ ...runRecord("restore", true), policy: null, summary: { from: "an enforce report", restores: 0, restored: 0, alreadyPresent: 0, skipped: 0, failed: 0, notAllowed: 0, includeStray: false, maxRestores: 100, guard: "ok", complete: true }, actions: [], stats, warnings: [] });
  });
});
