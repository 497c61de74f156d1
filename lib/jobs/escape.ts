/**
 * Escaping of text from servers and requesters before people see it: on a terminal (escapeControls),
 * in JSON printed to one (jsonForTerminal), in Markdown (escapeMarkdown), in a GitLab title (escapeTitle,
 * cut to fit by cutTitle), in Slack's mrkdwn (escapeMrkdwn, always inside a verbatim text object: mrkdwn);
 * and a server's address of an issue or merge request checked before Warden links it (issuableUrl).
 */
import { UNSEEN_BEYOND_C0 } from "../policy/unseen.ts";
import { fullwidth } from "../redact/index.ts";

/**
 * Characters that act on a terminal or reorder what it shows: C0 and C1 controls (ESC, CR, newline…),
 * DEL, bidirectional overrides and isolates, and line separators. Any of them in a project, group or
 * workflow name, a ref or a server's message could clear a line or forge one ("ok: all shares in
 * policy"), so every text rendering shows them as visible escapes (\x1b, \u202e).
 */
const UNSAFE = new RegExp(`[\\x00-\\x1f${UNSEEN_BEYOND_C0}]`, "g");
/** In JSON text, C0 characters are structure (newlines of the layout) or already escaped by JSON.stringify. */
const UNSAFE_IN_JSON = new RegExp(`[${UNSEEN_BEYOND_C0}]`, "g");

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

/**
 * GitLab's reference prefixes: @user/@group/@all (a mention notifies people), #issue, !merge request,
 * %milestone, ~label, &epic, $snippet. A zero-width joiner follows each: GitLab's reference filters
 * match the prefix directly followed by a name or number, on the rendered text (after Markdown
 * removed any backslash), unless the instance honours backslash escapes (behind a feature flag in
 * some versions, never in other renderers); the joiner breaks every such pattern whatever the version.
 */
const REFERENCE_PREFIXES = new Set(["@", "#", "!", "%", "~", "&", "$"]);
const ZERO_WIDTH_JOINER = "\u200d";

/**
 * A colon that opens an emoji code, Slack's or GitLab's (`:white_check_mark:` drawn beside a failure, `:+1:`,
 * `:100:`): a zero-width joiner goes after it. A time's colons (`14:38:03`) are left as they are. Linear in the
 * text: the code's first non-digit found by `\d*` alone (two quantifiers over the same characters took seconds on
 * a colon before 40,000 letters, as each was tried at every split).
 */
const EMOJI_OPENING = /(?<!\d):(?=[A-Za-z0-9_+'-]+:)|:(?=\d*[A-Za-z_+'-][A-Za-z0-9_+'-]*:)/g;
const EMOJI_AT = new RegExp(EMOJI_OPENING.source, "y");
/** Whether the colon at `at` of `text` opens an emoji code. */
function opensEmoji(text: string, at: number): boolean {
  EMOJI_AT.lastIndex = at;
  return EMOJI_AT.test(text);
}

/**
 * Text as literal Markdown, in a paragraph or a table cell. Controls and newlines are shown as
 * escapes (escapeControls: nothing can end the line, the cell or the table); every ASCII punctuation
 * character is backslash-escaped, as CommonMark allows for all of them (so no emphasis, link, code,
 * HTML, entity, block start — `>`, `#`, `-`, `1.` — or table pipe, which GFM escapes as `\|`); and a
 * zero-width joiner after each GitLab reference prefix, so `@all` mentions no one, and after a colon that opens
 * an emoji code (GitLab draws `:white_check_mark:` from the rendered text, its backslashes gone). A URL stays one
 * (GitLab links it in the rendered text): Warden's own links rely on it; escapeMarkdownText breaks it.
 */
export function escapeMarkdown(text: string): string {
  return escapeControls(text).replace(/[!-/:-@[-`{-~]/g, (char, at: number, whole: string) => `\\${char}${REFERENCE_PREFIXES.has(char) || (char === ":" && opensEmoji(whole, at)) ? ZERO_WIDTH_JOINER : ""}`);
}

/**
 * A person's free text (a display name) as literal Markdown that is no link either: GitLab links a URL
 * in the rendered text (its autolink filter runs after Markdown dropped the backslashes), so a joiner
 * follows the colon of `://`. Not for Warden's own links (a notice's, a merge request's), which stay links.
 */
export function escapeMarkdownText(text: string): string {
  return escapeMarkdown(text).replace(/\\:(?=\\\/\\\/)/g, `\\:${ZERO_WIDTH_JOINER}`);
}

/** Followed by a zero-width joiner in a title: the reference prefixes, and `:` (see escapeTitle). */
const JOINED_IN_TITLE = new RegExp(`[${[...REFERENCE_PREFIXES, ":"].join("")}]`, "g");

/**
 * Text in a GitLab issue's or merge request's title, which GitLab renders without Markdown (Banzai's
 * SingleLinePipeline: HTML shown as text, then emoji, autolinks and references), so a backslash would
 * show as one: controls shown as escapes, and a zero-width joiner after each reference prefix and each
 * `:`, which begins an emoji (`:name:`), the `://` of a link and references such as `[vulnerability:1]`.
 */
export function escapeTitle(text: string): string {
  return escapeControls(text).replace(JOINED_IN_TITLE, `$&${ZERO_WIDTH_JOINER}`);
}

/** GitLab refuses an issue's or merge request's title over 255 characters (400 "is too long"). */
const MAX_TITLE_CHARS = 255;

/**
 * A title cut to GitLab's limit, ending in `…`: on a code point (no half of a surrogate pair). A
 * reference prefix whose joiner the cut dropped is followed by the `…`, which no reference takes.
 */
export function cutTitle(title: string): string {
  if (title.length <= MAX_TITLE_CHARS) return title;
  return `${title.slice(0, MAX_TITLE_CHARS - 1).replace(/[\uD800-\uDBFF]$/, "")}…`;
}

/**
 * The address of a project's issue or merge request (a notice, an exemption's), as reports, notes and
 * messages link it. GitLab's answer says it (`web_url`), but an answer is a server's (or a proxy's) text:
 * it is taken only where it is an http(s) address on GitLab's own origin (`instanceUrl`), below its path,
 * of an item of that kind and iid (query and fragment dropped); else it is built from the instance and
 * the project as the policy names it (its path; for a project named by id, GitLab's `/projects/:id`,
 * which leads to the project).
 */
export function issuableUrl(instanceUrl: string, project: string, kind: "issues" | "merge_requests", item: { iid: number; web_url?: unknown }): string {
  const said = typeof item.web_url === "string" && URL.canParse(item.web_url) ? new URL(item.web_url) : undefined;
  const address = said && `${said.origin}${said.pathname}`;
  if (said && /^https?:$/.test(said.protocol) && address!.startsWith(`${instanceUrl}/`) && address!.endsWith(`/-/${kind}/${item.iid}`)) return address!;
  return /^\d+$/.test(project) ? `${instanceUrl}/projects/${project}` : `${instanceUrl}/${project}/-/${kind}/${item.iid}`;
}

/**
 * Slack's formatting characters where they can open or close formatting: a backtick anywhere, and `*`,
 * `_` or `~` unless between two letters or digits, where Slack leaves it as text (snake_case, a merge
 * request's URL, which then stays a working link).
 */
const MRKDWN_FORMATTING = /`|(?<![A-Za-z0-9])[*_~]|[*_~](?![A-Za-z0-9])/g;

/**
 * Names and messages come from GitLab, n8n and the requester: escape mrkdwn (a workflow named
 * <!channel> must not ping anyone) and the characters that reorder or break the text. Slack has no
 * escape for its formatting characters, so they are shown as their fullwidth look-alikes (＊＿～｀):
 * a name cannot end Warden's *bold*, strike or italicise, or open a code block (the redactor knows
 * the look-alikes: lib/redact's fullwidth).
 */
export function escapeMrkdwn(text: string): string {
  return escapeControls(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(MRKDWN_FORMATTING, fullwidth).replace(EMOJI_OPENING, `:${ZERO_WIDTH_JOINER}`);
}

/** A Block Kit mrkdwn text object. */
export interface MrkdwnText {
  type: "mrkdwn";
  text: string;
  verbatim: true;
}

/**
 * Every mrkdwn text Warden posts, verbatim: without it Slack links any URL or domain in the text, and
 * channel names, so a display name or a server's error holding `https://…` would be a live link under
 * Warden's name. Escaping cannot stop that (Slack has no escape for a URL); verbatim turns the parsing
 * off, and a link of Warden's own is written out as one (slackLink).
 */
export function mrkdwn(text: string): MrkdwnText {
  return { type: "mrkdwn", text, verbatim: true };
}

/**
 * A link Warden means (the merge request it opened), as mrkdwn's `<url|label>`: only an http(s) address
 * whose form as parsed has nothing in it that could end the link's syntax; anything else is shown as
 * text after the label.
 */
export function slackLink(url: string, label: string): string {
  const parsed = URL.parse(url);
  const href = parsed && /^https?:$/.test(parsed.protocol) ? parsed.href : undefined;
  if (href === undefined || /[\s<>|\x00-\x1f\x7f-\x9f]/.test(href)) return `${escapeMrkdwn(label)} (${escapeMrkdwn(url)})`;
  return `<${href.replace(/&/g, "&amp;")}|${escapeMrkdwn(label)}>`;
}
