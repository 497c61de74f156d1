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
    const bad = INVALID_CHAR[kind].exec(segment);
    if (bad) return `${JSON.stringify(bad[0])} cannot appear in ${WHAT[kind]}`;
  }
  return undefined;
}

/** Why `path` is not a plain group path (no wildcards), or undefined when it is. */
export function groupPathProblem(path: string): string | undefined {
  return plainPathProblem(path, "group path");
}

/** Why `path` is not a plain GitLab path (no wildcards) of a group or project, or undefined when it is. */
export function plainPathProblem(path: string, what: "group path" | "project path"): string | undefined {
  const problem = /[*?]/.test(path) ? "wildcards are not allowed here" : segmentsProblem(path, "path");
  return problem === undefined ? undefined : `invalid ${what} ${JSON.stringify(path)}: ${problem}`;
}

/** Compiles `glob` into a matcher; throws if the glob is invalid (see globProblem). */
export function compileGlob(glob: string, kind: GlobKind = "path"): (path: string) => boolean {
  const problem = globProblem(glob, kind);
  if (problem !== undefined) throw new Error(problem);
  // Refs may hold any Unicode, so `?` must match a whole code point there.
  const regex = new RegExp(`^${globSource(glob)}$`, kind === "path" ? "i" : "u");
  return (path) => regex.test(path);
}

function globSource(glob: string): string {
  // Consecutive `**` mean the same as one; collapsing them keeps the rules below simple.
  const segments = glob.split("/").filter((s, i, all) => !(s === "**" && all[i - 1] === "**"));
  if (segments.length === 1 && segments[0] === "**") return ".*";
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
