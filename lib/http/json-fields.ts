/**
 * Of a JSON answer, only the fields the caller reads: of the answer's object itself, or of each object in
 * one of its arrays (n8n's listing, `{ "data": [workflow, …], "nextCursor": … }`). Everything else of
 * those objects is passed over as text and never parsed, so it counts in none of the bounds json-size.ts
 * sets on what is. Why: n8n lists whole workflows, and a workflow's nodes are free-form JSON any member
 * may save (16 MiB a save): one workflow of a million empty arrays made every listing that held it fail,
 * and so every later run, governed by nothing. Passing over is a scan of the text, as the bounds' is.
 *
 * A text this cannot follow (no object, a string or bracket left open: an answer cut short) comes back
 * as it was, for JSON.parse and the json layer to judge as they would any answer. What is passed over is
 * only found the end of (its strings and brackets), not judged: the caller never reads it.
 */

export interface FieldsKept {
  /** The fields kept; others are passed over. */
  keep: readonly string[];
  /** The member of the answer's object whose array holds the objects to keep fields of; none: the answer's object itself. */
  in?: string;
}

const [QUOTE, BACKSLASH, COLON, COMMA, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET] = [0x22, 0x5c, 0x3a, 0x2c, 0x7b, 0x7d, 0x5b, 0x5d];
/** Thrown where the text is not JSON this scan follows; caught below, never seen by a caller. */
const UNFOLLOWED = Symbol("unfollowed");
/**
 * The most parts a kept text is built of (some 5,000 for n8n's page of 250 workflows). Past it the text
 * comes back whole, for json-size.ts to judge as any answer: the parts of `{"data":[{},{},…]}` of 60 MB,
 * a hostile server's page, filled the heap before any bound was asked.
 */
const MAX_PARTS = 1_000_000;

/** `text` with only `fields.keep` of the objects it names; `text` itself where it cannot be followed. */
export function keepFields(text: string, fields: FieldsKept): string {
  const keep = new Set(fields.keep);
  try {
    const start = space(text, 0);
    if (text.charCodeAt(start) !== OPEN_BRACE) return text;
    const parts: string[] = [];
    const end = fields.in === undefined ? kept(text, start, keep, parts) : object(text, start, parts, (key, from) => (name(key) === fields.in && text.charCodeAt(from) === OPEN_BRACKET ? each(text, from, keep, parts) : copied(text, from, parts)));
    return space(text, end) === text.length ? parts.join("") : text;
  } catch (err) {
    if (err === UNFOLLOWED) return text;
    throw err;
  }
}

/** The object at `i`, its members in `keep` only, into `parts`; returns where it ends. */
function kept(text: string, i: number, keep: ReadonlySet<string>, parts: string[]): number {
  return object(text, i, parts, (key, from) => (keep.has(name(key)) ? copied(text, from, parts) : undefined));
}

/** The value at `i`, as it is, into `parts`; returns where it ends. */
function copied(text: string, i: number, parts: string[]): number {
  const end = value(text, i);
  parts.push(text.slice(i, end));
  return end;
}

/** The array at `i` into `parts`, each object in it with its members in `keep` only; returns where it ends. */
function each(text: string, i: number, keep: ReadonlySet<string>, parts: string[]): number {
  parts.push("[");
  i = space(text, i + 1);
  if (text.charCodeAt(i) === CLOSE_BRACKET) return (parts.push("]"), i + 1);
  for (let first = true; ; first = false) {
    if (parts.length > MAX_PARTS) throw UNFOLLOWED;
    if (!first) parts.push(",");
    i = space(text, text.charCodeAt(i) === OPEN_BRACE ? kept(text, i, keep, parts) : copied(text, i, parts));
    const c = text.charCodeAt(i);
    if (c === CLOSE_BRACKET) return (parts.push("]"), i + 1);
    if (c !== COMMA) throw UNFOLLOWED;
    i = space(text, i + 1);
  }
}

/**
 * The object at `i` into `parts`: `member` is given each member's key (as written) and where its value
 * begins, pushes what it keeps of the value and returns where the value ends, each value read once; or
 * undefined, and the member is left out, key and all. Returns where the object ends.
 */
function object(text: string, i: number, parts: string[], member: (key: string, from: number) => number | undefined): number {
  parts.push("{");
  let count = 0;
  i = space(text, i + 1);
  if (text.charCodeAt(i) === CLOSE_BRACE) return (parts.push("}"), i + 1);
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE || parts.length > MAX_PARTS) throw UNFOLLOWED;
    const keyEnd = string(text, i);
    const key = text.slice(i, keyEnd);
    i = space(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) throw UNFOLLOWED;
    const from = space(text, i + 1);
    // The key goes in first, taken back if the member is left out.
    const at = parts.length;
    parts.push(`${count ? "," : ""}${key}:`);
    let to = member(key, from);
    if (to === undefined) {
      parts.length = at;
      to = value(text, from);
    } else count++;
    i = space(text, to);
    const c = text.charCodeAt(i);
    if (c === CLOSE_BRACE) return (parts.push("}"), i + 1);
    if (c !== COMMA) throw UNFOLLOWED;
    i = space(text, i + 1);
  }
}

/** Where the value at `i` ends: a string, an object or array (by its brackets, strings in it passed over), or a number or literal. */
function value(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return string(text, i);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0;
    for (; i < text.length; i++) {
      const d = text.charCodeAt(i);
      if (d === QUOTE) i = string(text, i) - 1;
      else if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
      else if ((d === CLOSE_BRACE || d === CLOSE_BRACKET) && --depth === 0) return i + 1;
    }
    throw UNFOLLOWED;
  }
  let end = i;
  while (end < text.length && !delimits(text.charCodeAt(end))) end++;
  if (end === i) throw UNFOLLOWED;
  return end;
}

/** Where the string opened at `i` ends (after its closing quote). */
function string(text: string, i: number): number {
  for (i++; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i + 1;
  }
  throw UNFOLLOWED;
}

function space(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const delimits = (c: number) => isSpace(c) || c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET;

/** A key as JSON.parse reads it (`"\u0069d"` is `id`). */
function name(key: string): string {
  try {
    return JSON.parse(key) as string;
  } catch {
    throw UNFOLLOWED;
  }
}
