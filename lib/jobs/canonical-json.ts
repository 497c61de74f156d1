/**
 * One text for one JSON value, however it was written: keys sorted at every depth, no whitespace,
 * undefined members left out. Two values that mean the same have the same text, so a hash of it can
 * stand for the value (a plan file's checksum, a streamed event's claim).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    const entries = Object.keys(record).filter((k) => record[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value);
}
