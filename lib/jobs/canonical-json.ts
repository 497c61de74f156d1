/**
 * One text for one JSON value, however it was written: keys sorted at every depth, no whitespace,
 * undefined members left out. Two values that mean the same have the same text, so a hash of it can
 * stand for the value (a plan file's checksum, a streamed event's claim).
 */

/**
 * Deeper than any value Warden hashes (a plan or an audit event is a few levels deep). The values come
 * from files and requests others write, and JSON.parse takes any depth: past this bound the recursion
 * below would exhaust the stack, so a value this deep is refused with JsonTooDeepError instead.
 */
export const MAX_JSON_DEPTH = 64;

export class JsonTooDeepError extends Error {
  override name = "JsonTooDeepError";
  constructor() {
    super(`it is nested more than ${MAX_JSON_DEPTH} levels deep`);
  }
}

export function canonicalJson(value: unknown, depth = 0): string {
  if (typeof value !== "object" || value === null) return JSON.stringify(value);
  if (depth >= MAX_JSON_DEPTH) throw new JsonTooDeepError();
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item, depth + 1)).join(",")}]`;
  const record = value as Record<string, unknown>;
  const entries = Object.keys(record).filter((k) => record[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k], depth + 1)}`);
  return `{${entries.join(",")}}`;
}
