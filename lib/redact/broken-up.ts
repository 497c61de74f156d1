/**
 * A credential a server sends back broken up: wrapped onto an indented line, folded like a header, split
 * by TABs or invisible characters, raw or as an escaper writes them. The pattern for such a credential,
 * each of its characters written as the caller says, and the masking of its hex and base64 broken into
 * lines (maskBrokenRuns); lib/redact/index.ts masks with both.
 */

/** `char`'s code in hex, at least `width` digits, each letter in either case (escapers differ). */
export function caselessHex(char: string, width: number): string {
  return Array.from(char.charCodeAt(0).toString(16).padStart(width, "0"), (d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d)).join("");
}

/** `char` as escapers write it after their backslash: `xHH` (escapeControls) or `uHHHH` (JSON and others), or `short` (JSON's `n`). */
export function hexEscape(char: string, short?: string): string {
  return [...(char.charCodeAt(0) < 0x100 ? [`x${caselessHex(char, 2)}`] : []), `u${caselessHex(char, 4)}`, ...(short ? [short] : [])].join("|");
}
const ZERO_WIDTH = "\u200b\u200c\u200d\u2060\u00ad\ufeff";
/**
 * A line break (CR or LF; CRLF is two), raw or escaped, maybe after a quoted-printable soft break's `=` or
 * a continuation's backslash: those backslashes, and a Markdown or JSON escape's own, are counted into
 * the escape's (1 to 4), so that every text is read one way only.
 */
const LINE_BREAK = String.raw`(?:\\?=)?(?:\\?[\r\n]|\\{1,4}(?:${hexEscape("\r", "r")}|${hexEscape("\n", "n")}))`;
const TAB = String.raw`\t|\\{1,2}(?:${hexEscape("\t", "t")})`;
/** The spaces a line break or TAB may be followed by: a wrapped line's indent, as deep as a pretty-printed, nested error's. */
const INDENT = 80;
/**
 * Between two characters of a credential: zero-width characters, line breaks and TABs, as they are or
 * as an escaper writes them (`\x0a`, `\u200b`, JSON's `\n` and `\t`), each line break or TAB maybe
 * followed by spaces: a server may send a credential back broken up so (a paragraph wrapped onto an
 * indented line, a header folded with CRLF and a TAB, invisible characters put in). Each run is bounded
 * (8 of them, INDENT spaces after each), and no text can be read as two different runs of the same length
 * (a credential's character beside one is never a space), so a text that repeats most of a credential so
 * broken up costs a bounded time per character, not one that doubles with each break.
 */
const SEPARATOR_PART = String.raw`[${ZERO_WIDTH}]|\\{1,2}(?:${Array.from(ZERO_WIDTH, (c) => hexEscape(c)).join("|")})|(?:${LINE_BREAK}|${TAB}) {0,${INDENT}}`;
const SEPARATOR = `(?:${SEPARATOR_PART}){0,8}`;
/**
 * A credential's own characters that a separator's text holds too (its spaces, TABs, line breaks, a soft
 * break's `=`, an escape's backslash): no separator goes beside one, or the two could share text, and a
 * near miss of a credential with many (a passphrase's spaces) be read in exponentially many ways. A run of
 * whitespace in a credential stands instead for any run of whitespace, zero-width characters and their
 * escapes (a line break, a wrapped line's INDENT and more), so a passphrase wrapped or folded at its
 * spaces is still masked whole; each such run is read one way only (a raw character, or an escape begun
 * by a backslash, which no raw one is).
 */
const SHARED_WITH_SEPARATOR = /[ \t\r\n=\\]/;
const WHITESPACE = /[ \t\r\n]/;
const WHITESPACE_RUN = String.raw`(?:[ \t\r\n${ZERO_WIDTH}]|\\{1,2}(?:${hexEscape("\r", "r")}|${hexEscape("\n", "n")}|${hexEscape("\t", "t")}|${Array.from(ZERO_WIDTH, (c) => hexEscape(c)).join("|")})){1,${INDENT + 48}}`;

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

/** Base64's characters, standard and URL-safe (hex's among them). */
const ENCODED = "[A-Za-z0-9+/_-]";
/**
 * A run of them broken up by separators (MIME's lines of 76, PEM's of 64, a dump's), matched only where a
 * run starts (the lookbehind): a run with no break in it is passed over once, not tried again from each of
 * its characters. No separator begins with one of them, so each run is read one way only.
 */
const BROKEN_RUN = new RegExp(String.raw`(?<!${ENCODED})${ENCODED}+(?:(?:${SEPARATOR_PART}){1,8}${ENCODED}+)+`, "g");
/** A broken run's pieces: its separators, and the characters between them. */
const PIECE = new RegExp(String.raw`(?:${SEPARATOR_PART})+|${ENCODED}+`, "g");
const STARTS_ENCODED = new RegExp(`^${ENCODED}`);

/**
 * `text` with whatever `matcher` finds in a broken run read without its separators masked, separators
 * and all: how a credential's hex and base64 forms are found broken up, each still needing all of it.
 * Not SEPARATOR between every two characters of those forms (the base64 forms are six): that pattern
 * took V8 a second to compile, at each credential registered.
 */
export function maskBrokenRuns(text: string, matcher: RegExp, mask: string): string {
  return text.replace(BROKEN_RUN, (run) => {
    // Where each character of the run read without its separators is in the run.
    const at: number[] = [];
    for (const { 0: piece, index } of run.matchAll(PIECE)) if (STARTS_ENCODED.test(piece)) for (let i = 0; i < piece.length; i++) at.push(index + i);
    let masked = "";
    let from = 0;
    for (const { 0: found, index } of at.map((i) => run[i]).join("").matchAll(matcher)) {
      masked += run.slice(from, at[index]) + mask;
      from = at[index + found.length - 1]! + 1;
    }
    return masked + run.slice(from);
  });
}
