/**
 * A local include's path with wildcards or variables (lib/jobs/pipeline/ci-refs.ts pattern()) is tested
 * against each file GitLab's CI Lint lists as included. It was a RegExp of `[^/]*` and `.*` pieces: a CI
 * file's author who writes `ci/*a*a*a*a*a*a*b.yml` and a file of 60 `a`s held the event loop 7.6 s, each
 * star more multiplying that, with no deadline to end it. It is matched without backtracking now, taking
 * the same files as before.
 */
import { describe, expect, it } from "vitest";
import { pattern } from "../../../lib/jobs/pipeline/ci-refs.ts";

describe("a local include's wildcards and variables", () => {
  it.each([
    ["ci/*.yml", "ci/deploy.yml", true],
    // `*` stays within a folder; `**` crosses them.
    ["ci/*.yml", "ci/eu/deploy.yml", false],
    ["ci/**.yml", "ci/eu/deploy.yml", true],
    ["ci/**/*.yml", "ci/eu/west/deploy.yml", true],
    // A variable or an input is anything, folders included.
    ["ci/$DEPLOY_ENV.yml", "ci/eu/prod.yml", true],
    ["ci/${DEPLOY_ENV}/x.yml", "ci/prod/x.yml", true],
    ["ci/%DEPLOY_ENV%.yml", "ci/prod.yml", true],
    ["$[[ inputs.next ]]", "ci/next.yml", true],
    // The rest is literal text: `.` is a dot.
    ["ci/*.yml", "ci/deployxyml", false],
    ["ci/a+b.yml", "ci/aab.yml", false],
    ["ci/*.yml", "xci/deploy.yml", false],
  ])("%s against %s: %s", (path, file, taken) => {
    expect(pattern(path).test(file)).toBe(taken);
  });

  it("a path of many stars that cannot match a long file name is judged at once", () => {
    const started = performance.now();
    expect(pattern(`ci/${"*a".repeat(6)}*b.yml`).test(`ci/${"a".repeat(60)}.yml`)).toBe(false);
    expect(pattern(`${"**a".repeat(6)}**b`).test("a/".repeat(30))).toBe(false);
    const took = performance.now() - started;
    // Well under a millisecond now; the RegExp took 7.6 s.
    expect(took, `took ${Math.round(took)} ms`).toBeLessThan(250);
  });

  it("a path of 100,000 characters of stars (its author's choice), tested against the 150 files a lint may list, is judged in well under a second", () => {
    // Each place of the pattern was stepped through for each character of each file: 4.6 to 8 s here.
    const path = `ci/${"*a".repeat(50_000)}.yml`;
    const files = Array.from({ length: 150 }, (_, i) => `ci/jobs/build-${i}-${"a".repeat(16)}.yml`);
    const started = performance.now();
    const matches = pattern(path);
    expect(files.filter((file) => matches.test(file))).toEqual([]);
    const took = performance.now() - started;
    expect(took, `took ${Math.round(took)} ms`).toBeLessThan(500);
  });
});
