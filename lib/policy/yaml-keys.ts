/**
 * Keys of a policy's YAML mappings as they are read: the same key written twice, directly or through an
 * alias, and YAML 1.1's merge keys (`<<`). Pure; parse.ts refuses what these find, naming the line.
 */
import { isAlias, isMap, isScalar, isSeq, visit } from "yaml";
import type { Document, YAMLError, YAMLMap } from "yaml";
import { redactThenCut } from "../redact/index.ts";

export type YamlProblem = Pick<YAMLError, "message" | "pos">;

/** The node each alias names. */
export type AliasTargets = ReadonlyMap<unknown, unknown>;

/**
 * What each alias names, found in document order (an alias names the latest anchor of its name before it): one
 * pass, where the yaml package's resolve() walks the whole document for each (6,000 alias keys took 14 s).
 */
export function aliasTargets(doc: Document): AliasTargets {
  const anchors = new Map<string, unknown>();
  const named = new Map<unknown, unknown>();
  const anchored = (_: unknown, node: { anchor?: string | undefined }) => void (node.anchor && anchors.set(node.anchor, node));
  visit(doc, { Scalar: anchored, Map: anchored, Seq: anchored, Alias: (_, alias) => void named.set(alias, anchors.get(alias.source)) });
  return named;
}

const MERGE = Symbol("<<");

/**
 * A mapping key's identity: its type and value (a key written through an alias, `*o : remove`, is its
 * anchor's), MERGE for a merge key `<<`, undefined for a key that is no primitive (equal only to itself, as there).
 */
export function keyId(written: unknown, named: AliasTargets): string | typeof MERGE | undefined {
  const key = isAlias(written) ? named.get(written) : written;
  if (!isScalar(key) || (key.value !== null && typeof key.value === "object")) return undefined;
  if (typeof key.value === "symbol") return key === written ? MERGE : undefined;
  return `${key.value === null ? "null" : typeof key.value}:${String(key.value)}`;
}

/** Where a node starts and ends, for a problem's line. */
export function position(node: unknown): [number, number] {
  const at = (node as { range?: [number, number, number] | null }).range;
  return [at?.[0] ?? 0, at?.[1] ?? 0];
}

/**
 * Each merge key that brings in a key an earlier merge key of its mapping brings in, or one written before
 * it. One `<<` before the keys written is read alike everywhere (a list of maps too: the first map's value
 * wins); of two, the yaml package keeps the first's value, Ruby's Psych (GitLab's reader) and PyYAML the
 * last's; and Psych merges over the keys written before a `<<`, which the others keep: a reviewer may read the other.
 * For a document the yaml package has merged already: each map is walked once, so no more than it copied.
 */
export function keysMergedTwice(doc: Document, named: AliasTargets): YamlProblem[] {
  const mergedKeys = mergedKeysOf(named);
  const problems: YamlProblem[] = [];
  const quoted = (ids: string[]) => redactThenCut(ids.map((id) => JSON.stringify(id.slice(id.indexOf(":") + 1))).join(", "), 40);
  visit(doc, {
    Map(_, map) {
      if (!map.items.some((pair) => keyId(pair.key, named) === MERGE)) return;
      const [brought, written] = [new Set<string>(), new Set<string>()];
      for (const pair of map.items) {
        const id = keyId(pair.key, named);
        if (id !== MERGE) {
          if (id !== undefined) written.add(id);
          continue;
        }
        const keys = [...mergedKeys(pair.value)];
        const twice = keys.filter((key) => brought.has(key));
        const before = keys.filter((key) => written.has(key));
        if (twice.length > 0) problems.push({ message: `<< merges in ${quoted(twice)} again: YAML readers differ on which << wins; use one <<: [*a, *b] (first wins)`, pos: position(pair.key) });
        if (before.length > 0) problems.push({ message: `${quoted(before)} is written before a << that merges it in again: YAML readers differ on which wins (Ruby's takes the <<'s); write the << first`, pos: position(pair.key) });
        for (const key of keys) brought.add(key);
      }
    },
  });
  return problems;
}

/** The keys a merge key's value (a map, an alias of one, or a list of them) brings in: each map's own and its own merges', remembered per map. */
function mergedKeysOf(named: AliasTargets): (value: unknown) => ReadonlySet<string> {
  const known = new Map<YAMLMap, Set<string>>();
  const keysOf = (value: unknown): ReadonlySet<string> => {
    const node = isAlias(value) ? named.get(value) : value;
    if (isSeq(node)) return new Set(node.items.flatMap((item) => [...keysOf(item)]));
    if (!isMap(node)) return new Set(); // the yaml package refused it already: merge sources must be maps
    let keys = known.get(node);
    if (keys === undefined) {
      known.set(node, (keys = new Set())); // first: a map merged into itself brings in its own keys alone
      for (const pair of node.items) {
        const id = keyId(pair.key, named);
        if (id === MERGE) for (const merged of keysOf(pair.value)) keys.add(merged);
        else if (id !== undefined) keys.add(id);
      }
    }
    return keys;
  };
  return keysOf;
}
