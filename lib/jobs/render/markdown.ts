/**
 * A report as GitLab-flavoured Markdown, for merge request comments and CI job summaries: the title,
 * the closing line, policy and summary, the tally table, and every action in a collapsed <details>.
 * Every text that is not Warden's own passes escapeMarkdownText (an adder's display name, a server's error
 * in a reason or a warning: GitLab would make a link of a URL in it); Warden's own lines, escapeMarkdown.
 */
import { count } from "../view.ts";
import { comparisonMarkdown, isComparison } from "./comparison.ts";
import { escapeMarkdown, escapeMarkdownText } from "../escape.ts";
import { policyLine, statsLine, tallyOf, titleOf, viewOf, type AnyReport } from "./parts.ts";

/** GitLab refuses a comment over 1,000,000 characters; the list is cut to leave room for the rest. */
const MAX_LIST_CHARS = 900_000;

export function renderMarkdown(report: AnyReport): string {
  if (isComparison(report)) return comparisonMarkdown(report);
  const view = viewOf(report);
  const out = [`### ${escapeMarkdown(titleOf(view, report))}`, ""];
  const closing = view.closing?.(report as never);
  // The closing and the summary may quote a server or a CI file (a pipeline's refusal, its address): text, no link.
  if (closing) out.push(`**${escapeMarkdownText(closing)}**`, "");
  out.push(`${escapeMarkdown(policyLine(report))}  `, `${escapeMarkdownText(view.summary(report as never))}  `, escapeMarkdown(statsLine(report)), "");
  if (report.warnings.length) out.push(...report.warnings.map((w) => `- ⚠️ ${escapeMarkdownText(w)}`), "");
  const tally = tallyOf(view, report);
  if (tally) out.push(...table([escapeMarkdown(tally.title), "Shares"], tally.rows.map(([name, n]) => [escapeMarkdownText(name), String(n)]), "right"), "");
  if (report.actions.length) {
    // The HTML block ends at the blank line after <summary>, so the table inside is Markdown.
    out.push(`<details><summary>All ${escapeMarkdown(count(report.actions.length, ...view.noun))}</summary>`, "");
    const rows = table([view.headings.group, "Status", ...view.headings.columns].map(escapeMarkdown), report.actions.map((a) => [view.group(a as never), a.status, ...view.columns(a as never)].map(escapeMarkdownText)));
    let size = 0;
    const fit = rows.findIndex((row) => (size += row.length + 1) > MAX_LIST_CHARS);
    if (fit === -1) out.push(...rows);
    else out.push(...rows.slice(0, fit), "", `…and ${report.actions.length - (fit - 2)} more: a comment holds no more (the JSON report, --format json, has them all).`);
    out.push("", "</details>", "");
  }
  return out.join("\n");
}

/** A GFM table; `lastAlign` right-aligns the last column (counts). */
function table(header: string[], rows: string[][], lastAlign: "left" | "right" = "left"): string[] {
  const rule = header.map((_, i) => (i === header.length - 1 && lastAlign === "right" ? "---:" : "---"));
  return [header, rule, ...rows].map((cells) => `| ${cells.join(" | ")} |`);
}
