/**
 * Rack-style parameter parsing, as GitLab reads query strings and form bodies:
 * `+` is a space, `a[]=` builds an array, `h[k]=` a hash, `v[0][key]=` a hash of hashes
 * (see `listOf`), and `v[][key]=` an array of hashes.
 */
export type ParamValue = string | ParamValue[] | ParamHash;
export interface ParamHash {
  [key: string]: ParamValue;
}

export function parseParams(raw: string): ParamHash {
  const out: ParamHash = Object.create(null);
  for (const pair of raw.split("&")) {
    if (!pair) continue;
    const eq = pair.indexOf("=");
    const name = decode(eq < 0 ? pair : pair.slice(0, eq));
    assign(out, keyPath(name), eq < 0 ? "" : decode(pair.slice(eq + 1)));
  }
  return out;
}

/** The decoded parameter name of one raw `name=value` pair, without its `[...]` suffixes. */
export function baseName(pair: string): string {
  const eq = pair.indexOf("=");
  return keyPath(decode(eq < 0 ? pair : pair.slice(0, eq)))[0]!;
}

/** An array parameter sent either as a list or as a hash with index keys (`v[0][key]=`). */
export function listOf(value: unknown): unknown[] | undefined {
  if (value === undefined) return [];
  if (Array.isArray(value)) return value;
  if (typeof value !== "object" || value === null) return undefined;
  const entries = Object.entries(value);
  if (!entries.every(([k]) => /^\d+$/.test(k))) return undefined;
  return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, v]) => v);
}

function decode(s: string): string {
  const spaced = s.replaceAll("+", " ");
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/** `variables[0][key]` → ["variables", "0", "key"]; `a[]` → ["a", ""]. */
function keyPath(name: string): string[] {
  const open = name.indexOf("[");
  if (open <= 0) return [name];
  const path = [name.slice(0, open)];
  for (const m of name.slice(open).matchAll(/\[([^\]]*)\]/g)) path.push(m[1]!);
  return path;
}

function assign(target: ParamHash, path: readonly string[], value: string): void {
  const [key, next, ...rest] = path as [string, string | undefined, ...string[]];
  if (next === undefined) {
    target[key] = value;
  } else if (next === "") {
    const list = Array.isArray(target[key]) ? (target[key] as ParamValue[]) : (target[key] = []);
    if (rest.length === 0) return void list.push(value);
    // Rack starts a new hash when the last one already has this key.
    const last = list.at(-1);
    const hash = isHash(last) && !(rest[0]! in last) ? last : pushHash(list);
    assign(hash, rest, value);
  } else {
    const current = target[key];
    const hash = isHash(current) ? current : (target[key] = Object.create(null) as ParamHash);
    assign(hash, [next, ...rest], value);
  }
}

function pushHash(list: ParamValue[]): ParamHash {
  const hash: ParamHash = Object.create(null);
  list.push(hash);
  return hash;
}

const isHash = (v: unknown): v is ParamHash => typeof v === "object" && v !== null && !Array.isArray(v);
