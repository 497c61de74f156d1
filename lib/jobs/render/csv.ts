/**
 * CSV by RFC 4180, safe to open in a spreadsheet and to print on a terminal: a field holding `,` or `"`
 * is quoted, its quotes doubled; lines end CRLF. Cells come from GitLab (group and project names anyone
 * with a group can choose, display names anyone can): their controls (ESC, CR, LF, C1) and bidi
 * overrides are shown as escapes (escapeControls, as every other format), so no cell holds a line break
 * and none can act on the terminal `warden report shares --format csv` writes to. A cell a spreadsheet
 * would read as a formula (starting `=`, `+`, `-` or `@`, as OWASP's CSV injection advice lists; its tab
 * and CR are escaped by then) is prefixed with `'`, so it is shown as text, never run.
 */
import { escapeControls } from "../escape.ts";

const FORMULA_START = /^[=+\-@]/;
const NEEDS_QUOTES = /[",]/;

export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return "";
  // Only text can start a formula: a number (an id, a level, -2 days left on an overdue notice) is read as a number.
  if (typeof value === "number") return String(value);
  const text = escapeControls(value);
  const shown = FORMULA_START.test(text) ? `'${text}` : text;
  return NEEDS_QUOTES.test(shown) ? `"${shown.replaceAll('"', '""')}"` : shown;
}

/** One record, CRLF-terminated. */
export function csvLine(cells: readonly (string | number | null | undefined)[]): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}
