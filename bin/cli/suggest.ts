/** "Did you mean": the known word closest to a mistyped one, if it is close enough to be what was meant. */

/** Edits (insert, delete, substitute, swap two neighbours) between two words: optimal string alignment. */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The closest of `known`, when at most two edits and fewer than half the word's letters away: `enfoce`
 * is `enforce`, but `x` is not `h` (too short to guess) and `lint` is nothing of Warden's.
 */
export function closest(word: string, known: Iterable<string>): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(word.toLowerCase(), name);
    if (distance <= 2 && distance < word.length / 2 && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}
