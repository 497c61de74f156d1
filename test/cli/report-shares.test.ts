/**
 * The access review, `warden report shares`, against the simulator's organisation with its share
 * history (audit events): every share in scope listed with its verdict and rule, who added it where
 * GitLab recorded it, only reads sent, --target narrowing it, JSON in the schema, and CSV (parsed back
 * by RFC 4180), Markdown and text in which names a group's owner chose stay inert.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EnforceReport } from "../../lib/jobs/index.ts";
import { escapeControls } from "../../lib/jobs/render/index.ts";
import type { ReviewedShare, ReviewReport } from "../../lib/jobs/review/summary.ts";
import { generateOrganisation, startGitLabSim, type GitLabDataset, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { groupSharesPolicy } from "../support/policies.ts";
import { parseCsv } from "../support/csv.ts";
import { reportJson } from "../support/report.ts";

/** Invited groups whose names try to run in a spreadsheet, break a CSV row, or render in Markdown. */
const HOSTILE = ["=cmd|' /C calc'!A0", "@SUM(1)", "-2+3", '+a,b "q"\r\nline two', "<img src=x onerror=alert(1)> **bold** | [x](http://e.example)", "\tTAB"];
/** A display name (an audit event's author_name, the CSV's added_by): a hyperlink to an attacker's site, a screen clear, a right-to-left override. */
const DISPLAY_NAME = "\x1b]8;;https://evil.example/login\x07Security Team\x1b]8;;\x07 \x1b[2J \u202eevil";
/** Raw characters no terminal output may carry: C0 controls but the CSV's CRLF, DEL, C1, bidi controls. */
const RAW_UNSAFE = /[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

let sim: GitLabSim;
let env: Record<string, string>;

function world(): GitLabDataset {
  const dataset = generateOrganisation({ projects: 150, seed: 11, groupShares: true, shareHistory: true }).dataset;
  for (const event of dataset.auditEvents!.filter((_, i) => i % 2 === 0)) event.details["author_name"] = DISPLAY_NAME;
  const acme = dataset.groups.find((g) => g.full_path === "acme")!;
  const id = Math.max(...dataset.groups.map((g) => g.id), ...dataset.projects.map((p) => p.id)) + 1;
  const groups = HOSTILE.map((path, i) => ({ id: id + i, name: path, path, full_path: path, parent_id: null, visibility: "public" as const, shared_with_groups: [] }));
  dataset.groups.push(...groups);
  dataset.projects.push({
    id: id + HOSTILE.length, name: "=HYPERLINK(\"e.example\")", path: "=HYPERLINK(\"e.example\")", path_with_namespace: 'acme/=HYPERLINK("e.example")', namespace_id: acme.id,
    shared_with_groups: groups.map((g) => ({ group_id: g.id, group_name: g.name, group_full_path: g.full_path, group_access_level: 30, expires_at: null })),
    default_branch: "main", branches: ["main"], archived: false, previous_paths: [],
  });
  return dataset;
}

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: world() });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(groupSharesPolicy()) };
});
afterAll(() => sim.close());

const subject = (a: { kind: string; project?: string; sharedGroup?: string }) => (a.kind === "project" ? a.project! : a.sharedGroup!);
const key = (a: ReviewedShare | EnforceReport["actions"][number]) => `${a.kind} ${subject(a as never)} ${a.groupId}`;
const inScope = (path: string) => path === "acme" || path.startsWith("acme/");

describe.sequential("warden report shares", () => {
  let report: ReviewReport;

  it("--help describes it; a report other than shares is a usage error before any request", async () => {
    const help = await warden(["report", "--help"], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: warden report shares \[--target PATH\]\.\.\. .*--format csv\|json\|markdown\|text/);
    sim.resetCounters();
    const wrong = await warden(["report", "members"], env);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('warden report takes one report name, shares (warden report shares [options]); got "members"');
    expect(sim.counters.requests).toBe(0);
    const format = await warden(["enforce", "--format", "csv"], env);
    expect(format.code).toBe(1);
    expect(format.stderr).toContain("--format takes text, markdown, json");
  });

  it("lists every share in scope, allowed, exempt and stray, with the rule or reason enforce judges by; sends only GETs; exits 0", async () => {
    sim.resetCounters();
    const run = await warden(["report", "shares", "--json"], env);
    expect(run.code).toBe(0);
    report = reportJson<ReviewReport>(run.stdout);
    expect(Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "))).toEqual([]);
    // The stats state the whole cost, attribution's part apart.
    expect(report.stats.requests).toBe(sim.counters.requests);
    const audit = Object.entries(sim.counters.byRoute).filter(([route]) => route.includes("audit_events")).reduce((n, [, c]) => n + c, 0);
    expect(report.stats.auditRequests).toBe(audit);
    // Who the token acts as is asked once (enforce's examination asks), not again before attribution.
    expect([sim.counters.byRoute["GET /user"], sim.counters.byRoute["GET /application/statistics"]]).toEqual([1, 1]);

    const dataset = sim.dataset;
    const expected = [
      ...dataset.projects.filter((p) => inScope(p.path_with_namespace)).flatMap((p) => p.shared_with_groups.map((s) => `project ${p.path_with_namespace} ${s.group_id}`)),
      ...dataset.groups.filter((g) => inScope(g.full_path)).flatMap((g) => g.shared_with_groups.map((s) => `group ${g.full_path} ${s.group_id}`)),
    ];
    expect(report.actions.map(key).sort()).toEqual(expected.sort());
    const { summary: s } = report;
    expect(s).toMatchObject({ listed: expected.length, complete: true, attributionDays: 90 });
    expect(s.allowed + s.exempt + s.strays).toBe(s.listed);
    expect(s.allowed * s.exempt * s.strays).toBeGreaterThan(0);
    for (const a of report.actions) {
      if (a.status === "allowed") expect(a.rule).toMatch(/^allow\[\d+\] /);
      if (a.status === "exempt") expect(a.rule).toMatch(/^exempt\[\d+\] acme\/legacy\/\*\*/);
    }
    // The strays and their reasons are enforce's own, share for share.
    const enforced = JSON.parse((await warden(["enforce", "--json"], env)).stdout) as EnforceReport;
    expect(report.actions.filter((a) => a.status === "stray").map((a) => [key(a), a.rule])).toEqual(enforced.actions.map((a) => [key(a), a.reason]));
  });

  it("names who added each share where GitLab recorded it, allowed shares included, and says why not elsewhere", () => {
    const events = new Map(sim.dataset.auditEvents!.map((e) => [e.id, e]));
    const attributed = report.actions.filter((a) => a.addedBy);
    expect(report.summary.attributed).toBe(attributed.length);
    expect(new Set(attributed.map((a) => a.status))).toEqual(new Set(["allowed", "exempt", "stray"]));
    for (const a of attributed) {
      const event = events.get(a.addedBy!.eventId)!;
      expect(event.details["author_name"]).toBe(a.addedBy!.name);
      expect(String(event.details["target_id"])).toBe(String(a.kind === "project" ? a.projectId : a.groupId));
      expect(event.entity_id).toBe(a.kind === "project" ? a.groupId : a.sharedGroupId);
    }
    // Made after the history was generated: no event records them.
    const hostile = report.actions.filter((a) => HOSTILE.includes(a.group));
    expect(hostile.map((a) => [a.status, a.addedBy, a.attribution])).toEqual(HOSTILE.map(() => ["stray", null, "not recorded"]));
    expect(report.actions.some((a) => a.addedBy === null && a.status === "allowed")).toBe(true);
  });

  it("CSV: RFC 4180 with CRLF, one record per share, hostile names inert and round-tripping", async () => {
    const run = await warden(["report", "shares", "--format", "csv"], env);
    expect(run.code).toBe(0);
    const [header, ...rows] = parseCsv(run.stdout);
    expect(header).toEqual(["kind", "subject", "subject_id", "invited_group", "invited_group_id", "access_level", "access_level_name", "expires_at", "status", "rule_or_reason", "added_by", "added_by_username", "added_at", "attribution", "notice", "notice_iid", "notice_url", "notice_due_date", "notice_days_left"]);
    expect(rows.length).toBe(report.actions.length);
    const byKey = new Map(rows.map((r) => [`${r[0]} ${r[1]} ${r[4]}`, r]));
    for (const a of report.actions) {
      const row = byKey.get(`${a.kind} ${subject(a)} ${a.groupId}`)!;
      expect(row[8]).toBe(a.status);
      expect(row[10]).toBe(escapeControls(a.addedBy?.name ?? ""));
    }
    // No cell a spreadsheet would run: each that starts as a formula does is prefixed.
    for (const cell of rows.flat()) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
    // Each hostile name comes back as the terminal shows it (controls escaped, so one line), prefixed
    // where it would start a formula; the quotes inside one round-trip.
    const hostileRows = rows.filter((r) => r[1] === 'acme/=HYPERLINK("e.example")');
    expect(hostileRows.map((r) => r[3]).sort()).toEqual(HOSTILE.map((n) => escapeControls(n)).map((n) => (/^[=+\-@]/.test(n) ? `'${n}` : n)).sort());
  });

  it("CSV on a terminal: no raw ESC, C1 or bidi control from a display name, as in the text report", async () => {
    const [csv, text] = await Promise.all([warden(["report", "shares", "--format", "csv"], env), warden(["report", "shares"], env)]);
    expect(csv.code).toBe(0);
    expect(text.code).toBe(0);
    for (const run of [csv, text]) {
      expect(run.stdout).toContain("\\x1b]8;;https://evil.example/login\\x07Security Team");
      expect(run.stdout).not.toMatch(RAW_UNSAFE);
    }
  });

  it("Markdown and text: names from GitLab are escaped, nothing renders or moves the cursor", async () => {
    const [markdown, text] = await Promise.all([warden(["report", "shares", "--format", "markdown"], env), warden(["report", "shares"], env)]);
    expect(markdown.code).toBe(0);
    expect(markdown.stdout).not.toMatch(/(?<!\\)<img/);
    expect(markdown.stdout).not.toContain("**bold**");
    // A joiner after the colon of "://", in every cell: GitLab would link the URL whatever its escapes.
    expect(markdown.stdout).toContain("\\<img src\\=x onerror\\=alert\\(1\\)\\> \\*\\*bold\\*\\* \\| \\[x\\]\\(http\\:\u200d\\/\\/e\\.example\\)");
    expect(markdown.stdout).not.toContain("http\\:\\/\\/e");
    expect(markdown.stdout).toContain("\\@\u200dSUM\\(1\\)");
    expect(text.code).toBe(0);
    expect(text.stdout).not.toMatch(/[\r\t]/);
    expect(text.stdout).toContain('+a,b "q"\\x0d\\x0aline two');
    expect(text.stdout).toContain("Access review: ");
    expect(text.stdout).toMatch(/allow\[0\] acme\/\*\*/);
  });

  it("--target narrows the review to the target's shares", async () => {
    const run = await warden(["report", "shares", "--json", "--target", "acme/mobile"], env);
    expect(run.code).toBe(0);
    const narrowed = reportJson<ReviewReport>(run.stdout);
    const within = (a: ReviewedShare) => subject(a) === "acme/mobile" || subject(a).startsWith("acme/mobile/");
    expect(narrowed.actions.length).toBeGreaterThan(0);
    expect(narrowed.actions.map(({ addedBy: _, attribution: __, ...a }) => a)).toEqual(report.actions.filter(within).map(({ addedBy: _, attribution: __, ...a }) => a));
    expect(narrowed.warnings[0]).toMatch(/^targeted run: only acme\/mobile/);
  });
});
