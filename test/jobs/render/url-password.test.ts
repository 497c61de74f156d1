/**
 * Redaction comes after every escaping step and "recognises a credential however the
 * escapers wrote it" (docs/talking-to-gitlab.md, docs/security.md), and masks a URL's password
 * (`scheme://user:password@`) whoever's it is. It did so in the text and Slack renderings, but not in
 * Markdown (reports, notices, merge request notes and descriptions) nor in a GitLab title: escapeMarkdown
 * writes `https\:\/\/user\:password\@‍host` and escapeTitle `https:‍//user:‍password@‍host`, which
 * lib/redact's URL_PASSWORD (raw `scheme://…:…@` only) did not match (the escape11 review): the same server
 * text was masked on the terminal and in Slack, and published whole in GitLab. Its `@` stays as escaped.
 */
import { describe, expect, it } from "vitest";
import type { EnforceReport } from "../../../lib/jobs/index.ts";
import { escapeTitle } from "../../../lib/jobs/escape.ts";
import { renderMarkdown, renderSlack, renderText } from "../../../lib/jobs/render/index.ts";
import { redactOutput } from "../../../lib/redact/index.ts";
import { runRecord } from "../../support/report.ts";

const PASSWORD = "s3cretPassw0rd";
const QUOTED = `GitLab answered 502 from https://deploy:${PASSWORD}@mirror.internal/api`;

function report(): EnforceReport {
  return {
    ...runRecord("enforce", true),
    summary: { projects: 1, shares: 0, groups: 0, groupShares: 0, groupReads: 0, allowed: 0, exempt: 0, strays: 0, removed: 0, alreadyGone: 0, skipped: 0, failed: 0, maxRemovals: 10, guard: "ok", complete: true, matched: null },
    actions: [],
    stats: { requests: 1, retries: 0, rateLimited: 0, pages: 1, durationMs: 10 },
    warnings: [QUOTED],
  };
}

describe("a URL's password in Markdown and titles", () => {
  it("the text and Slack renderings mask it (the baseline)", () => {
    expect(renderText(report(), { color: false })).not.toContain(PASSWORD);
    expect(JSON.stringify(renderSlack(report()))).not.toContain(PASSWORD);
  });

  it("the Markdown rendering masks it too", () => {
    expect(redactOutput(renderMarkdown(report()))).not.toContain(PASSWORD);
  });

  it("a GitLab title masks it too", () => {
    expect(redactOutput(escapeTitle(QUOTED))).not.toContain(PASSWORD);
  });

  it("keeps the @ as it was escaped: a raw one would make a mention", () => {
    expect(redactOutput("https\\:\\/\\/deploy\\:pw\\@\u200dall")).toBe("https\\:\\/\\/deploy\\:[REDACTED]\\@\u200dall");
  });
});
