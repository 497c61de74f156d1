/** One character of a credential as the escapers Warden's outputs pass through may write it (lib/redact/index.ts). */
import { caselessHex, hexEscape } from "./broken-up.ts";

const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/;
const SLACK_ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };

/** An ASCII punctuation character's fullwidth form (U+FF01 to U+FF5E): escapeMrkdwn's look-alike for Slack's `*`, `_`, `~` and backtick. */
export function fullwidth(char: string): string {
  return String.fromCharCode(char.charCodeAt(0) + 0xfee0);
}

/**
 * A pattern for one character of a credential as any escaper may have written it: itself, and for
 * ASCII punctuation also backslash-escaped (escapeMarkdown, which adds a zero-width joiner after
 * GitLab's reference prefixes; JSON's \" and \\), as `\u00HH` or `\xHH` (an encoder that escapes all
 * but letters and digits; its backslash maybe escaped again by Markdown or JSON), as an HTML numeric
 * reference (`&#45;`, `&#x2d;`; its own `&`, `#` and `;` maybe escaped again by Markdown or Slack),
 * percent-encoded (a URL), as Slack's entity or fullwidth look-alike, or, for a quote, doubled (a CSV
 * cell, RFC 4180).
 */
export function escapedChar(char: string): string {
  const literal = char.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
  if (!ASCII_PUNCTUATION.test(char)) return literal;
  const hex = caselessHex(char, 2);
  const reference = `(?:\\\\?&\u200d?|&amp;)\\\\?#\u200d?(?:${char.charCodeAt(0)}|[xX]${hex})\\\\?;`;
  const forms = [`\\\\?${literal}\u200d?`, `\\\\{1,2}(?:${hexEscape(char)})`, reference, `%${hex}`, fullwidth(char)];
  const entity = SLACK_ENTITIES[char];
  if (entity) forms.push(entity);
  if (char === '"') forms.push('""');
  return `(?:${forms.join("|")})`;
}
