import { describe, expect, it } from "vitest";
import { renderSlack, renderText, type EnforceReport, type PipelineReport } from "../../../lib/jobs/index.ts";
import type { RemoveShareAction } from "../../../lib/jobs/index.ts";
import { escapeControls, jsonForTerminal, renderMarkdown, slackLink } from "../../../lib/jobs/render/index.ts";
import { runRecord } from "../../support/report.ts";

/** Names a GitLab or n8n server could send that would act on a terminal or reorder its text. */
const HOSTILE = ["\x1b[2K\rok: all shares in policy", "a\nok: forged", "rev \u202egnp.exe\u202c", "iso \u2066x\u2069", "csi \x9b31m", "del \x7f"];
const RAW_UNSAFE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

function hostileReport(): EnforceReport {
  const report = enforceReport(false, HOSTILE.map(() => "failed"));
  report.actions.forEach((a, i) => Object.assign(a, { project: HOSTILE[i], group: HOSTILE[i], error: HOSTILE[i] }));
  report.warnings = [`stopped: ${HOSTILE[0]}`];
  return report;
}

const stats = { requests: 12, retries: 1, rateLimited: 0, pages: 3, durationMs: 1500 };

function enforceReport(dryRun: boolean, statuses: string[]): EnforceReport {
  return {
    ...runRecord("enforce", dryRun),
    summary: { projects: 300, shares: 400, groups: 0, groupShares: 0, groupReads: 0, allowed: 350, exempt: 10, strays: statuses.length, removed: 0, alreadyGone: 0, skipped: 0, failed: 0, maxRemovals: 100, guard: "ok", complete: true, matched: null },
    actions: statuses.map((status, i): RemoveShareAction => ({
      type: "remove-share",
      kind: "project",
      expiresAt: null,
      projectId: i,
      project: `acme/p${i % 3}`,
      groupId: 90 + i,
      group: `partners/<agency>&${i}`,
      accessLevel: 30,
      addedBy: { name: "Jane Doe", username: "jane", at: "2026-11-20T09:30:00.000Z", eventId: 7 },
      reason: "no allow rule matches",
      status: status as RemoveShareAction["status"],
    })),
    stats,
    warnings: ["the token is not an administrator"],
  };
}

function pipelineReport(status: PipelineReport["actions"][number]["status"]): PipelineReport {
  return {
    ...runRecord("pipeline", false),
    summary: status === "refused" ? { allowed: false } : { allowed: true, rule: "allow[0]" },
    actions: [{ type: "create-pipeline", project: "acme/platform/api", ref: "main", variables: [], status, ...(status === "refused" ? { reason: "ref not allowed" } : { webUrl: "https://g/x/-/pipelines/1" }) }],
    stats,
    warnings: [],
  };
}

describe("Slack rendering", () => {
  it.each([
    ["a dry run", enforceReport(true, ["planned"]), "ephemeral"],
    ["applied removals", enforceReport(false, ["done", "failed"]), "in_channel"],
    ["an apply that changed nothing (all failed)", enforceReport(false, ["failed"]), "ephemeral"],
    ["a started pipeline", pipelineReport("created"), "in_channel"],
    ["a refused pipeline", pipelineReport("refused"), "ephemeral"],
  ] as const)("%s goes %s", (_name, report, responseType) => {
    expect(renderSlack(report).response_type).toBe(responseType);
  });

  it("keeps within Slack's 50 blocks with a text fallback, says how many were left out, and escapes mrkdwn", () => {
    const message = renderSlack(enforceReport(true, Array(120).fill("planned")));
    expect(message.blocks.length).toBeLessThanOrEqual(50);
    expect(message.text).toMatch(/^Warden enforce \(dry run\): 120 stray shares\. 300 projects/);
    expect(JSON.stringify(message.blocks)).toContain("…and 80 more");
    expect(JSON.stringify(message.blocks)).toContain("partners/&lt;agency&gt;&amp;1");
    expect(JSON.stringify(message.blocks)).toContain(":warning: the token is not an administrator");
  });


  it("keeps every section within Slack's 3,000 characters, the summary too (a ref may be 4,096 bytes)", () => {
    const long = pipelineReport("refused");
    const ref = `release/${"x".repeat(4_000)}`;
    Object.assign(long.actions[0]!, { ref, reason: `branch ${ref} of project acme/platform/api is not protected` });
    const sections = renderSlack(long).blocks.filter((b) => (b as { type: string }).type === "section") as { text: { text: string } }[];
    expect(sections.length).toBeGreaterThan(0);
    for (const section of sections) expect(section.text.text.length).toBeLessThanOrEqual(3_000);
  });

  it("a section cut to Slack's 3,000 characters ends on a whole character and a whole entity, never half of one", () => {
    for (const filler of ["😀", "&"]) {
      for (let k = 0; k < 6; k++) {
        const long = pipelineReport("refused");
        const ref = `release/${"x".repeat(k)}${filler.repeat(3_000)}`;
        Object.assign(long.actions[0]!, { ref, reason: `branch ${ref} of project acme/platform/api is not protected` });
        for (const block of renderSlack(long).blocks as { text?: { text: string } }[]) {
          const text = block.text?.text ?? "";
          expect(text, "a lone surrogate").not.toMatch(/[\uD800-\uDBFF]$/);
          expect(text, "a cut entity").not.toMatch(/&[a-z]*$/);
        }
      }
    }
  });

  it("escapes names that come from the services, group headings included", () => {
    const report = enforceReport(false, ["done"]);
    (report.actions[0] as RemoveShareAction).project = "<!channel> <https://evil.example|Approve>";
    const text = JSON.stringify(renderSlack(report).blocks);
    expect(text).not.toContain("<!channel>");
    expect(text).toContain("&lt;!channel&gt;");
  });

  it("a name cannot restyle the message: its *, _, ~ and ` that could format are shown as look-alikes", () => {
    const report = enforceReport(false, ["done"]);
    (report.actions[0] as RemoveShareAction).project = "Digest* ~Billing sync~ _approved_ ``` acme/app_api";
    const line = renderSlack(report).blocks.map((b) => (b as { text?: { text: string } }).text?.text ?? "").find((t) => t.includes("Digest"))!;
    // The line as Warden means it: `*<project>*  <columns>  _done_`, the name's own characters inert.
    const name = /^\*(.*?)\*  /.exec(line)?.[1];
    expect(name).toBe("Digest＊ ～Billing sync～ ＿approved＿ ｀｀｀ acme/app_api (#0)");
    expect(line).toMatch(/  _done_$/);
  });

  it("a name cannot draw Slack's emoji (:white_check_mark: beside a failure): a zero-width joiner follows the colon that would open one; a time's colons are left", () => {
    const report = enforceReport(false, ["failed"]);
    (report.actions[0] as RemoveShareAction).reason = ":white_check_mark: verified :+1: at 14:38:03, ETL:daily";
    const text = renderSlack(report).blocks.map((b) => (b as { text?: { text: string } }).text?.text ?? "").join("\n");
    for (const code of [":white_check_mark:", ":+1:"]) expect(text).not.toContain(code);
    expect(text).toContain(":\u200dwhite_check_mark: verified :\u200d+1: at 14:38:03, ETL:daily");
    // GitLab draws them too, from the rendered text (a merge request's note, a notice): its backslashes are gone by then.
    const markdown = renderMarkdown(report);
    expect(markdown).toContain("\\:\u200dwhite\\_check\\_mark\\: verified \\:\u200d\\+1\\: at 14\\:38\\:03\\, ETL\\:daily");
  });

  it("a colon before a long run of letters with no colon after it is escaped in linear time (it took 2 s at 40,000 letters)", () => {
    const report = enforceReport(false, ["failed"]);
    (report.actions[0] as RemoveShareAction).reason = `:${"a".repeat(40_000)} and :${"1".repeat(40_000)}b`;
    const started = performance.now();
    renderSlack(report);
    renderMarkdown(report);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe("text rendering", () => {
  it("groups actions by project, puts the status first, and colours only when asked", () => {
    const report = enforceReport(true, ["planned", "planned", "planned", "planned"]);
    const plain = renderText(report, { color: false });
    expect(plain).toMatch(/^Warden enforce \(dry run\): 4 stray shares\n/);
    expect(plain).toContain("\n\nacme/p0 (#0)\n  planned  project share  partners/<agency>&0  developer  no expiry  added by Jane Doe 2026-11-20  no allow rule matches\n");
    expect(plain.match(/^acme\/p0 /gm)).toHaveLength(2);
    expect(plain).not.toContain("\x1b[");
    expect(renderText(report, { color: true })).toContain("\x1b[");
    expect(plain).toMatch(/12 requests \(3 pages, 1 retry, 0 rate-limited\) in 1\.5 s\nwarning: the token is not an administrator\n\nPlan: /);
  });

  it("counts in the singular for one, in the title and the stats, as text and in Slack", () => {
    const one = { ...enforceReport(true, ["planned"]), stats: { requests: 1, retries: 0, rateLimited: 0, pages: 1, durationMs: 100 } };
    Object.assign(one.summary, { projects: 1, shares: 1, groups: 1, groupShares: 0, groupReads: 1 });
    const plain = renderText(one, { color: false });
    expect(plain).toContain("\n1 project with 1 share, 1 group with 0 group shares; ");
    expect(plain).toContain("; 1 group read (GET /groups/:id)\n");
    expect(plain).toMatch(/^Warden enforce \(dry run\): 1 stray share\n/);
    expect(plain).toContain("\n1 request (1 page, 0 retries, 0 rate-limited) in 0.1 s");
    expect(renderSlack(one).text).toMatch(/^Warden enforce \(dry run\): 1 stray share\. [\s\S]*\n1 request \(1 page, 0 retries/);
  });

  it("says how low the requests in flight went once a service pushed back, and nothing when none did", () => {
    const pushed = { ...enforceReport(true, ["planned"]), stats: { requests: 40, retries: 9, rateLimited: 9, pages: 5, durationMs: 2_000, lowestConcurrency: 2 } };
    expect(renderText(pushed, { color: false })).toContain("\n40 requests (5 pages, 9 retries, 9 rate-limited, down to 2 in flight) in 2.0 s");
    expect(renderSlack(pushed).text).toContain("9 rate-limited, down to 2 in flight)");
    expect(renderText(enforceReport(true, ["planned"]), { color: false })).not.toContain("in flight");
  });
});

describe("escaping what servers send", () => {
  it("escapeControls shows C0, DEL, C1 and bidi characters as visible escapes, newlines only when asked", () => {
    expect(escapeControls("a\x1b[31mb\rc\nd\u202ee\x9bf\x7f")).toBe("a\\x1b[31mb\\x0dc\\x0ad\\u202ee\\x9bf\\x7f");
    expect(escapeControls("one\ntwo\r", { keepNewlines: true })).toBe("one\ntwo\\x0d");
    expect(escapeControls("plain ünïcode / text")).toBe("plain ünïcode / text");
  });

  it("jsonForTerminal stays valid JSON and carries bidi, C1 and DEL only as \\u escapes", () => {
    const value = { names: HOSTILE };
    const text = jsonForTerminal(value, 2);
    expect(text).not.toMatch(RAW_UNSAFE);
    expect(JSON.parse(text)).toEqual(value);
  });

  it("the text report escapes names in headings, cells and warnings: no line can be forged", () => {
    const text = renderText(hostileReport(), { color: false });
    expect(text).not.toMatch(RAW_UNSAFE);
    expect(text).not.toMatch(/^ok: /m);
    expect(text).toContain("\\x1b[2K\\x0dok: all shares in policy (#0)");
    expect(text).toContain("rev \\u202egnp.exe\\u202c");
    expect(text).toContain("warning: stopped: \\x1b[2K");
  });

  it("Slack rendering escapes them too", () => {
    const message = renderSlack(hostileReport());
    expect(JSON.stringify(message)).not.toMatch(/\\u001b|\\r|\u202e|\x9b/);
    expect(message.text).not.toMatch(RAW_UNSAFE);
    for (const block of message.blocks) expect(JSON.stringify(block)).not.toMatch(RAW_UNSAFE);
  });
});

describe("slackLink: the one link Warden writes in mrkdwn (its text objects are verbatim, so Slack links nothing else)", () => {
  it("links an http(s) address, its & escaped as Slack asks", () => {
    expect(slackLink("https://gitlab.example/acme/policy/-/merge_requests/7?a=1&b=2", "!7")).toBe("<https://gitlab.example/acme/policy/-/merge_requests/7?a=1&amp;b=2|!7>");
  });

  it.each([
    ["another scheme", "javascript:alert(1)//https://x"],
    ["a `|` that would choose the label", "https://gitlab.example/x?|<!channel>"],
    ["no address at all", ""],
  ])("shows %s as escaped text after the label, no link", (_name, url) => {
    const shown = slackLink(url, "!7");
    expect(shown.startsWith("!7 (")).toBe(true);
    expect(shown).not.toMatch(/<(?!!7)/);
    expect(shown).not.toContain("<!channel>");
  });
});

it("every mrkdwn text of a Slack report is verbatim, so a URL in a name or an error is not linked", () => {
  const report = hostileReport();
  report.actions[0]!.error = "see https://evil.example/login";
  const objects = JSON.stringify(renderSlack(report).blocks).match(/\{"type":"mrkdwn"[^{}]*\}/g)!;
  expect(objects.length).toBeGreaterThan(3);
  for (const object of objects) expect(JSON.parse(object)).toMatchObject({ verbatim: true });
});

it("no cell of a Markdown report is a link where GitLab would link a URL, the per-group table's included", () => {
  // A review's finding: the per-group table escaped a URL-shaped group name's punctuation, which GitLab links all the same.
  const report = enforceReport(true, ["planned", "planned"]);
  for (const a of report.actions) (a as RemoveShareAction).group = "https://evil.example/x";
  const markdown = renderMarkdown(report);
  expect(markdown.split("https\\:").length).toBeGreaterThan(2);
  expect(markdown.split("\n").filter((line) => /https\\:(?!\u200d)\\\/\\\/evil/.test(line))).toEqual([]);
});
