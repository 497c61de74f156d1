/**
 * Wildcard patterns matched without backtracking. A RegExp of `.*?` or `[^/]*` pieces backtracks on the
 * order of n^k steps when k wildcards cannot match n characters, and it runs synchronously: a
 * protected-tag rule any Maintainer writes, or a CI include path, held the event loop for minutes.
 */

/** A run of any characters, `/` too. */
export const ANY_RUN = Symbol("any run");
/** A run of characters without `/`: within one path segment. */
export const SEGMENT_RUN = Symbol("run within a segment");
export type Wildcard = typeof ANY_RUN | typeof SEGMENT_RUN;

type Token = string | Wildcard;

/**
 * A test of whether a text is the pattern's literal parts in order, with what each wildcard takes between
 * them. The pattern is read once (wildcards side by side are one: the widest); each text is read one UTF-16
 * unit at a time (as a RegExp without the `u` flag reads), following only the places in the pattern that
 * the text read so far reaches: a text's length times the places reached at most, however long the pattern
 * (its author's choice: a CI file's include path may be 100,000 characters).
 */
export function wildcardMatcher(pattern: readonly (string | Wildcard)[]): (text: string) => boolean {
  const tokens: Token[] = [];
  for (const part of pattern) {
    // One UTF-16 unit at a time (a long literal spread into push would pass the stack's limit on arguments).
    if (typeof part === "string") for (let i = 0; i < part.length; i++) tokens.push(part[i]!);
    else if (typeof tokens.at(-1) === "symbol") tokens[tokens.length - 1] = tokens.at(-1) === ANY_RUN ? ANY_RUN : part;
    else tokens.push(part);
  }
  // A wildcard may take nothing: the place past it is reached with it (one step: no two stand side by side).
  const closed = (places: Iterable<number>) => {
    const reached = new Set<number>();
    for (const i of places) {
      reached.add(i);
      if (typeof tokens[i] === "symbol") reached.add(i + 1);
    }
    return reached;
  };
  return (text) => {
    let at = closed([0]);
    for (const unit of text.split("")) {
      const next: number[] = [];
      for (const i of at) {
        const token = tokens[i];
        if (token === ANY_RUN || (token === SEGMENT_RUN && unit !== "/")) next.push(i);
        else if (token === unit) next.push(i + 1);
      }
      if (next.length === 0) return false;
      at = closed(next);
    }
    return at.has(tokens.length);
  };
}

/** Whether `text` matches `pattern` (wildcardMatcher, for one text). */
export function wildcardMatches(pattern: readonly (string | Wildcard)[], text: string): boolean {
  return wildcardMatcher(pattern)(text);
}
