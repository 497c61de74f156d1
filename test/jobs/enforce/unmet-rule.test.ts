/**
 * A hostile review's finding (lib/policy/shares.ts, lib/jobs/enforce/slice.ts). The only share an allow
 * rule covers breaks the rule's condition (a partner's share raised above the rule's maxAccess). The rule
 * is no typo: its group exists and it covers that very share (the stray's reason names it). Yet enforce
 * counted it as a rule that "matched no share in scope", and under the default unmatchedRules: refuse the
 * guard refused every removal, that share's own included, on every run until someone edited the policy.
 */
import { describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import type { GitLabDataset } from "../../../sim/gitlab/index.ts";
import { startSim } from "../../support/enforce-world.ts";
import { validated } from "../../support/report.ts";
import { shareWith, simGroup, simProject } from "../../support/tiny-world.ts";

const POLICY = `version: 1
gitlab:
  scope: { groups: [acme] }
  shares:
    allow:
      - group: "acme/**"
      - group: "partners/contractor-x"
        projects: ["acme/mobile/**"]
        maxAccess: developer
  guard: { maxRemovals: 25 }
`;

function world(): GitLabDataset {
  const [acme, mobile, web] = [simGroup(10, "acme", null), simGroup(11, "acme/mobile", 10), simGroup(12, "acme/web", 10)];
  const contractor = simGroup(21, "partners/contractor-x", 20);
  return {
    groups: [acme, mobile, web, simGroup(20, "partners", null), contractor],
    users: [],
    // Allowed by allow[0]; and covered by allow[1] (its group, its projects) but raised to Maintainer: stray by allow[1]'s maxAccess.
    projects: [simProject(100, web, "site", [shareWith(mobile, 30)]), simProject(101, mobile, "app", [shareWith(contractor, 40)])],
  };
}

describe("an allow rule whose only covered share exceeds its maxAccess", () => {
  it("matched that share: the over-privileged share is removed, and the guard does not take the rule for a typo", async () => {
    const sim = await startSim({ dataset: world() });
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
    const report = await validated(enforce({ gitlab, policy: parsePolicy(POLICY, "test.yaml"), apply: true }));
    const stray = report.actions.find((a) => a.kind === "project" && a.projectId === 101)!;
    expect(stray.reason).toMatch(/exceeds maxAccess developer of allow\[1\]/);
    expect({ status: stray.status, guard: report.summary.guard, ruleWarnings: report.warnings.filter((w) => /allow\[1\]/.test(w)) }).toEqual({ status: "done", guard: "ok", ruleWarnings: [] });
    expect(report.summary.matched?.allow).toEqual([1, 1]);
    expect(sim.dataset.projects.find((p) => p.id === 101)!.shared_with_groups).toEqual([]);
  });
});
