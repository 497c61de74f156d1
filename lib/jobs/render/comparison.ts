/**
 * A comparison of policies (enforce --compare-policy-ref) laid out for people, as enforce's view reads
 * it: Markdown for a merge request note (its hidden marker first), lines for a terminal or Slack.
 * Every text not Warden's own passes the format's escaper.
 */
import { comparisonView as view, type ComparedReport } from "../enforce/view.ts";
import { NOTE_MARKER } from "../shares/comparison.ts";
import { escapeMarkdown, escapeMarkdownText } from "../escape.ts";
import { policyLine, statsLine, type AnyReport } from "./parts.ts";

export function isComparison(report: AnyReport): report is AnyReport & ComparedReport {
  return (report as { comparison?: unknown }).comparison !== undefined;
}

/** Rows of all sections together may take this much of a note; the rest is counted, not shown. */
const MAX_ROWS_CHARS = 900_000;

export function comparisonMarkdown(report: ComparedReport): string {
  const out = [NOTE_MARKER, `### ${escapeMarkdown(view.headline(report))}`, "", `${escapeMarkdown(policyLine(report))}  `, `${escapeMarkdown(view.compared(report))}  `, escapeMarkdown(statsLine(report)), ""];
  if (report.warnings.length) out.push(...report.warnings.map((w) => `- ⚠️ ${escapeMarkdownText(w)}`), "");
  let size = 0;
  for (const { key, title } of view.sections) {
    const actions = report.comparison[key];
    if (!actions.length) continue;
    out.push(`#### ${escapeMarkdown(`${title} (${actions.length})`)}`, "", `| ${view.headings.map(escapeMarkdown).join(" | ")} |`, `|${" --- |".repeat(view.headings.length)}`);
    for (const [i, action] of actions.entries()) {
      const line = `| ${view.row(action).map(escapeMarkdownText).join(" | ")} |`;
      if ((size += line.length + 1) > MAX_ROWS_CHARS) {
        out.push("", `…and ${actions.length - i} more here: a note holds no more (the JSON report, --format json, has them all).`);
        break;
      }
      out.push(line);
    }
    out.push("");
  }
  return out.join("\n");
}

/** Lines for a terminal or Slack, each text passed through `escape` (escapeControls, escapeMrkdwn). */
export function comparisonLines(report: ComparedReport, escape: (text: string) => string): string[] {
  const lines = [escape(view.headline(report)), escape(policyLine(report)), escape(view.compared(report))];
  for (const { key, title } of view.sections) {
    const actions = report.comparison[key];
    if (actions.length) lines.push("", `${escape(title)}:`, ...actions.map((a) => `  ${view.row(a).map(escape).join("  ")}`));
  }
  return lines;
}
