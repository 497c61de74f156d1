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

/**
 * Whether `text` is the pattern's literal parts in order, with what each wildcard takes between them.
 * Every place in the pattern the text read so far can reach is followed at once, one UTF-16 unit at a
 * time (as a RegExp without the `u` flag reads): the text's length times the pattern's at most.
 */
export function wildcardMatches(pattern: readonly (string | Wildcard)[], text: string): boolean {
  const tokens = pattern.flatMap<string | Wildcard>((part) => (typeof part === "string" ? part.split("") : [part]));
  // at[i]: the text read so far can end just before token i.
  let at = reach(tokens, [true]);
  for (const unit of text.split("")) {
    const next: boolean[] = [];
    tokens.forEach((token, i) => {
      if (!at[i]) return;
      if (token === ANY_RUN || (token === SEGMENT_RUN && unit !== "/")) next[i] = true;
      else if (token === unit) next[i + 1] = true;
    });
    at = reach(tokens, next);
  }
  return at[tokens.length] === true;
}

/** The places reached, with those past each wildcard, which may also take nothing. */
function reach(tokens: readonly (string | Wildcard)[], at: boolean[]): boolean[] {
  tokens.forEach((token, i) => {
    if (at[i] && typeof token !== "string") at[i + 1] = true;
  });
  return at;
}
