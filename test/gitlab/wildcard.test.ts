/**
 * lib/gitlab/wildcard.ts: a wildcard pattern matched without a RegExp, whose backtracking over many
 * wildcards that cannot match grew with the text's length to the power of their number (a protected-tag
 * rule or a CI include path, held the event loop for minutes). It answers as that RegExp did, and so does
 * the simulator's RefMatcher (`*` alone, taken where each part first comes).
 */
import { describe, expect, it } from "vitest";
import { ANY_RUN, SEGMENT_RUN, wildcardMatches, type Wildcard } from "../../lib/gitlab/wildcard.ts";
import { refRuleMatches } from "../../sim/gitlab/protected-refs.ts";

type Part = string | Wildcard;

/** Every sequence of up to `length` items of `alphabet`. */
function* sequences<T>(alphabet: readonly T[], length: number, prefix: T[] = []): Generator<T[]> {
  yield prefix;
  if (prefix.length < length) for (const item of alphabet) yield* sequences(alphabet, length, [...prefix, item]);
}

/** The RegExp the matcher replaces: `.*` and `[^/]*` between the quoted literal parts. */
const asRegExp = (pattern: readonly Part[]) =>
  new RegExp(`^${pattern.map((part) => (part === ANY_RUN ? ".*" : part === SEGMENT_RUN ? "[^/]*" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("")}$`, "s");

const texts = [...sequences(["a", "b", "/"], 5)].map((units) => units.join(""));

describe("wildcardMatches", () => {
  it("answers as the RegExp of .* and [^/]* pieces, for every pattern of up to 4 parts and every text of up to 5 characters", () => {
    const differ: string[] = [];
    for (const pattern of sequences<Part>(["a", "/", "ab", ANY_RUN, SEGMENT_RUN], 4)) {
      const regex = asRegExp(pattern);
      for (const text of texts) if (wildcardMatches(pattern, text) !== regex.test(text)) differ.push(`${regex.source} on ${JSON.stringify(text)}`);
    }
    expect(differ).toEqual([]);
  });

  it("the simulator's RefMatcher answers as the RegExp of .*? pieces, for every rule of up to 5 characters and every name of up to 5", () => {
    const differ: string[] = [];
    for (const rule of [...sequences(["a", "b", "/", "*"], 5)].map((units) => units.join("")).filter((rule) => rule.includes("*"))) {
      const regex = asRegExp(rule.split("*").flatMap((part, i) => (i === 0 ? [part] : [ANY_RUN, part])));
      for (const name of texts) if (refRuleMatches(rule, name) !== regex.test(name)) differ.push(`${rule} on ${JSON.stringify(name)}`);
    }
    expect(differ).toEqual([]);
  });

  it("takes time in proportion to the text's length times the pattern's, however many wildcards cannot match", () => {
    // 40 of each wildcard that cannot match 2,000 characters: the RegExp would not end in a lifetime; this is 160,000 steps.
    const pattern: Part[] = [...Array.from({ length: 40 }, (_, i): Part[] => [i % 2 ? ANY_RUN : SEGMENT_RUN, "a"]).flat(), ANY_RUN, "b"];
    const started = performance.now();
    expect(wildcardMatches(pattern, "a".repeat(2_000))).toBe(false);
    expect(refRuleMatches(`${"*a".repeat(40)}*b`, "a".repeat(2_000))).toBe(false);
    const took = performance.now() - started;
    expect(took, `took ${Math.round(took)} ms`).toBeLessThan(500);
  });
});
