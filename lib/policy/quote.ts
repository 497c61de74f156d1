/**
 * A value a policy holds, quoted for a message: as JSON, except a number JSON cannot write. YAML reads
 * `.inf`, `-.inf`, `.nan` (and an overflowing `1e400`) as non-finite numbers, which JSON.stringify
 * writes as `null`: a message would then blame an empty value the file does not hold.
 */
export function quoteValue(value: unknown): string {
  if (typeof value === "number" && !Number.isFinite(value)) return Number.isNaN(value) ? ".nan" : value > 0 ? ".inf" : "-.inf";
  return JSON.stringify(value);
}
