/**
 * What a listing takes of an item before it counts it: an object whose id is of the listing's type and
 * one JSON.parse reads exactly, and never quoted in an error (a page is the server's text).
 */

/** The longest id a listing takes: n8n's are 16 characters; every id seen is kept for the run (a de-duplication). */
const MAX_ID_CHARS = 256;

/**
 * What is wrong with an item (undefined: nothing), said without quoting it. A numeric id must be a
 * positive integer JSON.parse reads exactly: past 2^53 two ids round to one, and a project would be
 * dropped as the other's duplicate, or addressed by an id not its own.
 */
export function idProblem(item: unknown, idType: "number" | "string"): string | undefined {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return `is ${kindOf(item)}, not an object`;
  const { id } = item as { id?: unknown };
  if (typeof id !== idType) return id === undefined ? "has no id" : `has an id that is ${kindOf(id)}, not a ${idType}`;
  if (typeof id === "number" && !(Number.isSafeInteger(id) && id > 0)) return "has an id that is not a positive whole number below 2^53 (JSON.parse would not read it exactly)";
  if (typeof id === "string" && (id.length === 0 || id.length > MAX_ID_CHARS)) return `has an id of ${id.length} characters (1 to ${MAX_ID_CHARS})`;
  return undefined;
}

/** What a value from a page is, for an error that must not quote it. */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
