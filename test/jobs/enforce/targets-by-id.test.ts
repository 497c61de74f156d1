/**
 * Targets by id (lib/jobs/enforce/examine/targets.ts), as events name their subjects: found by the id,
 * then judged against the scope at the path GitLab has; the run is the path form's.
 */
import { afterEach, describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, ScopeError, type EnforceOptions, type EnforceReport, type ShareRemoval } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../../sim/gitlab/index.ts";
import { groupSharesPolicy } from "../../support/policies.ts";

const NOW = new Date("2026-03-10T12:00:00Z");
let sim: GitLabSim;
afterEach(() => sim.close());

const key = (a: ShareRemoval) => (a.kind === "project" ? `p${a.projectId}:${a.groupId}` : `g${a.sharedGroupId}:${a.groupId}`);

function run(opts: Omit<Partial<EnforceOptions>, "policy">): Promise<EnforceReport> {
  const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  return enforce({ gitlab, now: NOW, ...opts, policy: parsePolicy(groupSharesPolicy(), "test.yaml") });
}

describe("enforce targets by id", () => {
  it("a project and a group by itself, named by id, plan what their paths plan", async () => {
    const { dataset } = generateOrganisation({ projects: 600, seed: 7, groupShares: true, now: NOW });
    sim = await startGitLabSim({ dataset });
    const mobile = dataset.groups.find((g) => g.full_path === "acme/mobile")!;
    const project = dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/platform/") && p.shared_with_groups.length > 0)!;
    const byPath = await run({ targets: [{ kind: "project", path: project.path_with_namespace }, { kind: "group", path: "acme/mobile", subtree: false }] });
    const byId = await run({ targets: [{ kind: "project", id: project.id }, { kind: "group", id: mobile.id, subtree: false }] });
    expect(byId.actions.map(key).sort()).toEqual(byPath.actions.map(key).sort());
    expect(byId.warnings).toContain(byPath.warnings.find((w) => w.startsWith("targeted run:")));
  });

  it("an id outside the scope or one GitLab lacks is left alone with a warning (an event is not bad input), a malformed one refused, and nothing changes", async () => {
    const { dataset } = generateOrganisation({ projects: 200, seed: 7, groupShares: true, now: NOW });
    sim = await startGitLabSim({ dataset });
    const outside = dataset.groups.find((g) => !g.full_path.startsWith("acme"))!;
    const left = await run({ apply: true, targets: [{ kind: "group", id: outside.id, subtree: false }, { kind: "project", id: 999_999 }] });
    expect(left.summary).toMatchObject({ projects: 0, groups: 0, strays: 0, removed: 0 });
    expect(left.warnings).toEqual(expect.arrayContaining([
      `target group ${outside.id} is outside the policy's scope on GitLab: left alone`,
      expect.stringMatching(/^target project 999999: GitLab has no project at this path.*: left alone$/),
      "targeted run: no target was found in the policy's scope, so nothing was examined or changed",
    ]));
    const requests = sim.counters.requests;
    await expect(run({ apply: true, targets: [{ kind: "project", id: -1 }] })).rejects.toThrow(ScopeError);
    expect(sim.counters.requests).toBe(requests);
    expect(Object.keys(sim.counters.byRoute).filter((r) => !r.startsWith("GET "))).toEqual([]);
  });
});
