/**
 * Issue 28, point 1, through the renderers and the redaction each channel applies: a Slack summary
 * (renderSlack, then redactStrings as notify.ts and post-response.ts do) and a merge request note
 * (mrNoteBody: renderMarkdown, then redactOutput). A project whose path is a piece of a registered
 * credential reads exactly as one whose path is not; the whole credential is masked, escaped or not,
 * and a cut never leaves a piece of it; nor does a terminal's line wrapping (renderText, then redactOutput as
 * the CLI's stdout does).
 */
import { describe, expect, it } from "vitest";
import type { EnforceReport, RemoveShareAction } from "../../../lib/jobs/index.ts";
import { renderMarkdown, renderSlack, renderText } from "../../../lib/jobs/render/index.ts";
import { registerSecret, redactOutput, redactStrings } from "../../../lib/redact/index.ts";
import { runRecord, validReport } from "../../support/report.ts";

/** No token shape: only its registration can mask it, and its punctuation is what escapers rewrite. */
const SECRET = "Wd7-signing_secret.K9q2-x8Zt";
registerSecret(SECRET);

function share(project: string): RemoveShareAction {
  return { type: "remove-share", kind: "project", projectId: 1, project, groupId: 90, group: "outside", accessLevel: 30, accessLevelName: "developer", expiresAt: null, addedBy: null, attribution: "not visible", reason: "no allow rule matches", status: "planned" };
}

function report(project: string, warnings: string[] = []): EnforceReport {
  return validReport({
    ...runRecord("enforce", true),
    summary: { projects: 1, shares: 1, groups: 1, groupShares: 0, groupReads: 1, allowed: 0, exempt: 0, strays: 1, removed: 0, alreadyGone: 0, skipped: 0, failed: 0, maxRemovals: 10, guard: "ok", complete: true, matched: null },
    actions: [share(project)],
    stats: { requests: 3, retries: 0, rateLimited: 0, pages: 1, durationMs: 100 },
    warnings,
  });
}

const slack = (r: EnforceReport) => JSON.stringify(redactStrings(renderSlack(r)));
const note = (r: EnforceReport) => redactOutput(renderMarkdown(r));

describe("a Slack summary and a merge request note", () => {
  it.each([
    ["Slack", slack],
    ["Markdown", note],
  ] as const)("%s: a project named with a piece of the credential reads as one named with a piece of nothing", (_name, render) => {
    for (const [inside, outside] of [["signing", "signinh"], ["Wd7-signing", "Wd7-signinh"], ["secret.K9q2-x8Z", "secret.K9q2-x8Y"]] as const) {
      expect(SECRET.includes(inside) && !SECRET.includes(outside)).toBe(true);
      const a = render(report(`acme/${inside}`));
      expect(a).not.toContain("[REDACTED]");
      expect(a.replaceAll(inside.replace(/[-.]/g, (c) => `\\${c}`), "X").replaceAll(inside, "X")).toBe(
        render(report(`acme/${outside}`)).replaceAll(outside.replace(/[-.]/g, (c) => `\\${c}`), "X").replaceAll(outside, "X"),
      );
    }
  });

  it.each([
    ["Slack", slack],
    ["Markdown", note],
  ] as const)("%s: the whole credential is masked wherever a server put it, however the renderer escaped it", (_name, render) => {
    const out = render(report(`acme/x${SECRET}`, [`GitLab said: <${SECRET}> & more`]));
    expect(out.match(/\[REDACTED\]/g)).toHaveLength(2);
    expect(out.replace(/\\(.)/g, "$1")).not.toMatch(/signing_secret|K9q2/);
  });

  it("Slack: a warning cut at a section's 3,000 characters leaves no piece of a credential", () => {
    for (let k = 1; k < SECRET.length; k++) {
      const warning = `${"w".repeat(3000 - ":warning: ".length - k)}${SECRET} and after`;
      const out = slack(report("acme/app", [warning]));
      expect(out, `cut ${k} characters into it`).not.toMatch(/Wd7|signing|K9q2|x8Zt/);
    }
  });
});

it("a terminal's text: a credential with spaces in it (a typed passphrase) is masked before lines wrap at its spaces", () => {
  const phrase = "Wd7 correct horse battery staple K9q2";
  registerSecret(phrase);
  for (const width of [24, 40, 60, 80]) {
    const out = redactOutput(renderText(report("acme/app", [`GitLab echoed ${phrase} back`]), { color: false, width }));
    expect(out, `at ${width} columns`).toContain("[REDACTED]");
    expect(out, `at ${width} columns`).not.toMatch(/horse|battery|staple/);
  }
});
