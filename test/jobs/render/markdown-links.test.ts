/**
 * A pipeline report's Markdown (`warden pipeline … --format markdown`, for a merge
 * request comment or a CI job summary) must make no link of text Warden did not write
 * (lib/jobs/render/markdown.ts: "Every text that is not Warden's own passes escapeMarkdownText (… a
 * server's error in a reason …)"; docs/cli.md: "no text Warden did not write" becomes a link).
 *
 * The pipeline view's summary quotes the refusal's reason (and a started pipeline's error, which holds
 * GitLab's web_url), and renderMarkdown passed the summary through escapeMarkdown, which left a URL
 * one (the escape11 review; escapeMarkdownText now) (GitLab's autolink filter runs on the rendered text, after Markdown dropped the backslashes).
 * Whoever writes the CI file at the ref chooses the URL of a remote include, which the reason quotes.
 */
import { describe, expect, it } from "vitest";
import { runPipeline } from "../../../lib/jobs/index.ts";
import { renderMarkdown } from "../../../lib/jobs/render/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { ciWorld } from "../../support/ci-world.ts";
import { validated } from "../../support/report.ts";

const w = ciWorld();

/** A URL as escapeMarkdown writes it, still a link once GitLab renders it: `https\:\/\/` with no joiner after the colon. */
const LIVE_URL = /https\\:\\\/\\\/evil/;

describe("a pipeline report as Markdown", () => {
  it("a refused pipeline's reason, quoting the CI file's remote include, links nothing in the Markdown", async () => {
    w.commit("include:\n  - remote: https://evil.example/phish/ci.yml\n");
    const policy = parsePolicy(`version: 1\npipelines:\n  allow:\n    - project: "acme/platform/**"\n      refs: ["main"]\n`, "test.yaml");
    const report = await validated(runPipeline({ gitlab: w.client(), policy, project: w.platform.path_with_namespace, ref: "main", variables: [], apply: false }));
    expect(report.actions[0]).toMatchObject({ status: "refused" });
    expect(report.actions[0]!.reason).toContain("evil.example");
    const markdown = renderMarkdown(report);
    // The table's cell breaks it, and the summary line above the table too.
    expect(markdown).not.toMatch(LIVE_URL);
  });
});
