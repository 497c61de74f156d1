/**
 * CI configuration read as GitLab reads it, for the files Warden reads itself (ci-walk.ts): Psych's YAML
 * 1.1 (`yes` is true, `<<` merge keys merged as Psych merges them, a key written twice taken last), a
 * file with inputs as its `spec:` header and the configuration after `---`, then `extends:` and
 * `!reference` tags resolved, in that order, over the whole configuration of a pipeline, as GitLab
 * resolves them before it makes any job. A trigger, an
 * include or the variables a trigger passes on may come by any of these; read otherwise, they would not
 * be judged.
 */
import { isAlias, isMap, isScalar, isSeq, parseAllDocuments, type Document } from "yaml";

export type Mapping = Record<string, unknown>;
export const isMapping = (v: unknown): v is Mapping => typeof v === "object" && v !== null && !Array.isArray(v);

/** YAML that could not be read, and the parser's first word on why. */
export class Unreadable {
  readonly error: string;
  constructor(error: string) {
    this.error = error;
  }
}

/** A `!reference [path…]` not resolved yet: a string no CI file writes. */
const REFERENCE = "\u0000!reference";
const referenceOf = (v: unknown): string[] | undefined => (typeof v === "string" && v.startsWith(REFERENCE) ? (JSON.parse(v.slice(REFERENCE.length)) as string[]) : undefined);

/** One CI file's configuration, or why it cannot be read. A file the parser finds errors in is not judged by what was left of it. */
export function readYaml(text: string): Mapping | Unreadable {
  // Merge keys are Warden's to read (psychValue), as Psych reads them, not the parser's.
  const docs = parseAllDocuments(text, { version: "1.1", merge: false, uniqueKeys: false, logLevel: "silent" });
  if (!Array.isArray(docs)) return {};
  const error = docs.flatMap((d) => d.errors)[0];
  if (error) return new Unreadable(error.message.split("\n")[0]!);
  try {
    const values = docs.map((doc) => psychValue(doc.contents, doc, { values: 0 }, 0));
    const [first] = values;
    const config = values.length === 2 && isMapping(first) && Object.keys(first).length === 1 && "spec" in first ? values[1] : values.length === 1 ? first : undefined;
    if (config === undefined) return new Unreadable(`${docs.length} YAML documents, where GitLab reads one (or a spec: header and one)`);
    const value = plainKeys(config);
    return isMapping(value) ? value : {};
  } catch (err) {
    return new Unreadable((err as Error).message);
  }
}

const STR = "tag:yaml.org,2002:str";

/**
 * A node's value as Psych builds it. A merge key is any `<<` not tagged `!!str`, quoted too; its mapping
 * (or, of a sequence of them, the first to name a key) overwrites what the mapping set before it, and what
 * comes after overwrites it; a key written twice takes its last value. A `!reference [a, b]` becomes a
 * marker, resolved once the pipeline's files are merged (resolved()). Aliases are expanded as they are
 * met, within the same bound on values a resolved configuration has.
 */
function psychValue(node: unknown, doc: Document, budget: { values: number }, depth: number): unknown {
  if (++budget.values > MAX_VALUES || depth > 200) throw new Error(`more than ${MAX_VALUES} values once its aliases are expanded, or nested too deep`);
  if (isAlias(node)) return psychValue(node.resolve(doc), doc, budget, depth + 1);
  if (isSeq(node)) {
    if (node.tag === "!reference") {
      if (node.items.length > 0 && node.items.every(isScalar)) return REFERENCE + JSON.stringify(node.items.map((i) => String(i.value)));
      throw new Error("a !reference that is not a list of names");
    }
    return node.items.map((item) => psychValue(item, doc, budget, depth + 1));
  }
  if (isMap(node)) {
    const out: Mapping = {};
    for (const pair of node.items) {
      // The parser gives a plain `<<` as its merge symbol, a quoted one as the string: Psych merges both, not `!!str <<`.
      const merge = isScalar(pair.key) && (typeof pair.key.value === "symbol" || pair.key.value === "<<") && pair.key.tag !== STR;
      const key = isScalar(pair.key) ? String(pair.key.value) : JSON.stringify(psychValue(pair.key, doc, budget, depth + 1));
      const value = psychValue(pair.value, doc, budget, depth + 1);
      if (merge) {
        for (const merged of (Array.isArray(value) ? [...value].reverse() : [value]).filter(isMapping)) for (const [k, v] of Object.entries(merged)) setKey(out, k, v);
      } else {
        delete out[key];
        setKey(out, key, value);
      }
    }
    return out;
  }
  return isScalar(node) ? node.toJS(doc) : null;
}

/**
 * The keys whose values Warden's walk judges (ci-walk.ts, ci-refs.ts): what a key an input writes must not
 * become, unseen. A job's name is none of them.
 */
const JUDGED_KEYS = [
  "include", "trigger", "project", "file", "ref", "component", "local", "remote", "template", "artifact", "job", "inputs", "rules",
  "variables", "workflow", "extends", "needs", "pipeline", "branch", "strategy", "forward", "inherit", "parallel", "matrix", "spec",
  "yaml_variables", "pipeline_variables",
];

/**
 * The first key, at any depth, that an input writes (`$[[ inputs.x ]]`) and that may become a key the walk
 * judges: GitLab interpolates keys too, so `$[[ inputs.how ]]:` may be `trigger:` when the pipeline runs,
 * which no walk of the file as written sees. A key whose own text rules that out is let be: a job named
 * `"$[[ inputs.prefix ]]-deploy"` (GitLab's own idiom for components) can only ever be a job's name.
 */
export function inputKey(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.map(inputKey).find((key) => key !== undefined);
  if (!isMapping(value)) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const found = mayBecomeJudged(key) ? key : inputKey(inner);
    if (found !== undefined) return found;
  }
  return undefined;
}

function mayBecomeJudged(key: string): boolean {
  if (!key.includes("$[[")) return false;
  // Each input's place stands for any text; the rest must be as written.
  const shape = new RegExp(`^${key.split(/\$\[\[.*?\]\]/s).map((part) => part.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&")).join(".*")}$`, "s");
  // An interpolation not closed (`$[[` alone) is judged as one that may be anything.
  return JUDGED_KEYS.some((judged) => shape.test(judged)) || !/\]\]/.test(key.slice(key.indexOf("$[[")));
}

/** A YAML document with Ruby's symbol keys (`:job`, as GitLab's merged_yaml writes them) read as written. */
export function plainKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plainKeys);
  if (!isMapping(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.startsWith(":") ? k.slice(1) : k, plainKeys(v)]));
}

/** GitLab's deep_merge: mappings merged key by key, anything else taken from `over`. */
export function deepMerge(base: Mapping, over: Mapping): Mapping {
  const out: Mapping = { ...base };
  for (const [key, value] of Object.entries(over)) setKey(out, key, isMapping(out[key]) && isMapping(value) && Object.hasOwn(out, key) ? deepMerge(out[key] as Mapping, value) : value);
  return out;
}

/**
 * `out[key] = value`, a key of its own whatever its name: assigned, a key `__proto__` (a job GitLab
 * runs, named so) would set the object's prototype instead, and every key under it (a `trigger:`, an
 * `include:`) would be out of the walk's sight while GitLab runs it.
 */
function setKey(out: Mapping, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/** GitLab's limits: `!reference` nests 10 deep, `extends` 11. */
const MAX_NESTING = 11;
/** The most values a resolved configuration holds: a file of a few KB whose references fan out must not fill the heap. */
const MAX_VALUES = 200_000;

/**
 * A pipeline's merged configuration with `extends:` resolved, then its `!reference` tags (GitLab's order),
 * or why not (a cycle, too deep, too large). A job that extends one the configuration does not hold keeps
 * those names in `extends` (GitLab would refuse it, or they are in files Warden did not read); a reference
 * to nothing here stays a marker (isUnresolved, unresolvedIn).
 */
export function resolved(config: Mapping): Mapping | Unreadable {
  try {
    const budget = { values: 0 };
    const extendedJobs = new Map<string, Mapping>();
    const withExtends = Object.fromEntries(Object.entries(config).map(([name, job]) => [name, isMapping(job) ? extended(config, name, job, extendedJobs, 0, budget) : job]));
    budget.values = 0;
    const cache = new Map<string, unknown>();
    return resolveReferences(withExtends, withExtends, 0, cache, budget) as Mapping;
  } catch (err) {
    return new Unreadable((err as Error).message);
  }
}

/** Whether a value is a `!reference` that names nothing the configuration holds. */
export const isUnresolved = (v: unknown) => referenceOf(v) !== undefined;
/** Whether a value holds such a reference anywhere. */
export const unresolvedIn = (v: unknown) => JSON.stringify(v)?.includes(JSON.stringify(REFERENCE).slice(1, -1)) === true;

function resolveReferences(value: unknown, root: Mapping, depth: number, cache: Map<string, unknown>, budget: { values: number }): unknown {
  if (++budget.values > MAX_VALUES) throw new Error(`more than ${MAX_VALUES} values once its !reference tags are resolved`);
  const path = referenceOf(value);
  if (path) {
    if (depth >= MAX_NESTING) throw new Error(`!reference nested more than ${MAX_NESTING - 1} deep`);
    const key = JSON.stringify(path);
    if (cache.has(key)) return cache.get(key);
    const target = path.reduce<unknown>((at, name) => (isMapping(at) ? at[name] : undefined), root);
    const result = target === undefined ? value : resolveReferences(target, root, depth + 1, cache, budget);
    cache.set(key, result);
    return result;
  }
  if (Array.isArray(value)) return value.map((v) => resolveReferences(v, root, depth, cache, budget));
  if (!isMapping(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveReferences(v, root, depth, cache, budget)]));
}

function extended(config: Mapping, name: string, job: Mapping, done: Map<string, Mapping>, depth: number, budget: { values: number }): Mapping {
  const known = done.get(name);
  if (known) return known;
  if (++budget.values > MAX_VALUES) throw new Error(`more than ${MAX_VALUES} jobs extended`);
  const { extends: bases, ...own } = job;
  if (bases === undefined) return job;
  if (depth >= MAX_NESTING) throw new Error(`extends: nested more than ${MAX_NESTING - 1} deep (or a cycle)`);
  let merged: Mapping = {};
  const missing: string[] = [];
  for (const base of Array.isArray(bases) ? bases : [bases]) {
    const found = typeof base === "string" ? config[base] : undefined;
    if (isMapping(found)) merged = deepMerge(merged, extended(config, base as string, found, done, depth + 1, budget));
    else missing.push(String(base));
  }
  const result = deepMerge(merged, { ...own, ...(missing.length && { extends: missing }) });
  done.set(name, result);
  return result;
}
