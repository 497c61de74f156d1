/**
 * A credential a server sends back broken up: wrapped onto an indented line, folded like a header, split
 * by TABs or invisible characters, raw or as an escaper writes them. The pattern for such a credential,
 * each of its characters written as the caller says; lib/redact/index.ts masks with it.
 */

/** `char` as escapers write it: `\xHH` (escapeControls) or `\uHHHH` (JSON and others), hex digits in either case, or `short` (JSON's `\n`). */
function controlEscape(char: string, short?: string): string {
  const hex = (width: number) => Array.from(char.charCodeAt(0).toString(16).padStart(width, "0"), (d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d)).join("");
  return [...(char.charCodeAt(0) < 0x100 ? [`x${hex(2)}`] : []), `u${hex(4)}`, ...(short ? [short] : [])].join("|");
}
const ZERO_WIDTH = "\u200b\u200c\u200d\u2060\u00ad\ufeff";
/**
 * A line break (CR or LF; CRLF is two), raw or escaped, maybe after a quoted-printable soft break's `=` or
 * a continuation's backslash: those backslashes, and a Markdown or JSON escape's own, are counted into
 * the escape's (1 to 4), so that every text is read one way only.
 */
const LINE_BREAK = String.raw`(?:\\?=)?(?:\\?[\r\n]|\\{1,4}(?:${controlEscape("\r", "r")}|${controlEscape("\n", "n")}))`;
const TAB = String.raw`\t|\\{1,2}(?:${controlEscape("\t", "t")})`;
/**
 * Between two characters of a credential: zero-width characters, line breaks and TABs, as they are or
 * as an escaper writes them (`\x0a`, `\u200b`, JSON's `\n` and `\t`), each line break or TAB maybe
 * followed by spaces: a server may send a credential back broken up so (a paragraph wrapped onto an
 * indented line, a header folded with CRLF and a TAB, invisible characters put in). Each run is bounded
 * (8 of them, 16 spaces after each), and no text can be read as two different runs of the same length,
 * so a text that repeats most of a credential so broken up costs a bounded time per character, not
 * one that doubles with each break.
 */
const SEPARATOR = String.raw`(?:[${ZERO_WIDTH}]|\\{1,2}(?:${Array.from(ZERO_WIDTH, (c) => controlEscape(c)).join("|")})|(?:${LINE_BREAK}|${TAB}) {0,16}){0,8}`;
/**
 * A credential's own characters that a separator's text holds too (its spaces, TABs, line breaks, a soft
 * break's `=`, an escape's backslash): no separator goes beside one, or the two could share text, and a
 * near miss of a credential with many (a passphrase's spaces) be read in exponentially many ways. A run of
 * whitespace in a credential stands instead for any run of whitespace, zero-width characters and their
 * escapes, so a passphrase wrapped or folded at its spaces is still masked whole; each such run is read
 * one way only (a raw character, or an escape begun by a backslash, which no raw one is).
 */
const SHARED_WITH_SEPARATOR = /[ \t\r\n=\\]/;
const WHITESPACE = /[ \t\r\n]/;
const WHITESPACE_RUN = String.raw`(?:[ \t\r\n${ZERO_WIDTH}]|\\{1,2}(?:${controlEscape("\r", "r")}|${controlEscape("\n", "n")}|${controlEscape("\t", "t")}|${Array.from(ZERO_WIDTH, (c) => controlEscape(c)).join("|")})){1,64}`;

/** `chars` (a credential's) as `one` writes each, SEPARATOR between two unless one is SHARED_WITH_SEPARATOR, a run of whitespace as WHITESPACE_RUN. */
export function brokenUp(chars: string[], one: (char: string) => string): string {
  let pattern = "";
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!;
    if (WHITESPACE.test(char)) {
      while (i + 1 < chars.length && WHITESPACE.test(chars[i + 1]!)) i++;
      pattern += WHITESPACE_RUN;
    } else pattern += one(char);
    const next = chars[i + 1];
    if (next !== undefined && !SHARED_WITH_SEPARATOR.test(chars[i]!) && !SHARED_WITH_SEPARATOR.test(next)) pattern += SEPARATOR;
  }
  return pattern;
}
