/**
 * A comparison of policies (enforce --compare-policy-ref) for people: the headline ("Merging this
 * policy change would newly remove N shares, …"), what was compared, and one table per section, each
 * row as enforce's view shows a removal. Markdown for a merge request note, text for a terminal, and
 * Slack-safe lines; every text not Warden's own passes the format's escaper.
 */
import { enforceView } from "../enforce/view.ts";
import { COMPARISON_SECTIONS, type ComparisonSection, type PolicyComparison } from "../enforce/compare.ts";
import type { ShareRemoval } from "../shares/plan.ts";
import { count } from "../view.ts";
import { escapeMarkdown } from "./escape.ts";
import { policyLine, statsLine, type AnyReport } from "./parts.ts";

/** The hidden first line of a merge request note Warden writes: how the next pipeline finds the note to edit. */
export const NOTE_MARKER = "<!-- warden:policy-comparison -->";

export type ComparedReport = AnyReport & { comparison: PolicyComparison };

export function isComparison(report: AnyReport): report is ComparedReport {
  return (report as { comparison?: unknown }).comparison !== undefined;
}

const TITLES: Record<ComparisonSection, string> = {
  newlyRemoved: "Newly removed: stray under the proposed policy only",
  noLongerRemoved: "No longer removed: stray under the base policy only",
  exemptionChanged: "Exemption changed: an exemption newly applies or lapses",
};

/** "Merging this policy change would newly remove 3 shares, stop removing 2, change 1 exemption." */
export function comparisonHeadline({ comparison: c, summary }: ComparedReport): string {
  const incomplete = (summary as { complete?: boolean }).complete === false ? " (incomplete: the run stopped early, see the warnings)" : "";
  const sizes = COMPARISON_SECTIONS.map((s) => c[s].length);
  if (sizes.every((n) => n === 0)) return `Merging this policy change would change no share's fate${incomplete}.`;
  return `Merging this policy change would newly remove ${count(sizes[0]!, "share")}, stop removing ${sizes[1]}, change ${count(sizes[2]!, "exemption")}${incomplete}.`;
}

/** What was compared with what, unescaped. */
function comparedLine({ comparison: c }: ComparedReport): string {
  return `compared with the policy at ${c.baseRef} (commit ${c.baseCommitId.slice(0, 8)})`;
}

const row = (a: ShareRemoval) => [enforceView.group(a), ...enforceView.columns(a)];
const HEADINGS = [enforceView.headings.group, ...enforceView.headings.columns];

/** Rows of all sections together may take this much of a note; the rest is counted, not shown. */
const MAX_ROWS_CHARS = 900_000;

export function comparisonMarkdown(report: ComparedReport): string {
  const out = [NOTE_MARKER, `### ${escapeMarkdown(comparisonHeadline(report))}`, "", `${escapeMarkdown(policyLine(report))}  `, `${escapeMarkdown(comparedLine(report))}  `, escapeMarkdown(statsLine(report)), ""];
  if (report.warnings.length) out.push(...report.warnings.map((w) => `- ⚠️ ${escapeMarkdown(w)}`), "");
  let size = 0;
  for (const section of COMPARISON_SECTIONS) {
    const actions = report.comparison[section];
    if (!actions.length) continue;
    out.push(`#### ${escapeMarkdown(`${TITLES[section]} (${actions.length})`)}`, "", `| ${HEADINGS.map(escapeMarkdown).join(" | ")} |`, `|${" --- |".repeat(HEADINGS.length)}`);
    for (const [i, action] of actions.entries()) {
      const line = `| ${row(action).map(escapeMarkdown).join(" | ")} |`;
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
  const lines = [escape(comparisonHeadline(report)), escape(policyLine(report)), escape(comparedLine(report))];
  for (const section of COMPARISON_SECTIONS) {
    const actions = report.comparison[section];
    if (!actions.length) continue;
    lines.push("", `${escape(TITLES[section])}:`, ...actions.map((a) => `  ${row(a).map(escape).join("  ")}`));
  }
  return lines;
}
