/**
 * Globs over slash-separated paths, matched segment by segment:
 * `*` matches within one segment, `?` one character within a segment, and `**`
 * (a whole segment) zero or more whole segments, so `acme/**` matches `acme`,
 * `acme/x` and `acme/x/y` but never `acme-ext/x`.
 *
 * "path" globs match GitLab group and project paths, case-insensitively as
 * GitLab does; "ref" globs match git branch and tag names, case-sensitively as
 * git does.
 */
export type GlobKind = "path" | "ref";

const INVALID_CHAR: Record<GlobKind, RegExp> = {
  // GitLab paths hold only letters, digits, `_`, `-` and `.`.
  path: /[^A-Za-z0-9_.\-*?]/,
  // What git forbids in ref names, less the wildcards.
  ref: /[\s\x00-\x1f\x7f~^:[\\]/,
};

const WHAT: Record<GlobKind, string> = { path: "a GitLab path", ref: "a git ref" };

/** Why `glob` is not a valid glob, or undefined when it is. */
export function globProblem(glob: string, kind: GlobKind = "path"): string | undefined {
  const problem = segmentsProblem(glob, kind);
  return problem === undefined ? undefined : `invalid glob ${JSON.stringify(glob)}: ${problem}`;
}

function segmentsProblem(glob: string, kind: GlobKind): string | undefined {
  if (glob === "") return "it is empty";
  if (glob.startsWith("/") || glob.endsWith("/")) return "it must not start or end with /";
  for (const segment of glob.split("/")) {
    if (segment === "") return "it has an empty segment (//)";
    if (segment.includes("**") && segment !== "**") return "** must be a whole segment";
    // A literal one would be looked up (lib/jobs/shares/literal-rules.ts) as `/namespaces/.`: `/namespaces/`, a listing.
    if (kind === "path" && (segment === "." || segment === "..")) return 'a part of it is "." or "..", which no GitLab path is';
    const bad = INVALID_CHAR[kind].exec(segment);
    if (bad) return `${JSON.stringify(bad[0])} cannot appear in ${WHAT[kind]}`;
  }
  return undefined;
}

/** Why `path` is not a plain group path (no wildcards), or undefined when it is. */
export function groupPathProblem(path: string): string | undefined {
  return plainPathProblem(path, "group path");
}

/**
 * Why `path` is not a plain GitLab path (no wildcards) of a group or project, or undefined when it is.
 * Whoever sends a command writes it: one no GitLab path can be is refused before it is quoted or sent,
 * a path too long for any GitLab without quoting it (a reply must not carry kilobytes of the sender's
 * text), and "." or ".." as a part, which the request's URL would resolve to another endpoint
 * (`/projects/.` is `/projects/`, every project's listing).
 */
export function plainPathProblem(path: string, what: "group path" | "project path"): string | undefined {
  if (Buffer.byteLength(path) > MAX_PATH_BYTES || path.split("/").some((part) => Buffer.byteLength(part) > MAX_PART_BYTES)) {
    return `invalid ${what}: it is ${Buffer.byteLength(path)} bytes long, and a GitLab path's part between slashes is at most ${MAX_PART_BYTES} bytes, the whole at most ${MAX_PATH_BYTES} here`;
  }
  const problem = /[*?]/.test(path)
    ? "wildcards are not allowed here"
    : path.split("/").some((part) => part === "." || part === "..")
      ? 'a part of it is "." or "..", which no GitLab path is'
      : segmentsProblem(path, "path");
  return problem === undefined ? undefined : `invalid ${what} ${JSON.stringify(path)}: ${problem}`;
}

/** GitLab's longest path part (a group's or project's path), and a bound on a whole path (20 levels of groups). */
const MAX_PART_BYTES = 255;
const MAX_PATH_BYTES = 4096;

/** Whether `ref` is a project's id, as GitLab numbers them (digits, no leading zero). */
export function isProjectId(ref: string): boolean {
  return /^[1-9][0-9]{0,15}$/.test(ref);
}

/** Why `ref` is neither a project's id nor its full path (plainPathProblem), or undefined. */
export function projectRefProblem(ref: string): string | undefined {
  if (isProjectId(ref)) return undefined;
  // GitLab takes any digits for an id, leading zeros and all: "0123" would name project 123. No project is 0.
  if (/^[0-9]+$/.test(ref)) {
    const id = ref.replace(/^0+/, "");
    const problem = id === "" ? "GitLab numbers projects from 1" : id.length > 16 ? "a project's id here has at most 16 digits" : `GitLab reads digits as the id ${id}; write it without a leading zero`;
    return `invalid project id "${ref.slice(0, 20)}": ${problem}`;
  }
  return plainPathProblem(ref, "project path");
}

/**
 * Whether a valid `glob` matches every path, as compileGlob matches (a path has a segment at least):
 * `**`, written once or more, beside at most one segment that matches any segment (`*`, `?*`, `*?*`).
 */
export function matchesEveryPath(glob: string): boolean {
  const segments = glob.split("/");
  const others = segments.filter((s) => s !== "**");
  // A segment matching any segment: some `*`, and one `?` at most (a segment has a character at least).
  return others.length < segments.length && others.length <= 1 && others.every((s) => s.includes("*") && /^\**\??\**$/.test(s));
}

/**
 * Compiles `glob` into a matcher; throws if the glob is invalid (see globProblem). A path or ref is
 * written by whoever sends a command, and a regular expression's backtracking over `a*-*-*` grows with
 * the cube of its length (seconds for a crafted ref): a glob with more than one `*` in a segment, or
 * more than one `**`, is matched segment by segment instead, each `*` by the greedy two-pointer walk,
 * which grows at most with the segment's length times the glob's.
 */
export function compileGlob(glob: string, kind: GlobKind = "path"): (path: string) => boolean {
  const problem = globProblem(glob, kind);
  if (problem !== undefined) throw new Error(problem);
  // Consecutive `**` mean the same as one.
  const segments = glob.split("/").filter((s, i, all) => !(s === "**" && all[i - 1] === "**"));
  if (segments.length === 1 && segments[0] === "**") return () => true;
  // A regular expression where its backtracking stays linear (one `*` a segment, one `**`), as most
  // globs are: it is many times faster than the walk below.
  const stars = (s: string) => s.split("*").length - 1;
  if (segments.every((s) => s === "**" || stars(s) <= 1) && segments.filter((s) => s === "**").length <= 1) {
    // Refs may hold any Unicode, so `?` must match a whole code point there.
    const regex = new RegExp(`^${globSource(segments)}$`, kind === "path" ? "i" : "u");
    return (path) => regex.test(path);
  }
  // GitLab paths compare case-insensitively (ASCII letters only: a path's other characters are never a
  // glob's), by UTF-16 unit as the expression does; in refs `?` takes a whole code point.
  const fold: (text: string) => ArrayLike<string> = kind === "path" ? asciiLower : (text) => Array.from(text);
  const folded = segments.map((s) => (s === "**" ? ANY : fold(s)));
  return (path) => pathMatches(folded, path.split("/").map(fold));
}

function globSource(segments: readonly string[]): string {
  let source = "";
  let separator = "";
  for (const [i, segment] of segments.entries()) {
    if (segment !== "**") {
      source += separator + segmentSource(segment);
      separator = "/";
    } else if (i === 0) {
      // Leading `**`: zero or more segments, each carrying its own trailing slash.
      source += "(?:[^/]+/)*";
    } else {
      // Later `**`: zero or more segments, each carrying its own leading slash.
      source += "(?:/[^/]+)*";
    }
  }
  return source;
}

function segmentSource(segment: string): string {
  let source = "";
  for (const char of segment) {
    if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[.*+?^${}()|[\]\\]/, "\\$&");
  }
  return source;
}

const ANY = Symbol("**");

/** Lower case for ASCII letters alone: "\u212A" (Kelvin) must not fold to a glob's "k". */
const asciiLower = (text: string): string => (/^[\x00-\x7f]*$/.test(text) ? text.toLowerCase() : text.replace(/[A-Z]+/g, (run) => run.toLowerCase()));

/** Whether the glob's segments match the path's: `**` takes zero or more non-empty segments, any other one segment. */
function pathMatches(glob: readonly (ArrayLike<string> | typeof ANY)[], path: readonly ArrayLike<string>[]): boolean {
  // matched[p]: whether glob segments from g on match path segments from p on (filled from the end).
  let matched = path.map(() => false).concat(true);
  for (let g = glob.length - 1; g >= 0; g--) {
    const segment = glob[g]!;
    const next = new Array<boolean>(path.length + 1).fill(false);
    for (let p = path.length; p >= 0; p--) {
      next[p] = segment === ANY ? matched[p]! || (p < path.length && path[p]!.length > 0 && next[p + 1]!) : p < path.length && matched[p + 1]! && segmentMatches(segment, path[p]!);
    }
    matched = next;
  }
  return matched[0]!;
}

/** One segment: `*` any run of characters, `?` one; the last `*` is widened one character at a time. */
function segmentMatches(pattern: ArrayLike<string>, text: ArrayLike<string>): boolean {
  let [i, j, star, mark] = [0, 0, -1, 0];
  while (i < text.length) {
    if (j < pattern.length && (pattern[j] === "?" || pattern[j] === text[i])) [i, j] = [i + 1, j + 1];
    else if (j < pattern.length && pattern[j] === "*") [star, mark, j] = [j, i, j + 1];
    else if (star >= 0) [mark, i, j] = [mark + 1, mark + 1, star + 1];
    else return false;
  }
  while (pattern[j] === "*") j++;
  return j === pattern.length;
}
