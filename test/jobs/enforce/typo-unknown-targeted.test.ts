/**
 * A targeted run (the watch's, the Events stream's, --target) is guarded against a typo'd literal path only
 * by its own look-up of that path (the last sweep remembers rules, not overrides, and only once a full run
 * under the same policy has run). A look-up GitLab, or a proxy in front of it, fails to answer for may be
 * such a typo: under unmatchedRules: refuse the run holds its removals as it does for GitLab's 404, rather
 * than remove the shares the mistyped rule or override was written to keep (lib/jobs/enforce/phases/guard.ts).
 */
import { afterEach, describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, type EnforceOptions, type EnforceReport } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type Fault, type GitLabSim } from "../../../sim/gitlab/index.ts";
import { groupSharesPolicy } from "../../support/policies.ts";

const NOW = new Date("2026-03-10T12:00:00Z");
let sim: GitLabSim;
afterEach(() => sim?.close());

async function start(faults: Fault[] = []) {
  const generated = generateOrganisation({ projects: 600, seed: 7, groupShares: true, now: NOW });
  sim = await startGitLabSim({ dataset: generated.dataset, faults });
  return generated;
}
function run(policy: string, opts: Partial<EnforceOptions>): Promise<EnforceReport> {
  const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 1 } });
  return enforce({ gitlab, now: NOW, ...opts, policy: parsePolicy(policy, "typo.yaml") });
}
const failing = (path: string): Fault[] => [{ kind: "status", status: 500, method: "GET", path: `/api/v4/namespaces/${encodeURIComponent(path)}`, times: 1_000_000 }];
const deletes = () => Object.entries(sim.counters.byRoute).filter(([route]) => route.startsWith("DELETE ")).reduce((n, [, c]) => n + c, 0);

describe("a typo'd literal path whose look-up GitLab fails, in a targeted applying run", () => {
  /** The contractor's allow rule mistyped: partner/contractor-x for partners/contractor-x. */
  const TYPO = groupSharesPolicy().replace('group: "partners/contractor-x"', 'group: "partner/contractor-x"');
  const contractorProject = () => {
    const contractor = sim.dataset.groups.find((g) => g.full_path === "partners/contractor-x")!;
    return sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/mobile/") && p.shared_with_groups.some((s) => s.group_id === contractor.id))!;
  };

  it("an allow rule: the partner's share is not removed (as it is not when GitLab answers 404)", async () => {
    // Control: GitLab answering (404), the same run refuses.
    await start();
    const answered = await run(TYPO, { apply: true, targets: [{ kind: "project", id: contractorProject().id }] });
    expect(answered.summary).toMatchObject({ guard: "tripped", removed: 0 });
    sim.close();

    await start(failing("partner/contractor-x"));
    const project = contractorProject();
    const report = await run(TYPO, { apply: true, targets: [{ kind: "project", id: project.id }] });
    const removed = report.actions.filter((a) => a.status === "done").map((a) => a.group);
    expect({ guard: report.summary.guard, removed, deletes: deletes() }).toEqual({ guard: "tripped", removed: [], deletes: 0 });
  });

  it("a scope override: acme/mobile's stray, meant only reported, is not removed (as it is not when GitLab answers 404)", async () => {
    const OVERRIDE = groupSharesPolicy().replace("  scope: { groups: [acme] }\n", "  scope: { groups: [acme], overrides: [{ group: acme/mobiel, onStray: report }] }\n");
    const inMobile = (generated: Awaited<ReturnType<typeof start>>) =>
      generated.intents.find((i) => i.intent === "stray" && i.kind === "project" && generated.dataset.projects.find((p) => p.id === i.projectId)!.path_with_namespace.startsWith("acme/mobile/"))!;
    // Control: GitLab answering (404), the same run refuses.
    const plain = inMobile(await start());
    const answered = await run(OVERRIDE, { apply: true, targets: [{ kind: "project", id: plain.kind === "project" ? plain.projectId : 0 }] });
    expect(answered.summary).toMatchObject({ guard: "tripped", removed: 0 });
    sim.close();

    const stray = inMobile(await start(failing("acme/mobiel")));
    const report = await run(OVERRIDE, { apply: true, targets: [{ kind: "project", id: stray.kind === "project" ? stray.projectId : 0 }] });
    const removed = report.actions.filter((a) => a.status === "done").map((a) => a.group);
    expect({ guard: report.summary.guard, removed, deletes: deletes() }).toEqual({ guard: "tripped", removed: [], deletes: 0 });
  });
});
