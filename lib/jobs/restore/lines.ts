/**
 * A restore input's lines, one at a time. Split at once (`text.split`), a file of 21 million short lines
 * (63 MB, under what restore reads) was 21 million strings held together, past the 256 MB heap the CLI
 * and the functions run with: the process ended with V8's heap error rather than Warden's own.
 */

/** Each line of `text` without its line break (`\n` or `\r\n`), as `text.split(/\r?\n/)` gives them. */
export function* linesOf(text: string): Generator<string> {
  for (let start = 0; start <= text.length; ) {
    const newline = text.indexOf("\n", start);
    const end = newline < 0 ? text.length : newline;
    yield text.slice(start, newline > start && text[newline - 1] === "\r" ? end - 1 : end);
    start = end + 1;
  }
}

/** The instant a line was written (`timestamp`, which Powertools' lines and the CLI's carry); NaN where it has none. */
export function timeOf(line: Record<string, unknown>): number {
  return typeof line["timestamp"] === "string" ? Date.parse(line["timestamp"]) : Number.NaN;
}

/**
 * The entries oldest first, when every one has a time; else as given. A log export is not always in
 * time order (Logs Insights sorts newest first unless told otherwise), and restore takes each share as it
 * was last removed, a confirmation after its removal: read as given, newest first, the oldest removal won.
 * A stable sort: lines of the same millisecond keep the order given.
 */
export function inTimeOrder<T>(entries: T[], at: (entry: T) => number | undefined): T[] {
  return entries.every((e) => Number.isFinite(at(e))) ? entries.toSorted((a, b) => at(a)! - at(b)!) : entries;
}
