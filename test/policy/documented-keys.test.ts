/**
 * README.md and docs/policy.md call examples/warden.yaml "a commented example of every section": every
 * key of the policy's schema (lib/policy/schema.ts) is in it, set or commented out, as in docs/policy.md's
 * own summary (gitlab.attribution, gitlab.watch, gitlab.events and pipelines.allow[].unprotected were
 * missing from the example: a user starting from it never learnt of them).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { expect, it } from "vitest";
import { policySchema } from "../../lib/policy/schema.ts";

const ROOT = resolve(import.meta.dirname, "../..");

/** Every key path of a zod 4 schema: objects' keys, through optional, default, prefault, pipe (transform) and array. */
function keyPaths(schema: unknown, path = "", out: string[] = []): string[] {
  const def = (schema as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
  if (!def) return out;
  switch (def["type"]) {
    case "object":
      for (const [key, value] of Object.entries(def["shape"] as Record<string, unknown>)) {
        const at = path ? `${path}.${key}` : key;
        out.push(at);
        keyPaths(value, at, out);
      }
      break;
    case "pipe":
      keyPaths(def["in"], path, out);
      break;
    case "optional":
    case "default":
    case "prefault":
      keyPaths(def["innerType"], path, out);
      break;
    case "array":
      keyPaths(def["element"], `${path}[]`, out);
      break;
  }
  return out;
}

/** Whether `text` (YAML, comments included) writes the key path: each of its keys, in order, as `key:` (or `{ key:`). */
function writes(text: string, path: string): boolean {
  let from = 0;
  for (const key of path.replace(/\[\]/g, "").split(".")) {
    const at = text.slice(from).search(new RegExp(`(^|[\\s{,#-])${key}:`, "m"));
    if (at < 0) return false;
    from += at;
  }
  return true;
}

it("the schema's keys are found by the walk", () => {
  expect(keyPaths(policySchema)).toContain("gitlab.shares.allow[].maxAccess");
});

it("docs/policy.md's summary names every key of the schema", () => {
  const doc = readFileSync(resolve(ROOT, "docs/policy.md"), "utf8");
  expect(keyPaths(policySchema).filter((path) => !writes(doc, path))).toEqual([]);
});

it("examples/warden.yaml, 'a commented example of every section', names every key of the schema", () => {
  const example = readFileSync(resolve(ROOT, "examples/warden.yaml"), "utf8");
  expect(keyPaths(policySchema).filter((path) => !writes(example, path))).toEqual([]);
});
