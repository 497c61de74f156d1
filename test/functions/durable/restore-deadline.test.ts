/**
 * A restore in the durable Enforce function (functions/shared/durable/job.ts), run by AWS's local durable
 * runner against the GitLab simulator. Its step ran with a signal that never fired, not the invocation's
 * deadline: a POST GitLab held off (a 429 asking for a longer wait than the invocation had) outlasted the
 * invocation, which Lambda would end mid-step, with no report and the POST's fate unknown (a hostile
 * review found it). Now the step stops at the deadline, as an enforce step does: the share it could not
 * create is reported, read again and not sent again, and the invocation ends within its time.
 */
import { describe, expect, it, vi } from "vitest";
import type { RestoreReport } from "../../../lib/jobs/index.ts";
import { generateOrganisation } from "../../../sim/gitlab/index.ts";
import { durableWorld, timedRunner } from "../../support/durable-world.ts";
import { standardPolicy } from "../../support/policies.ts";

const world = durableWorld({
  skipTime: false,
  policy: standardPolicy(),
  gitlab: () => ({ dataset: generateOrganisation({ projects: 60, seed: 5, groupShares: true }).dataset }),
  env: () => ({ WARDEN_REPORT_ONLY: "false" }),
});
/** What each invocation has (Lambda's count down from the function's timeout): its deadline comes a second in (its margin is more than this). */
const REMAINING_MS = 12_000;

async function restoreOne(project: { id: number; path_with_namespace: string }, group: { id: number; full_path: string }) {
  const removed = { type: "remove-share", kind: "project", projectId: project.id, project: project.path_with_namespace, groupId: group.id, group: group.full_path, accessLevel: 30, expiresAt: null, reason: "stray", status: "done" };
  vi.resetModules();
  const { handler } = await import("../../../functions/enforce.ts");
  const { runner, took } = timedRunner<RestoreReport>(handler, REMAINING_MS);
  const execution = await runner.run({ payload: { restore: { job: "enforce", dryRun: false, actions: [removed] }, dryRun: false } });
  return { took, report: execution.getResult()! };
}

/** A project of acme's, and a group of acme's it is not shared with: the share an earlier run removed. */
function removedShare() {
  const project = world.gitlab.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/"))!;
  const group = world.gitlab.dataset.groups.find((g) => g.full_path.startsWith("acme/") && !project.shared_with_groups.some((s) => s.group_id === g.id))!;
  return { project, group };
}

describe("a durable restore whose POST GitLab holds off", () => {
  it("stops at the invocation's deadline: the invocation ends within its time, and the share is reported, not sent again", async () => {
    const { project, group } = removedShare();
    // GitLab holds the POST off for a minute: far longer than the invocation has.
    world.gitlab.addFaults({ kind: "429", headers: "retry-after", seconds: 60, route: "POST /projects/:id/share", times: 1 });
    const { took, report } = await restoreOne(project, group);
    expect(took.every((ms) => ms < REMAINING_MS), `invocations of ${took.join(", ")} ms`).toBe(true);
    expect(report.summary).toMatchObject({ restores: 1, restored: 0, failed: 1 });
    expect(report.actions[0]!.error).toMatch(/^may not have been created: the answer was lost \(stopped while creating the share \(the Lambda times out in \d+ s\)\)/);
    expect(world.gitlab.counters.byRoute["POST /projects/:id/share"]).toBe(1);
  }, 60_000);

  it("cut off while it reads, before any POST, is attempted again in the next invocation, which restores the share", async () => {
    const { project, group } = removedShare();
    world.gitlab.addFaults({ kind: "delay", ms: 30_000, method: "GET", path: `/api/v4/projects/${project.id}`, times: 1 });
    const { took, report } = await restoreOne(project, group);
    expect(took.length).toBeGreaterThan(1);
    expect(took.every((ms) => ms < REMAINING_MS), `invocations of ${took.join(", ")} ms`).toBe(true);
    expect(report.summary).toMatchObject({ restores: 1, restored: 1, complete: true });
    expect(world.gitlab.dataset.projects.find((p) => p.id === project.id)!.shared_with_groups.map((s) => s.group_id)).toContain(group.id);
  }, 60_000);
});
