/**
 * CSV by RFC 4180, safe to open in a spreadsheet: a field holding `,`, `"`, CR or LF is quoted, its
 * quotes doubled; lines end CRLF. Cells come from GitLab (group and project names anyone with a group
 * can choose): a cell a spreadsheet would read as a formula (starting `=`, `+`, `-`, `@`, tab or CR,
 * as OWASP's CSV injection advice lists) is prefixed with `'`, so it is shown as text, never run.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return "";
  // Only text can start a formula: a number (an id, a level, -2 days left on an overdue notice) is read as a number.
  const text = typeof value === "number" ? String(value) : FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, CRLF-terminated. */
export function csvLine(cells: readonly (string | number | null | undefined)[]): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}
