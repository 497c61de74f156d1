import { redactOutput } from "../../lib/redact/index.ts";

/**
 * `value` with every string in it passed through lib/redact: for a payload about to leave the process
 * as JSON (a Slack post, a stored report). Strings rather than the JSON text, so a mask can never land
 * inside one of JSON's escapes and break the document.
 */
export function redactStrings<T>(value: T): T {
  if (typeof value === "string") return redactOutput(value) as T;
  if (Array.isArray(value)) return value.map(redactStrings) as T;
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactStrings(v)])) as T;
  return value;
}
