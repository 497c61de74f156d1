/** A report as Slack Block Kit (chat-ops and run notifications): title, summary, policy, actions, warnings. */
import { comparisonLines, isComparison } from "./comparison.ts";
import { escapeControls, escapeMrkdwn, mrkdwn, type MrkdwnText } from "../escape.ts";
import { policyLine, statsLine, titleOf, viewOf, type AnyReport } from "./parts.ts";
import { redactOutput } from "../../redact/index.ts";
import { mayHaveChanged } from "../report/index.ts";

/** Statuses that mean something was changed (a pipeline started counts). */
const CHANGED = new Set(["done", "already-gone", "created", "noticed"]);

/** Slack allows 50 blocks: header, summary, a highlight, up to 40 actions, the rest summarised, warnings. */
const MAX_ACTION_BLOCKS = 40;
/** Lines of the highlight (one section of at most 3,000 characters). */
const MAX_HIGHLIGHTS = 20;

export interface SlackMessage {
  response_type: "ephemeral" | "in_channel";
  text: string;
  blocks: object[];
}

export function renderSlack(report: AnyReport): SlackMessage {
  const view = viewOf(report);
  const title = escapeControls(titleOf(view, report));
  const summary = `${escapeMrkdwn(view.summary(report as never))}\n${statsLine(report)}\n${escapeMrkdwn(policyLine(report))}`;
  const blocks: object[] = [
    { type: "header", text: { type: "plain_text", text: cut(title, 150) } },
    { type: "section", text: sectionText(summary) },
  ];
  const highlight = view.highlight?.(report as never);
  if (highlight) {
    const shown = highlight.lines.slice(0, MAX_HIGHLIGHTS).map((line) => `• ${escapeMrkdwn(line)}`);
    const more = highlight.lines.length > MAX_HIGHLIGHTS ? [`…and ${highlight.lines.length - MAX_HIGHLIGHTS} more`] : [];
    blocks.push({ type: "section", text: sectionText([`*${escapeMrkdwn(highlight.title)}*`, ...shown, ...more].join("\n")) });
  }
  // A comparison of policies shows its differences instead of the plan (a section's text is at most 3,000 characters).
  const compared = isComparison(report);
  if (compared) blocks.push({ type: "section", text: sectionText(comparisonLines(report, escapeMrkdwn).join("\n")) });
  for (const action of compared ? [] : report.actions.slice(0, MAX_ACTION_BLOCKS)) {
    const line = [`*${escapeMrkdwn(view.group(action as never))}*`, ...view.columns(action as never).map(escapeMrkdwn), `_${action.status}_`].join("  ");
    blocks.push({ type: "section", text: sectionText(line) });
  }
  if (!compared && report.actions.length > MAX_ACTION_BLOCKS) {
    blocks.push({ type: "context", elements: [mrkdwn(`…and ${report.actions.length - MAX_ACTION_BLOCKS} more; run the CLI with --json for all of them.`)] });
  }
  if (report.warnings.length) {
    blocks.push({ type: "context", elements: [sectionText(report.warnings.map((w) => `:warning: ${escapeMrkdwn(w)}`).join("\n"))] });
  }
  // Changes made, or that may have been (mayHaveChanged), are shown to the channel; dry runs, refusals and failures only to whoever asked.
  const changed = !report.dryRun && report.actions.some((a) => CHANGED.has(a.status) || mayHaveChanged(a));
  return { response_type: changed ? "in_channel" : "ephemeral", text: `${title}. ${summary}`, blocks };
}

/**
 * Text cut to one of Slack's limits, redacted first (after its escaping): a cut through a credential
 * would leave a piece of it that no later redaction recognises, as only whole credentials are masked.
 * It ends on a whole character and a whole entity: not half of a surrogate pair (text Slack may refuse,
 * the answer lost), nor an escaped `&`, `<` or `>` cut short (escapeMrkdwn writes every one so).
 */
/** A Block Kit section's mrkdwn text object, cut to Slack's 3,000 characters as cut() cuts. */
export function sectionText(text: string): MrkdwnText {
  return mrkdwn(cut(text, 3000));
}

function cut(text: string, max: number): string {
  const clean = redactOutput(text);
  return clean.length <= max ? clean : clean.slice(0, max).replace(/[\uD800-\uDBFF]$/, "").replace(/&[a-z]*$/, "");
}

