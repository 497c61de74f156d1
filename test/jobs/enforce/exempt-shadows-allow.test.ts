/**
 * An allow rule whose every covered share is also exempt matched those shares (docs/policy.md: an allow
 * rule matches a share it covers, its group and its targets). It was counted as matching nothing
 * (evaluateShare returned at the exemption, and only the deciding rule was counted), so under the
 * default unmatchedRules: refuse the guard tripped on a valid policy, run after run, and no stray
 * anywhere in the scope was removed (a review's finding).
 *
 * The policy: a partner allowed on the legacy area, and the whole legacy area frozen by an exemption
 * during a migration (every share there kept, whatever the rules say).
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
      - group: "partners/legacy-vendor"
        projects: ["acme/legacy/**"]
        maxAccess: developer
    exempt:
      - project: "acme/legacy/**"
        until: 2027-01-01
        reason: "frozen during the migration"
  guard: { maxRemovals: 25 }
`;

function world(): GitLabDataset {
  const [acme, legacy, web, partners, vendor, outsider] = [
    simGroup(10, "acme", null), simGroup(11, "acme/legacy", 10), simGroup(12, "acme/web", 10),
    simGroup(20, "partners", null), simGroup(21, "partners/legacy-vendor", 20), simGroup(30, "outsider", null),
  ];
  return {
    groups: [acme, legacy, web, partners, vendor, outsider],
    users: [],
    projects: [
      // Covered by allow[1] (its group, its projects, within maxAccess), and exempt by exempt[0].
      simProject(100, legacy, "billing", [shareWith(vendor, 30)]),
      // A plain stray elsewhere in the scope.
      simProject(101, web, "site", [shareWith(outsider, 40), shareWith(web, 30)]),
    ],
  };
}

describe("an allow rule whose covered shares are all exempt", () => {
  it("matched them: it is no typo, the guard holds, and the stray elsewhere is removed", async () => {
    const sim = await startSim({ dataset: world() });
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
    const report = await validated(enforce({ gitlab, policy: parsePolicy(POLICY, "review.yaml"), now: new Date("2026-03-10T12:00:00Z"), apply: true }));
    expect(report.actions.map((a) => `${a.kind}:${a.group}`)).toEqual(["project:outsider"]);
    // Before: allow[1] was reported as matching nothing, the guard tripped, and the outsider kept Maintainer on acme/web/site.
    expect({
      guard: report.summary.guard,
      ruleWarnings: report.warnings.filter((w) => w.includes("allow[1]")),
      outsiderRemoved: !sim.dataset.projects.find((p) => p.id === 101)!.shared_with_groups.some((s) => s.group_id === 30),
    }).toEqual({ guard: "ok", ruleWarnings: [], outsiderRemoved: true });
  });
});
