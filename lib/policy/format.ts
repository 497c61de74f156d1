/** ["a", "b", "c"] -> "a, b or c", for messages listing the accepted values. */
export function oneOf(words: readonly string[]): string {
  return words.length <= 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} or ${words.at(-1)}`;
}
