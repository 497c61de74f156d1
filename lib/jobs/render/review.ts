/**
 * The access review written out, as chunks a front end writes one after another: CSV and JSON are
 * written from the report's one list of shares a batch of rows at a time, never built whole (100,000
 * projects' shares would double in memory as one string); text and Markdown, which are for people
 * (and Markdown cut at a GitLab comment's size), are laid out whole by the shared renderers. Here
 * in render/, not in review/: the review's folder holds the job and its view, which render/ reads.
 */
import type { ReviewReport } from "../review/summary.ts";
import { CSV_HEADER, csvCells } from "../review/view.ts";
import { csvLine } from "./csv.ts";
import { jsonForTerminal } from "../escape.ts";
import { renderMarkdown } from "./markdown.ts";
import { renderText } from "./text.ts";

export const REVIEW_FORMATS = ["text", "markdown", "json", "csv"] as const;
export type ReviewFormat = (typeof REVIEW_FORMATS)[number];

/** Rows per chunk: each chunk is one write (and one pass of the redaction point). */
const ROWS_PER_CHUNK = 500;

export function* reviewChunks(report: ReviewReport, format: ReviewFormat, text: { color: boolean; width?: number } = { color: false }): Generator<string> {
  if (format === "text") return yield `${renderText(report, text)}\n`;
  if (format === "markdown") return yield `${renderMarkdown(report)}\n`;
  if (format === "csv") {
    yield csvLine(CSV_HEADER);
    for (const rows of batches(report.actions)) yield rows.map((a) => csvLine(csvCells(a))).join("");
    return;
  }
  // JSON: the report's envelope as jsonForTerminal writes it, its actions spliced in row by row (a key
  // is found by its quotes: inside a string, JSON escapes them).
  const { actions, ...envelope } = report;
  const whole = jsonForTerminal({ ...envelope, actions: [] }, 2);
  const at = whole.indexOf(ACTIONS_KEY) + ACTIONS_KEY.length - 1;
  yield whole.slice(0, at);
  let written = 0;
  for (const rows of batches(actions)) yield rows.map((a) => `${written++ ? "," : ""}\n    ${jsonForTerminal(a)}`).join("");
  yield `${actions.length ? "\n  " : ""}${whole.slice(at)}\n`;
}

const ACTIONS_KEY = '"actions": []';

function* batches<T>(items: readonly T[]): Generator<readonly T[]> {
  for (let from = 0; from < items.length; from += ROWS_PER_CHUNK) yield items.slice(from, from + ROWS_PER_CHUNK);
}
