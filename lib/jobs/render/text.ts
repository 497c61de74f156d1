/**
 * A report as text for a terminal: title and policy, the tally (strays per invited group: what an
 * operator decides on), the actions under their headings, the summary, warnings and a closing line
 * in terraform's manner. Every server text passes escapeControls; lines wrap to `width` if given.
 */
import { styleText } from "node:util";
import { comparisonLines, isComparison } from "./comparison.ts";
import { escapeControls } from "../escape.ts";
import { policyLine, statsLine, tallyOf, titleOf, viewOf, type AnyReport } from "./parts.ts";
import { wrapLines } from "./wrap.ts";
import { redactOutput } from "../../redact/index.ts";

type Style = Parameters<typeof styleText>[0];

const STATUS_STYLE: Record<string, Style> = {
  planned: "yellow",
  done: "green",
  "already-gone": "gray",
  skipped: "gray",
  reported: "cyan",
  notify: "yellow",
  noticed: "green",
  pending: "cyan",
  failed: "red",
  unknown: "red",
  created: "green",
  allowed: "green",
  exempt: "cyan",
  stray: "yellow",
};

export interface TextOptions {
  color: boolean;
  /** The terminal's width (stdout.columns); undefined: no wrapping. */
  width?: number;
}

export function renderText(report: AnyReport, opts: TextOptions): string {
  const view = viewOf(report);
  const paint = (style: Style, text: string) => (opts.color ? styleText(style, text, { validateStream: false }) : text);
  // A comparison of policies is about the change: its differences, not the proposed policy's plan.
  if (isComparison(report)) return wrapped([...comparisonLines(report, (t) => escapeControls(t)), "", statsLine(report), ...report.warnings.map((w) => paint("yellow", `warning: ${escapeControls(w)}`))], opts.width);
  const lines = [paint("bold", titleOf(view, report)), escapeControls(policyLine(report))];
  const tally = tallyOf(view, report);
  if (tally) {
    const width = Math.max(...tally.rows.map(([name]) => escapeControls(name).length));
    const digits = String(tally.rows[0]![1]).length;
    lines.push("", paint("bold", `${tally.title}:`), ...tally.rows.map(([name, n]) => `  ${escapeControls(name).padEnd(width)}  ${String(n).padStart(digits)}`));
  }
  // Names and messages come from GitLab, n8n and the requester: escaped, so none can move the cursor or forge a line.
  // Status first and the last column (free text) unpadded; one set of widths so rows line up across groups.
  const rows = report.actions.map((a) => ({ heading: escapeControls(view.group(a as never)), cells: [a.status, ...view.columns(a as never)].map((cell) => escapeControls(cell)) }));
  // A reduce, not Math.max(...): a plan of 150,000 rows as arguments overflows the stack.
  const widths = rows[0]?.cells.map((_, col) => rows.reduce((width, r) => Math.max(width, r.cells[col]!.length), 0)) ?? [];
  for (const [heading, group] of Map.groupBy(rows, (r) => r.heading)) {
    lines.push("", paint("bold", heading));
    for (const { cells } of group) {
      const [status, ...rest] = cells.map((cell, col) => (col < cells.length - 1 ? cell.padEnd(widths[col]!) : cell));
      lines.push(`  ${paint(STATUS_STYLE[cells[0]!] ?? "white", status!)}  ${rest.join("  ")}`);
    }
  }
  lines.push("", escapeControls(view.summary(report as never)), statsLine(report));
  for (const warning of report.warnings) lines.push(paint("yellow", `warning: ${escapeControls(warning)}`));
  const closing = view.closing?.(report as never);
  if (closing) lines.push("", paint("bold", escapeControls(closing)));
  return wrapped(lines, opts.width);
}

/**
 * Redacted before it wraps: a break at a space inside a registered credential (a typed passphrase) would
 * leave two pieces that the CLI's own redaction of stdout, which masks only whole credentials, lets through.
 */
function wrapped(lines: string[], width: number | undefined): string {
  return wrapLines(redactOutput(lines.join("\n")), width);
}
