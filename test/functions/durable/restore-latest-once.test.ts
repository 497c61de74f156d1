/**
 * A durable `restore latest` was one step, and "latest" was looked up inside it, so every attempt looked
 * it up again. An attempt cut by its invocation's deadline is attempted again a whole invocation later,
 * and by then "latest" may name another run (the watch stores a batch a minute, a chat sweep stores its
 * own report without the durable lease): the second attempt restored that run's removals, and the shares
 * of the run the first attempt chose and had not reached were never restored, the execution SUCCEEDED
 * (the durable review's finding). "latest" is looked up once now, in a step of its own ("restore source").
 */
import { describe, expect, it, vi } from "vitest";
import type { RestoreReport } from "../../../lib/jobs/index.ts";
import { generateOrganisation } from "../../../sim/gitlab/index.ts";
import { durableWorld, timedRunner } from "../../support/durable-world.ts";
import { standardPolicy } from "../../support/policies.ts";

const BUCKET = "warden-runs";
const world = durableWorld({
  skipTime: false,
  s3: true,
  policy: standardPolicy(),
  gitlab: () => ({ dataset: generateOrganisation({ projects: 80, seed: 5 }).dataset }),
  env: () => ({ WARDEN_REPORT_ONLY: "false", WARDEN_RUN_HISTORY_BUCKET: BUCKET }),
});
/** Below the deadline's margin: each invocation works 1 s (its deadline's floor), as in restore-attempts.test.ts. */
const REMAINING_MS = 12_000;

const keyTime = (at: Date) => at.toISOString().replace(/[-:]/g, "");

/** A stored enforce report that removed the shares of `projects` with `group`. */
function storedRun(group: { id: number; full_path: string }, projects: { id: number; path_with_namespace: string }[]) {
  const actions = projects.map((p) => ({ type: "remove-share", kind: "project", projectId: p.id, project: p.path_with_namespace, groupId: group.id, group: group.full_path, accessLevel: 30, expiresAt: null, reason: "stray", status: "done" }));
  return JSON.stringify({ job: "enforce", dryRun: false, actions });
}

describe("a durable restore of \"latest\" attempted again after its first attempt was cut", () => {
  it("restores the run its first attempt chose, not whichever run is latest when it is attempted again", async () => {
    const { groups, projects } = world.gitlab.dataset;
    const acme = groups.filter((g) => g.full_path.startsWith("acme/") && !g.full_path.startsWith("acme/legacy"));
    const [first, second] = [acme[0]!, acme.find((g) => !g.full_path.startsWith(`${acme[0]!.full_path}/`) && !acme[0]!.full_path.startsWith(`${g.full_path}/`))!];
    const candidates = (group: typeof first) =>
      projects.filter((p) => p.path_with_namespace.startsWith("acme/") && !p.path_with_namespace.startsWith("acme/legacy/") && !p.path_with_namespace.startsWith(`${group.full_path}/`) && !p.shared_with_groups.some((s) => s.group_id === group.id));
    // Run A (the sweep `latest` names when the restore starts): 24 shares with `first`.
    const runA = candidates(first).slice(0, 24);
    // Run B (a sweep stored while the restore runs): 4 other shares, with `second`.
    const runB = candidates(second).filter((p) => !runA.includes(p)).slice(0, 4);
    expect([runA.length, runB.length]).toEqual([24, 4]);
    world.s3.objects.set(`${BUCKET}/runs/enforce/schedule/${keyTime(new Date(Date.now() - 3_600_000))}-run-a.json`, storedRun(first, runA));

    // Each POST takes 400 ms, so the one step is cut by its invocation's deadline after a few (restore-attempts.test.ts).
    world.gitlab.addFaults({ kind: "delay", ms: 400, route: "POST /projects/:id/share", times: 1_000_000 });
    // Once the first attempt has re-created a share, another sweep (a chat /warden enforce --apply, say) stores its report.
    let stored = false;
    world.gitlab.beforeAnswer(({ route }) => {
      if (stored || route !== "POST /projects/:id/share") return;
      stored = true;
      world.s3.objects.set(`${BUCKET}/runs/enforce/chat/${keyTime(new Date())}-run-b.json`, storedRun(second, runB));
    });

    vi.resetModules();
    const { handler } = await import("../../../functions/enforce.ts");
    const { runner } = timedRunner<RestoreReport>(handler, REMAINING_MS);
    const execution = await runner.run({ payload: { restore: "latest", dryRun: false } });
    expect(stored).toBe(true);
    const attempts = execution.getOperations().find((op) => op.getName() === "restore")?.getStepDetails()?.attempt ?? 1;
    expect(attempts, "the restore step was attempted more than once").toBeGreaterThan(1);
    expect(execution.getStatus(), execution.getStatus() === "SUCCEEDED" ? "" : execution.getError()?.errorMessage).toBe("SUCCEEDED");
    const report = execution.getResult()!;

    const has = (p: (typeof projects)[number], group: typeof first) => p.shared_with_groups.some((s) => s.group_id === group.id);
    const restoredA = runA.filter((p) => has(p, first)).length;
    const restoredB = runB.filter((p) => has(p, second)).length;
    // What the execution did, as one run would: every share of run A back, and nothing of run B's (nobody asked for it).
    // (A POST the deadline cut is reported "may not have been created" and not sent again: on a loaded machine
    // some of A's may be, so each of A's shares is in the report, and most of them back.)
    expect({ restoredB, from: report.summary.from, reported: report.actions.map((a) => (a.kind === "project" ? a.projectId : 0)).sort() }).toEqual({ restoredB: 0, from: expect.stringContaining("run-a"), reported: runA.map((p) => p.id).sort() });
    expect(restoredA).toBeGreaterThan(runA.length / 2);
    // Which run "latest" chose is still said.
    expect(report.summary.from).toContain("the latest sweep (trigger schedule)");
  }, 90_000);
});
