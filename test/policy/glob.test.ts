import { describe, expect, it } from "vitest";
import { matchesEveryPath } from "../../lib/policy/glob.ts";
import { compileGlob, globProblem, plainPathProblem } from "../../lib/policy/index.ts";

describe("compileGlob (GitLab paths)", () => {
  it.each([
    // literal paths, any case
    ["acme/web", "acme/web", true],
    ["acme/web", "ACME/Web", true],
    ["ACME/Web", "acme/web", true],
    ["acme/web", "acme/web2", false],
    ["acme/web", "acme", false],
    ["acme", "acme/web", false],
    // `*` within one segment
    ["acme/*", "acme/web", true],
    ["acme/*", "acme/web/api", false],
    ["acme/*", "acme", false],
    ["acme/web-*", "acme/web-shop", true],
    ["acme/web-*", "acme/web-", true],
    ["acme/web-*", "acme/api-web", false],
    ["acme/*-api", "acme/shop-api", true],
    ["*/web", "acme/web", true],
    ["*/web", "acme/x/web", false],
    // `?` is one character within a segment
    ["acme/v?", "acme/v2", true],
    ["acme/v?", "acme/v10", false],
    ["acme/v?", "acme/v", false],
    ["acme?web", "acme/web", false],
    // `**` at the end: zero or more segments
    ["acme/**", "acme", true],
    ["acme/**", "acme/x", true],
    ["acme/**", "acme/x/y/z", true],
    ["acme/**", "ACME/X", true],
    ["acme/**", "acme-ext", false],
    ["acme/**", "acme-ext/x", false],
    ["acme/**", "acmex/x", false],
    ["acme/**", "other/acme/x", false],
    // `**` at the start
    ["**/web", "web", true],
    ["**/web", "acme/web", true],
    ["**/web", "acme/a/b/web", true],
    ["**/web", "acme/webshop", false],
    ["**/web", "acme/my-web", false],
    // `**` in the middle
    ["acme/**/api", "acme/api", true],
    ["acme/**/api", "acme/x/api", true],
    ["acme/**/api", "acme/x/y/api", true],
    ["acme/**/api", "acme/xapi", false],
    ["acme/**/api", "acme-ext/x/api", false],
    ["acme/**/**/api", "acme/x/api", true],
    // `**` alone matches everything
    ["**", "acme", true],
    ["**", "acme/x/y", true],
    // dots, dashes, underscores, digits and capitals are ordinary characters
    ["acme/my.site_v2-Final", "acme/my.site_v2-final", true],
    ["acme/my.site", "acme/myxsite", false],
    ["acme/a_b/*.io", "acme/A_B/docs.io", true],
    ["partners/contractor-x", "partners/contractor-x", true],
    ["partners/contractor-x", "partners/contractor-y", false],
    // more than one `*` in a segment, or more than one `**`: matched segment by segment, not by a regular expression
    ["acme/*-*-api", "acme/a-b-api", true],
    ["acme/*-*-api", "ACME/X-Y-API", true],
    ["acme/*-*-api", "acme/a-api", false],
    ["acme/*-*-api", "acme/a-b-api/x", false],
    ["acme/*-*", "acme/--", true],
    ["a?*?", "ab", false],
    ["a?*?", "abc", true],
    ["**/x/**", "x", true],
    ["**/x/**", "a/b/x/c/d", true],
    ["**/x/**", "a/b/c", false],
    ["a/**/b/**/c", "a/b/c", true],
    ["a/**/b/**/c", "a/q/b/r/s/c", true],
    ["a/**/b/**/c", "a/c", false],
    ["kcme/*-*", "\u212Acme/a-b", false],
  ])("%s matches %s: %s", (glob, path, expected) => {
    expect(compileGlob(glob)(path)).toBe(expected);
  });
});

describe("compileGlob (git refs)", () => {
  it.each([
    ["main", "main", true],
    ["main", "Main", false],
    ["release/*", "release/1.2", true],
    ["release/*", "release/1.2/hotfix", false],
    ["release/*", "release", false],
    ["release/**", "release/1.2/hotfix", true],
    ["feature/JIRA-*", "feature/JIRA-12+fix", true],
    ["v?.*", "v1.0", true],
    ["feature/caf?", "feature/café", true],
    ["feature/?", "feature/🚀", true],
    ["v*.*.*", "v1.2.3", true],
    ["v*.*.*", "v1.2", false],
    ["v*.*.*", "v1.2.3/x", false],
    ["x-*-?", "x-a-🚀", true],
    ["x-*-?", "X-a-b", false],
  ])("%s matches %s: %s", (glob, ref, expected) => {
    expect(compileGlob(glob, "ref")(ref)).toBe(expected);
  });
});

// A sharedWith every group matches means what no sharedWith means (restore, policy check): so each way to write it.
describe("matchesEveryPath", () => {
  const paths = ["a", "ab", "Acme/x", "a/b/c-d", "a.b/c_d/e/f/g"];
  it.each([
    ["**", true],
    ["**/**", true],
    ["*/**", true],
    ["**/*/**", true],
    ["**/?*", true],
    ["*?*/**/**", true],
    ["*", false],
    ["*/*/**", false],
    ["?/**", false],
    ["??*/**", false],
    ["**/a*", false],
    ["acme/**", false],
  ])("%s: %s, as compileGlob matches", (glob, every) => {
    expect(matchesEveryPath(glob)).toBe(every);
    expect(paths.every(compileGlob(glob))).toBe(every);
  });
});

describe("globProblem", () => {
  it.each([
    ["", 'invalid glob "": it is empty'],
    ["a//b", 'invalid glob "a//b": it has an empty segment (//)'],
    ["/acme", 'invalid glob "/acme": it must not start or end with /'],
    ["acme/", 'invalid glob "acme/": it must not start or end with /'],
    ["a**", 'invalid glob "a**": ** must be a whole segment'],
    ["acme/**x/y", 'invalid glob "acme/**x/y": ** must be a whole segment'],
    ["acme/***", 'invalid glob "acme/***": ** must be a whole segment'],
    ["acme/my project", 'invalid glob "acme/my project": " " cannot appear in a GitLab path'],
    ["acme/[ab]", 'invalid glob "acme/[ab]": "[" cannot appear in a GitLab path'],
    ["acme/ü", 'invalid glob "acme/ü": "ü" cannot appear in a GitLab path'],
  ])("rejects %j", (glob, problem) => {
    expect(globProblem(glob)).toBe(problem);
    expect(() => compileGlob(glob)).toThrow(problem);
  });

  it.each(["acme", "acme/**", "**/x", "a/*/b-?", "A_b.c-D"])("accepts %j", (glob) => {
    expect(globProblem(glob)).toBeUndefined();
  });

  it("checks refs against git's rules rather than GitLab's", () => {
    expect(globProblem("feature/a+b", "ref")).toBeUndefined();
    expect(globProblem("feature/a+b")).toBe('invalid glob "feature/a+b": "+" cannot appear in a GitLab path');
    expect(globProblem("feature/a:b", "ref")).toBe('invalid glob "feature/a:b": ":" cannot appear in a git ref');
  });
});

describe("compileGlob's cost (a path or ref is written by whoever sends a command)", () => {
  // A backtracking regular expression took seconds here: 3 to 5 s for the first, 51 s for the second.
  it.each([
    ["acme/*-*-*", `acme/${"-".repeat(4_000)}/x`, "path"],
    ["acme/*a*b*c*d*", `acme/${"ab".repeat(127)}`, "path"],
    ["v*.*.*", `v${".a".repeat(2_000)}/x`, "ref"],
    ["**/*-*-*/**", `${"a/".repeat(500)}${"a".repeat(2_000)}-`, "path"],
  ] as const)("%j against a crafted %# is judged at once", (glob, path, kind) => {
    const matches = compileGlob(glob, kind);
    const started = performance.now();
    expect(matches(path)).toBe(false);
    expect(performance.now() - started).toBeLessThan(250);
  });
});


describe("plainPathProblem: a path a command names", () => {
  // new URL() resolves dot segments: /projects/. would be /projects/, every project's listing.
  it.each([".", "..", "acme/..", "acme/./app"])("refuses %j, no GitLab path", (path) => {
    expect(plainPathProblem(path, "project path")).toBe(`invalid project path ${JSON.stringify(path)}: a part of it is "." or "..", which no GitLab path is`);
  });

  it("refuses a path longer than any GitLab's without quoting it", () => {
    const problem = plainPathProblem(`acme/${"a".repeat(256)}`, "group path")!;
    expect(problem).toBe("invalid group path: it is 261 bytes long, and a GitLab path's part between slashes is at most 255 bytes, the whole at most 4096 here");
    expect(plainPathProblem(`acme/${"a".repeat(255)}`, "group path")).toBeUndefined();
  });
});
