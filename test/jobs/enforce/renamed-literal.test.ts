/**
 * A literal rule naming a project's old path (the project renamed or transferred since the rule was
 * written) protects nothing: a policy glob matches only the project's current path. A full run refuses
 * (the rule matched nothing, unmatchedRules: refuse); a targeted run looks the literal path up, and
 * GitLab answers the old path with a redirect to the project, which lib/http follows: the rule passed
 * for "there", and the run over the moved project (warden enforce --target, or the watch or stream run
 * the move's own event starts) removed the very share the rule was written to allow or exempt (the
 * worlds review's finding). A path is there only where GitLab answers at that very path; and one found
 * earlier in the process is asked again when an applying run would change what it named.
 */
import { describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, type EnforceOptions } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import type { GitLabDataset } from "../../../sim/gitlab/index.ts";
import { startSim } from "../../support/enforce-world.ts";
import { validated } from "../../support/report.ts";
import { shareWith, simGroup, simProject } from "../../support/tiny-world.ts";

const NOW = new Date("2026-03-10T12:00:00Z");

/** acme/api was moved to acme/platform/api (GitLab keeps a redirect from the old path); partners/x is shared with it. */
function world(): GitLabDataset {
  const [acme, platform, partners, x] = [simGroup(10, "acme", null), simGroup(11, "acme/platform", 10), simGroup(20, "partners", null), simGroup(21, "partners/x", 20)];
  const api = simProject(100, platform, "api", [shareWith(x, 30)]);
  api.previous_paths = ["acme/api"];
  return { groups: [acme, platform, partners, x], users: [], projects: [api, simProject(101, platform, "web", [shareWith(acme, 30)])] };
}

const ALLOW = `version: 1
gitlab:
  scope: { groups: [acme] }
  shares:
    allow:
      - group: "acme/**"
      - group: "partners/x"
        projects: ["acme/api"]
  guard: { maxRemovals: 25 }
`;

const EXEMPT = `version: 1
gitlab:
  scope: { groups: [acme] }
  shares:
    allow:
      - group: "acme/**"
    exempt:
      - project: "acme/api"
        sharedWith: "partners/x"
        until: 2027-01-01
        reason: "pen test"
  guard: { maxRemovals: 25 }
`;

async function run(policy: string, opts: Partial<EnforceOptions>) {
  const sim = await startSim({ dataset: world() });
  const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  const report = await validated(enforce({ gitlab, now: NOW, policy: parsePolicy(policy, "review.yaml"), apply: true, ...opts }));
  const kept = sim.dataset.projects.find((p) => p.id === 100)!.shared_with_groups.some((s) => s.group_id === 21);
  return { report, kept };
}

describe("a literal rule naming a moved project's old path", () => {
  it("control: a full run refuses to remove while the rule matches nothing", async () => {
    const { report, kept } = await run(ALLOW, {});
    expect({ guard: report.summary.guard, kept }).toEqual({ guard: "tripped", kept: true });
  });

  it.each([
    ["allow rule, --target by path", ALLOW, ["acme/platform/api"]],
    ["allow rule, a project by id (the watch after project_namespace_updated)", ALLOW, [{ kind: "project" as const, id: 100 }]],
    ["exemption, --target by path", EXEMPT, ["acme/platform/api"]],
  ])("%s: the targeted run must refuse as the full run does, not remove the share the rule names", async (_, policy, targets) => {
    const { report, kept } = await run(policy, { targets });
    // Before: the look-up of acme/api followed GitLab's redirect to acme/platform/api, called the rule no typo,
    // the guard held, and partners/x lost its access to the project.
    expect({ guard: report.summary.guard, removed: report.summary.removed, kept }).toEqual({ guard: "tripped", removed: 0, kept: true });
  });

  it("a path found before the move, in the same process, is asked again by the applying run over the moved project", async () => {
    const before = world();
    const api = before.projects.find((p) => p.id === 100)!;
    Object.assign(api, { path_with_namespace: "acme/api", namespace_id: 10, previous_paths: [] });
    const sim = await startSim({ dataset: before });
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
    const policy = parsePolicy(ALLOW, "review.yaml");
    // The watch over another project, before the move: acme/api is looked up, found, and remembered.
    const earlier = await validated(enforce({ gitlab, now: NOW, policy, apply: true, targets: [{ kind: "project", id: 101 }] }));
    expect(earlier.summary.guard).toBe("ok");
    sim.moveProject(100, 11);
    const report = await validated(enforce({ gitlab, now: NOW, policy, apply: true, targets: [{ kind: "project", id: 100 }] }));
    expect({ guard: report.summary.guard, removed: report.summary.removed }).toEqual({ guard: "tripped", removed: 0 });
    expect(report.warnings).toContainEqual(expect.stringContaining("names project acme/api, which GitLab has moved to acme/platform/api"));
  });
});
