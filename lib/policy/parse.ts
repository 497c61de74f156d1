import { createHash } from "node:crypto";
import { LineCounter, parseDocument, visit } from "yaml";
import type { Document, ScalarTag, Tags } from "yaml";
import { z } from "zod";
import { redactThenCut } from "../redact/index.ts";
import { PolicyError } from "./errors.ts";
import type { PolicyIssue } from "./errors.ts";
import { oneOf } from "./format.ts";
import type { Policy, PolicyOrigin } from "./policy.ts";
import { quoteValue } from "./quote.ts";
import { policySchema } from "./schema.ts";
import { aliasTargets, keyId, keysMergedTwice, position, type AliasTargets, type YamlProblem } from "./yaml-keys.ts";

/**
 * A policy is a few kilobytes; anything far larger is the wrong file (`--policy dump.sql`), or a text
 * someone else wrote to fill the heap (a plan's copy of its policy): refused by its size, never parsed.
 * Files and repository policies are refused at this size before they are read, too (lib/config).
 */
export const MAX_POLICY_BYTES = 1024 * 1024;

/**
 * Parses and validates a policy file's text; throws PolicyError naming `source` and every problem.
 * `origin` is where the text came from (default: the file `source`), recorded with its SHA-256.
 */
export function parsePolicy(text: string, source: string, origin: PolicyOrigin = { source: "file", path: source }): Policy {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_POLICY_BYTES) throw new PolicyError(source, [{ path: "", message: `the policy is ${formatBytes(bytes)}, more than a policy's limit of ${formatBytes(MAX_POLICY_BYTES)}: is it the right file?` }]);
  const lineCounter = new LineCounter();
  // YAML 1.2 core schema (the default): `2027-01-01` stays a string, `no` stays a string. A timestamp
  // (`%YAML 1.1`, or `!!timestamp`) stays its text too (timestampsAsText).
  // Keys written twice are found below, not by the yaml package, which compares each key with every earlier
  // one: 40,000 keys took 13 s to refuse, a 1 MiB file minutes, on every run.
  const doc = parseDocument(text, { ...POLICY_PARSE_OPTIONS, lineCounter, prettyErrors: false });
  const named = aliasTargets(doc);
  const refuse = (problems: YamlProblem[]) => new PolicyError(source, problems.map((problem) => yamlIssue(problem, text, lineCounter)));
  const yamlProblems = [...doc.errors, ...doc.warnings, ...notAsWritten(doc, text, named)];
  if (yamlProblems.length > 0) throw refuse(yamlProblems);
  let data: unknown;
  try {
    data = doc.toJS();
  } catch (error) {
    // e.g. an alias bomb exceeding the yaml package's alias limit
    throw new PolicyError(source, [{ path: "", message: redactThenCut((error as Error).message, MAX_LINE_CHARS) }]);
  }
  // Once the yaml package has merged (its alias limit refuses a merge bomb): the keys walked are then no more than it copied.
  const mergedTwice = keysMergedTwice(doc, named);
  if (mergedTwice.length > 0) throw refuse(mergedTwice);
  // A file that is not YAML mappings at all (a .env, a dump) parses as one text: described, never quoted.
  if (typeof data === "string") {
    throw new PolicyError(source, [{ path: "", message: `expected a mapping, got a text of ${data.length} characters (is it a policy file?)` }]);
  }
  const result = policySchema.safeParse(data, { error: issueMessage });
  if (!result.success) throw new PolicyError(source, result.error.issues.flatMap(policyIssues));
  return { ...result.data, text, source: { ...origin, sha256: policySha256(text) } };
}

const TIMESTAMP_AS_TEXT: ScalarTag = { tag: "tag:yaml.org,2002:timestamp", resolve: (text) => text };

/**
 * The yaml package reads a timestamp as a Date, which rolls an impossible day over (2027-02-30 is
 * March 2) and moves a time with a zone to another UTC day: the schema could no longer judge the day
 * the file names. Kept as its text, a timestamp is judged as a plain date is. Not a default tag, so
 * only `!!timestamp` names it; an untagged date is a string in YAML 1.1 as in 1.2.
 */
function timestampsAsText(tags: Tags): Tags {
  return [...tags.filter((tag) => typeof tag === "string" || tag.tag !== TIMESTAMP_AS_TEXT.tag), TIMESTAMP_AS_TEXT];
}

/** How Warden reads a policy's YAML: what else reads a policy to judge its meaning (an edit's check) reads it so too. */
export const POLICY_PARSE_OPTIONS = { customTags: timestampsAsText, uniqueKeys: false } as const;

/** A size as a person reads it: bytes below a MiB, else MiB to one place. */
export function formatBytes(bytes: number): string {
  return bytes < 1024 * 1024 ? `${bytes} bytes` : `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** The SHA-256 of a policy's text, hex: the identity reports and plan files record. */
export function policySha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * A problem's position and the one line it is on, cut: the file may not be a policy at all (a .env
 * given by mistake), so nothing else of it is quoted.
 */
const MAX_LINE_CHARS = 120;

/** Collection tags the yaml package reads as something other than a mapping or a list of what they hold. */
const OTHER_COLLECTIONS = ["omap", "set", "pairs"].map((name) => `tag:yaml.org,2002:${name}`);

/** A number as the file should write one: decimal, no leading zero (`.inf` and `.nan` the schema names itself). */
const DECIMAL = /^[-+]?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$|^[-+]?\.(?:inf|Inf|INF)$|^\.(?:nan|NaN|NAN)$/;

/**
 * What the file writes otherwise than it is read, in one pass: a key a mapping has already (as the yaml
 * package words it: scalars by type and value), and a number not in decimal, which YAML reads in another
 * base (`0x7B`, `0o173`; under `%YAML 1.1`, `010` as 8 and `1:30` as 90; `0123` as 123): a project's or a
 * user's id read so names another's, silently. Keys two merge keys bring in are found once merged (keysMergedTwice).
 */
function notAsWritten(doc: Document, text: string, named: AliasTargets): YamlProblem[] {
  const problems: YamlProblem[] = [];
  // `!!omap` and `!!set` (known to the yaml package without `%YAML 1.1` too) read as a JS Map or Set, whose
  // entries the schema never sees: `guard: !!omap [{maxRemovals: 3}]` was its defaults, 25 removals.
  const collection = (node: { tag?: string | undefined; range?: [number, number, number] | null | undefined }) => {
    if (node.tag !== undefined && OTHER_COLLECTIONS.includes(node.tag)) problems.push({ message: `${node.tag.replace("tag:yaml.org,2002:", "!!")} is not a plain mapping or list, and Warden would not read what it holds: remove the tag`, pos: position(node) });
  };
  visit(doc, {
    Seq: (_, seq) => collection(seq),
    Map(_, map) {
      collection(map);
      const seen = new Set<string>();
      for (const { key: written } of map.items) {
        const id = keyId(written, named);
        if (typeof id !== "string") continue;
        if (seen.has(id)) problems.push({ message: "Map keys must be unique", pos: position(written) });
        seen.add(id);
      }
    },
    Scalar(_, scalar) {
      if (typeof scalar.value !== "number" || !scalar.range) return;
      const written = text.slice(scalar.range[0], scalar.range[1]);
      if (!DECIMAL.test(written)) problems.push({ message: `${redactThenCut(written, 40)} is read by YAML as the number ${scalar.value}: write it in decimal, without a leading zero (or quote it, if it is a name)`, pos: scalar.range.slice(0, 2) as [number, number] });
    },
  });
  return problems;
}

function yamlIssue(problem: YamlProblem, text: string, lineCounter: LineCounter): PolicyIssue {
  const { line, col } = lineCounter.linePos(problem.pos[0]);
  const start = lineCounter.lineStarts[line - 1] ?? 0;
  const end = text.indexOf("\n", start);
  const content = text.slice(start, end < 0 ? undefined : end).replace(/\r$/, "");
  return { path: "", message: `line ${line}, column ${col}: ${redactThenCut(problem.message, MAX_LINE_CHARS)}; the line: ${redactThenCut(content, MAX_LINE_CHARS)}` };
}

/** Messages in the policy's terms (YAML mappings and lists) for issues the schemas leave to zod. */
function issueMessage(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined ? "required" : `expected ${describeType(issue.expected)}, got ${describeValue(issue.input)}`;
    case "invalid_value":
      return issue.input === undefined
        ? "required"
        : `expected ${oneOf(issue.values.map(String))}, got ${describeValue(issue.input)}`;
    case "unrecognized_keys":
      // policyIssues turns this into one "unknown field" issue per key.
      return issue.inst instanceof z.ZodObject ? `expected ${oneOf(Object.keys(issue.inst.shape))}` : undefined;
    case "too_small":
      return issue.origin === "array" ? "must not be empty" : undefined;
    default:
      return undefined;
  }
}

const TYPE_NAMES: Record<string, string> = { object: "a mapping", array: "a list", string: "a string", int: "an integer" };

function describeType(type: string): string {
  return TYPE_NAMES[type] ?? `a ${type}`;
}

/** Values are quoted in messages only this far. */
const MAX_VALUE_CHARS = 40;

function describeValue(value: unknown): string {
  if (value === null) return "an empty value";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string" && /[\r\n]/.test(value)) return `a text of ${value.split(/\r?\n/).length} lines`;
  return redactThenCut(quoteValue(value), MAX_VALUE_CHARS);
}

function policyIssues(issue: z.core.$ZodIssue): PolicyIssue[] {
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => ({
      path: formatPath([...issue.path, key]),
      message: `unknown field (${issue.message})`,
    }));
  }
  return [{ path: formatPath(issue.path), message: issue.message }];
}

/** ["gitlab", "shares", "allow", 2, "maxAccess"] -> "gitlab.shares.allow[2].maxAccess" */
function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (out, key) => (typeof key === "number" ? `${out}[${key}]` : out === "" ? String(key) : `${out}.${String(key)}`),
    "",
  );
}
