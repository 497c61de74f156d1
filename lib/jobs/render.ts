/**
 * Renders any job's report for people: a text table (CLI) and Slack Block Kit (chat-ops). What differs
 * between jobs is data — a view per job — so the layout is written once.
 */
import { styleText } from "node:util";
import { applyView } from "./apply/view.ts";
import { enforceView } from "./enforce/view.ts";
import { pipelineView } from "./pipeline/view.ts";
import { restoreView } from "./restore/view.ts";
import { workflowsView } from "./workflows/view.ts";
import type { JobName, Report } from "./report.ts";
import { count, type JobView } from "./view.ts";

type AnyReport = Report<{ status: string }, object>;

const VIEWS: Partial<Record<JobName, JobView<never, never>>> = { enforce: enforceView, apply: applyView, pipeline: pipelineView, restore: restoreView, workflows: workflowsView };

function viewOf(report: AnyReport): JobView<never, never> {
  const view = VIEWS[report.job];
  if (!view) throw new Error(`no view for job ${report.job}`);
  return view;
}

const STATUS_STYLE: Record<string, Parameters<typeof styleText>[0]> = {
  planned: "yellow",
  done: "green",
  "already-gone": "gray",
  skipped: "gray",
  reported: "cyan",
  failed: "red",
  unknown: "red",
  created: "green",
};

export function renderText(report: AnyReport, opts: { color: boolean }): string {
  const view = viewOf(report);
  const paint = (style: Parameters<typeof styleText>[0], text: string) => (opts.color ? styleText(style, text, { validateStream: false }) : text);
  const lines = [paint("bold", titleOf(view, report))];
  // Names and messages come from GitLab, n8n and the requester: escaped, so none can move the cursor or forge a line.
  // Status first and the last column (free text) unpadded; one set of widths so rows line up across groups.
  const rows = report.actions.map((a) => ({ heading: escapeControls(view.group(a as never)), cells: [a.status, ...view.columns(a as never)].map((cell) => escapeControls(cell)) }));
  const widths = rows[0]?.cells.map((_, col) => Math.max(...rows.map((r) => r.cells[col]!.length))) ?? [];
  for (const [heading, group] of Map.groupBy(rows, (r) => r.heading)) {
    lines.push("", paint("bold", heading));
    for (const { cells } of group) {
      const [status, ...rest] = cells.map((cell, col) => (col < cells.length - 1 ? cell.padEnd(widths[col]!) : cell));
      lines.push(`  ${paint(STATUS_STYLE[cells[0]!] ?? "white", status!)}  ${rest.join("  ")}`);
    }
  }
  lines.push("", escapeControls(view.summary(report as never)), statsLine(report));
  for (const warning of report.warnings) lines.push(paint("yellow", `warning: ${escapeControls(warning)}`));
  return lines.join("\n");
}

/**
 * Characters that act on a terminal or reorder what it shows: C0 and C1 controls (ESC, CR, newline…),
 * DEL, bidirectional overrides and isolates, and line separators. Any of them in a project, group or
 * workflow name, a ref or a server's message could clear a line or forge one ("ok: all shares in
 * policy"), so every text rendering shows them as visible escapes (\x1b, \u202e).
 */
const UNSAFE_BEYOND_C0 = "\\x7f-\\x9f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069";
const UNSAFE = new RegExp(`[\\x00-\\x1f${UNSAFE_BEYOND_C0}]`, "g");
/** In JSON text, C0 characters are structure (newlines of the layout) or already escaped by JSON.stringify. */
const UNSAFE_IN_JSON = new RegExp(`[${UNSAFE_BEYOND_C0}]`, "g");

/** The one escaping function for text shown to people; `keepNewlines` for multi-line messages of Warden's own. */
export function escapeControls(text: string, opts: { keepNewlines?: boolean } = {}): string {
  return text.replace(UNSAFE, (char) => (char === "\n" && opts.keepNewlines ? char : visibleEscape(char)));
}

/** JSON for a terminal or a log: still valid JSON, with C1, DEL and bidi characters as \uXXXX (JSON.stringify escapes only C0). */
export function jsonForTerminal(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(UNSAFE_IN_JSON, (char) => `\\u${hex(char, 4)}`);
}

function visibleEscape(char: string): string {
  const code = char.codePointAt(0)!;
  return code < 0x100 ? `\\x${hex(char, 2)}` : `\\u${hex(char, 4)}`;
}

function hex(char: string, width: number): string {
  return char.codePointAt(0)!.toString(16).padStart(width, "0");
}

function titleOf(view: JobView<never, never>, report: AnyReport): string {
  return `${view.title}${report.dryRun ? " (dry run)" : ""}: ${count(report.actions.length, ...view.noun)}`;
}

function statsLine({ stats }: AnyReport): string {
  // The adaptive limit shows only once a service pushed back (lib/http/concurrency.ts).
  const pushedBack = stats.lowestConcurrency === undefined ? "" : `, down to ${stats.lowestConcurrency} in flight`;
  const counts = `${count(stats.pages, "page")}, ${count(stats.retries, "retry", "retries")}, ${stats.rateLimited} rate-limited${pushedBack}`;
  return `${count(stats.requests, "request")} (${counts}) in ${(stats.durationMs / 1000).toFixed(1)} s`;
}

/** Statuses that mean something was changed (a pipeline started counts). */
const CHANGED = new Set(["done", "already-gone", "created"]);

/** Slack allows 50 blocks: header, summary, up to 40 actions, the rest summarised, warnings. */
const MAX_ACTION_BLOCKS = 40;

export interface SlackMessage {
  response_type: "ephemeral" | "in_channel";
  text: string;
  blocks: object[];
}

export function renderSlack(report: AnyReport): SlackMessage {
  const view = viewOf(report);
  const title = escapeControls(titleOf(view, report));
  const summary = `${escapeMrkdwn(view.summary(report as never))}\n${statsLine(report)}`;
  const blocks: object[] = [
    { type: "header", text: { type: "plain_text", text: title.slice(0, 150) } },
    { type: "section", text: { type: "mrkdwn", text: summary } },
  ];
  for (const action of report.actions.slice(0, MAX_ACTION_BLOCKS)) {
    const line = [`*${escapeMrkdwn(view.group(action as never))}*`, ...view.columns(action as never).map(escapeMrkdwn), `_${action.status}_`].join("  ");
    blocks.push({ type: "section", text: { type: "mrkdwn", text: line.slice(0, 3000) } });
  }
  if (report.actions.length > MAX_ACTION_BLOCKS) {
    blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: `…and ${report.actions.length - MAX_ACTION_BLOCKS} more; run the CLI with --json for all of them.` }] });
  }
  if (report.warnings.length) {
    blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: report.warnings.map((w) => `:warning: ${escapeMrkdwn(w)}`).join("\n").slice(0, 3000) }] });
  }
  // Changes made are shown to the channel; dry runs, refusals and failures only to whoever asked.
  const changed = !report.dryRun && report.actions.some((a) => CHANGED.has(a.status));
  return { response_type: changed ? "in_channel" : "ephemeral", text: `${title}. ${summary}`, blocks };
}

/**
 * Names and messages come from GitLab, n8n and the requester: escape mrkdwn (a workflow named
 * <!channel> must not ping anyone) and the characters that reorder or break the text.
 */
export function escapeMrkdwn(text: string): string {
  return escapeControls(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
