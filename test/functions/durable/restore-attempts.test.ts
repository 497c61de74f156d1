/**
 * A durable restore longer than one invocation. The restore is one step, and every attempt starts again
 * from its first read: cut after some POSTs, the next attempt finds those shares present and reports them
 * "already-present". It says so now (a warning naming the attempts). Here an invocation has 1 s of work
 * (its deadline's floor); in Lambda, 14.6 minutes. A restore whose reads alone outlast an invocation
 * still fails after its attempts (docs/aws.md: run `warden restore` for it).
 */
import { describe, expect, it, vi } from "vitest";
import type { RestoreReport } from "../../../lib/jobs/index.ts";
import { generateOrganisation } from "../../../sim/gitlab/index.ts";
import { durableWorld, timedRunner } from "../../support/durable-world.ts";
import { standardPolicy } from "../../support/policies.ts";

const world = durableWorld({
  skipTime: false,
  policy: standardPolicy(),
  gitlab: () => ({ dataset: generateOrganisation({ projects: 80, seed: 5 }).dataset }),
  env: () => ({ WARDEN_REPORT_ONLY: "false" }),
});
/** Lambda's count down from the function's timeout: below the deadline's margin, so each invocation works 1 s. */
const REMAINING_MS = 12_000;

/** 24 projects of acme's, none in or below `group`, none shared with it: an earlier run removed their shares with it. */
function removedShares() {
  const group = world.gitlab.dataset.groups.find((g) => g.full_path.startsWith("acme/"))!;
  const projects = world.gitlab.dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/") && !p.path_with_namespace.startsWith("acme/legacy/") && !p.path_with_namespace.startsWith(`${group.full_path}/`) && !p.shared_with_groups.some((s) => s.group_id === group.id)).slice(0, 24);
  expect(projects).toHaveLength(24);
  const actions = projects.map((p) => ({ type: "remove-share", kind: "project", projectId: p.id, project: p.path_with_namespace, groupId: group.id, group: group.full_path, accessLevel: 30, expiresAt: null, reason: "stray", status: "done" }));
  return { group, projects, actions };
}

async function durableRestore(actions: object[]) {
  vi.resetModules();
  const { handler } = await import("../../../functions/enforce.ts");
  const { runner } = timedRunner<RestoreReport>(handler, REMAINING_MS);
  return runner.run({ payload: { restore: { job: "enforce", dryRun: false, actions }, dryRun: false } });
}

describe("a durable restore whose POSTs take more than one invocation", () => {
  it("re-creates every share, and says that those reported already present may be an earlier attempt's", async () => {
    const { group, projects, actions } = removedShares();
    // Each POST takes 400 ms: 24 of them, 4 at a time, take 2.4 s, so the step is cut and attempted again; each attempt makes some.
    world.gitlab.addFaults({ kind: "delay", ms: 400, route: "POST /projects/:id/share", times: 1_000_000 });
    const execution = await durableRestore(actions);
    expect(execution.getStatus(), execution.getStatus() === "SUCCEEDED" ? "" : execution.getError()?.errorMessage).toBe("SUCCEEDED");
    const report = execution.getResult()!;
    const back = projects.filter((p) => p.shared_with_groups.some((s) => s.group_id === group.id)).map((p) => p.id);
    // A POST the deadline cut in flight is reported "may not have been created" and not sent again (run the
    // restore again for it): on a loaded machine the last attempt may cut one. Every other share is back.
    const uncertain = report.actions.filter((a) => a.status === "failed" && a.error?.startsWith("may not have been created")).map((a) => (a.kind === "project" ? a.projectId : 0));
    expect(report.actions.filter((a) => a.status === "failed" && !uncertain.includes(a.kind === "project" ? a.projectId : 0))).toEqual([]);
    expect(back.length + uncertain.filter((id) => !back.includes(id)).length).toBe(24);
    expect(back.length).toBeGreaterThan(12);
    // Each attempt plans what it finds missing: the last one, what the earlier left.
    expect(report.summary.restored + report.summary.alreadyPresent + uncertain.length).toBe(24);
    expect(report.summary.alreadyPresent).toBeGreaterThan(0);
    expect(report.warnings).toContainEqual(expect.stringMatching(/^this restore was attempted \d+ times, the earlier cut off by the invocation's deadline: a share reported already present may be one an earlier attempt re-created/));
  }, 90_000);
});
