/**
 * Escaping of text from servers and requesters before people see it: on a terminal (escapeControls),
 * in JSON printed to one (jsonForTerminal). Markdown and Slack build on escapeControls.
 */

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
