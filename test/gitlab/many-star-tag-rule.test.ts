/**
 * lib/gitlab/protected-tags.ts matched a protected-tag rule against the tag with a RegExp of `.*?` for
 * each `*`. A rule is a name any Maintainer writes (up to 255 characters), and the tag one they (or a
 * Developer, under a Maintainers-only rule `a*`) create: a rule of k stars that cannot match backtracked on
 * the order of n^k steps on a tag of n characters (9 s for a 16-character rule on a 60-character tag), and
 * synchronously, so no deadline or signal ended it. The rule is matched without backtracking now
 * (lib/gitlab/wildcard.ts).
 */
import { expect, it } from "vitest";
import { developerTagRule, GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { json, serve } from "../support/server.ts";

it("checking a protected tag against a Maintainer's many-star protected-tag rule takes no time that grows with the stars", async () => {
  const rules = [
    { name: "a*", create_access_levels: [{ access_level: 40 }] },
    { name: `${"*a".repeat(6)}*b`, create_access_levels: [{ access_level: 40 }] },
  ];
  const s = await serve((_req, res) => json(res, 200, rules, { link: "", "x-total": "2", "x-total-pages": "1", "x-next-page": "" }));
  const gitlab = new GitLabClient({ url: s.url, token: "glpat-many-star-tag-rule-0123456", limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  const tag = "a".repeat(60);
  const started = performance.now();
  const rule = await developerTagRule(gitlab, 1, tag);
  const took = performance.now() - started;
  expect(rule).toBeUndefined();
  // Two rules, one page: a linear matcher takes well under a millisecond; the RegExp takes over a second.
  expect(took, `developerTagRule took ${Math.round(took)} ms`).toBeLessThan(250);
}, 60_000);

it("a Developers' wildcard rule is still found as GitLab's RefMatcher reads it: each `*` any run, `/` too", async () => {
  const rules = [
    { name: "v*-rc*", create_access_levels: [{ access_level: 40 }] },
    { name: "release/*.*", create_access_levels: [{ access_level: 30 }] },
  ];
  const s = await serve((_req, res) => json(res, 200, rules, { link: "", "x-total": "2", "x-total-pages": "1", "x-next-page": "" }));
  const gitlab = new GitLabClient({ url: s.url, token: "glpat-many-star-tag-rule-0123456", limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  expect(await developerTagRule(gitlab, 1, "release/eu/1.2")).toBe("release/*.*");
  expect(await developerTagRule(gitlab, 1, "release/1")).toBeUndefined();
  expect(await developerTagRule(gitlab, 1, "v1-rc2")).toBeUndefined();
});
