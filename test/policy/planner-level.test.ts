/**
 * maxAccess compared access levels as numbers (lib/policy/shares.ts), as if every level held all the
 * permissions of the levels below it. GitLab's Planner (15, GitLab 17.7) breaks that order: "we can't
 * consider permissions to be linear anymore because the Reporter role doesn't inherit from the Planner
 * role" (gitlab-org/gitlab!169256; a Planner may edit group wiki pages and delete issues, which a
 * Reporter may not). A share at Planner passed `maxAccess: reporter` (the worlds review's finding).
 * It is within planner and owner only now (lib/policy/access-levels.ts, levelWithin).
 */
import { describe, expect, it } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { enforce } from "../../lib/jobs/index.ts";
import { evaluateShare, parsePolicy } from "../../lib/policy/index.ts";
import type { GitLabDataset } from "../../sim/gitlab/index.ts";
import { startSim } from "../support/enforce-world.ts";
import { validated } from "../support/report.ts";
import { shareWith, simGroup, simProject } from "../support/tiny-world.ts";

const PLANNER = 15;
const NOW = new Date("2026-03-10T12:00:00Z");
const POLICY = `version: 1
gitlab:
  scope: { groups: [acme] }
  shares:
    allow:
      - group: "acme/**"
      - group: "partners/auditors"
        maxAccess: reporter
  guard: { maxRemovals: 25 }
`;

describe("a share at Planner under maxAccess reporter", () => {
  it("is judged stray: Planner holds permissions Reporter does not", () => {
    const policy = parsePolicy(POLICY, "review.yaml");
    const judged = (accessLevel: number) =>
      evaluateShare(policy, { kind: "project", target: "acme/docs", groupPath: "partners/auditors", accessLevel, expiresAt: null }, NOW).kind;
    // Control: Guest and Reporter are within the rule.
    expect([judged(10), judged(20)]).toEqual(["allowed", "allowed"]);
    expect(judged(PLANNER)).toBe("stray");
  });

  it("a project share and a group share at Planner are planned for removal", async () => {
    const [acme, docs, partners, auditors] = [simGroup(10, "acme", null), simGroup(11, "acme/docs", 10), simGroup(20, "partners", null), simGroup(21, "partners/auditors", 20)];
    docs.shared_with_groups.push(shareWith(auditors, PLANNER));
    const dataset: GitLabDataset = { groups: [acme, docs, partners, auditors], users: [], projects: [simProject(100, docs, "handbook", [shareWith(auditors, PLANNER), shareWith(docs, 30)])] };
    const sim = await startSim({ dataset });
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
    const report = await validated(enforce({ gitlab, policy: parsePolicy(POLICY, "review.yaml"), now: NOW }));
    // Before: both were counted allowed by allow[1], and the dry run said the scope is in policy.
    expect(report.actions.map((a) => `${a.kind}:${a.group}:${a.accessLevel}`).sort()).toEqual(["group:partners/auditors:15", "project:partners/auditors:15"]);
  });
});

describe("maxAccess: planner, and the other levels with Planner", () => {
  const under = (max: string, accessLevel: number) =>
    evaluateShare(parsePolicy(POLICY.replace("maxAccess: reporter", `maxAccess: ${max}`), "p.yaml"), { kind: "project", target: "acme/docs", groupPath: "partners/auditors", accessLevel, expiresAt: null }, NOW).kind;

  it.each([
    ["planner", [10, 15], [20, 30]],
    ["developer", [10, 20, 30], [15, 40]],
    ["maintainer", [10, 20, 30, 40], [15, 50]],
    ["owner", [10, 15, 20, 30, 40, 50], []],
  ])("maxAccess %s allows %j, not %j", (max, allowed, stray) => {
    expect(allowed.map((level) => under(max, level))).toEqual(allowed.map(() => "allowed"));
    expect(stray.map((level) => under(max, level))).toEqual(stray.map(() => "stray"));
  });
});
