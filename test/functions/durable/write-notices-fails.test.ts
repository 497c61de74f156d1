/**
 * "write notices" comes after the removals: it must not fail the execution after them, which would lose the
 * run's report (neither its result nor stored for `restore latest`).
 * - An attempt again (its first cut by the invocation's deadline, or its invocation crashed: the step is
 *   AtMostOncePerRetry) first reads the open notices the attempt before may have opened
 *   (lib/jobs/notices/write.ts). That read was not guarded as the read after the opening is
 *   (notices-reread.test.ts): when GitLab failed it, the step threw, and the execution FAILED (the durable
 *   review's finding). Now its notices are failed ("the next run opens it") and the run ends with its report.
 * - GitLab holds the notices' POSTs past every invocation's deadline (an issue creation that hangs: a locked
 *   database, a proxy holding POSTs): each attempt was cut and attempted again, 10 times, and then the step
 *   failed the run (the second durable review's finding). Its tenth attempt writes nothing now.
 */
import { describe, expect, it, vi } from "vitest";
import type { EnforceReport } from "../../../lib/jobs/index.ts";
import { durableWorld, timedRunner, twoStraysOneDue } from "../../support/durable-world.ts";
import { notifyPolicy } from "../../support/policies.ts";
import { world as noticesDataset } from "../../support/notices-world.ts";

const BUCKET = "warden-runs";
const lambda = durableWorld({
  skipTime: true,
  s3: true,
  policy: notifyPolicy(),
  gitlab: () => ({ dataset: noticesDataset(), tokens: { "glpat-sim-admin": { admin: true }, jane: { admin: false, username: "jane" } } }),
  env: () => ({ WARDEN_REPORT_ONLY: "false", WARDEN_RUN_HISTORY_BUCKET: BUCKET }),
});
/** Each invocation's deadline comes 3 s in (20 s before the 23 s it is told it has). */
const REMAINING_MS = 23_000;
/** Each invocation's deadline comes 1 s in (its floor), and its end leaves time to store the report. */
const SHORT_REMAINING_MS = 21_000;
/** How long GitLab holds each notice's POST: longer than an invocation has. */
const HELD_MS = 25_000;

describe("a durable run whose \"write notices\" step is attempted again while GitLab fails the notices' listing", () => {
  it("ends with the report of the removal it made, stored for restore, rather than failing without one", async () => {
    // Jane's two strays under onStray notify; the project share's notice is due: this run removes that share.
    await twoStraysOneDue(lambda, "project:100:group:20");
    // The "notices" step's listing is answered; the re-read of "write notices" (after it opened the group share's
    // notice) outlasts the invocation, so the deadline cuts that attempt; then GitLab fails the listing (a 501 from
    // a proxy, which lib/http does not retry; a 5xx for the minute the attempts take behaves alike).
    lambda.gitlab.addFaults(
      { kind: "delay", ms: 0, route: "GET /projects/:id/issues", query: { state: "opened" }, times: 1 },
      { kind: "delay", ms: 6_000, route: "GET /projects/:id/issues", query: { state: "opened" }, times: 1 },
      { kind: "status", status: 501, route: "GET /projects/:id/issues", query: { state: "opened" }, times: 1_000_000 },
    );
    vi.resetModules();
    const { handler } = await import("../../../functions/enforce.ts");
    const { runner } = timedRunner<EnforceReport>(handler, REMAINING_MS);
    const execution = await runner.run({ payload: { dryRun: false } });

    // The share was removed, by this execution.
    const deletes = lambda.gitlab.counters.byRoute["DELETE /projects/:id/share/:group_id"] ?? 0;
    expect(deletes).toBe(1);
    expect(lambda.gitlab.dataset.projects.find((p) => p.id === 100)!.shared_with_groups).toEqual([]);
    const write = execution.getOperations().find((op) => op.getName() === "write notices");
    expect(write?.getStepDetails()?.attempt ?? 1, "write notices was attempted again").toBeGreaterThan(1);

    const stored = [...lambda.s3.objects.keys()].filter((k) => k.startsWith(`${BUCKET}/runs/enforce/`));
    expect({ status: execution.getStatus(), storedForRestore: stored.length }).toEqual({ status: "SUCCEEDED", storedForRestore: 1 });
    const { actions } = execution.getResult()!;
    expect(actions).toContainEqual(expect.objectContaining({ kind: "project", projectId: 100, status: "done" }));
    // The group share's notice is not opened in the attempt that could not tell whether one stands.
    expect(actions).toContainEqual(expect.objectContaining({ kind: "group", status: "failed", error: expect.stringContaining("the next run opens it") }));
  }, 60_000);
});

describe("a durable run whose notices' POSTs GitLab holds past every invocation's deadline", () => {
  it("keeps the report of the removal it made (the execution's result, stored for restore latest) rather than failing after it", async () => {
    // Two strays under onStray notify: acme/app with partners (a notice to open), acme with partners (its notice due: removed now).
    await twoStraysOneDue(lambda, "group:10:group:20");
    lambda.gitlab.addFaults({ kind: "delay", ms: HELD_MS, method: "POST", route: "POST /projects/:id/issues", times: 1_000 });
    vi.resetModules();
    const { handler } = await import("../../../functions/enforce.ts");
    const { runner } = timedRunner<EnforceReport>(handler, SHORT_REMAINING_MS);
    const execution = await runner.run({ payload: { dryRun: false } });

    const groupShareGone = !lambda.gitlab.dataset.groups.find((g) => g.id === 10)!.shared_with_groups.some((s) => s.group_id === 20);
    const stored = [...lambda.s3.objects.keys()].filter((k) => k.startsWith(`${BUCKET}/runs/enforce/`));
    expect(groupShareGone, "the due share was removed").toBe(true);
    expect(execution.getStatus(), "the execution ends with its report").toBe("SUCCEEDED");
    const write = execution.getOperations().find((op) => op.getName() === "write notices");
    expect(write?.getStepDetails()?.attempt, "cut by nine invocations' deadlines, the tenth attempt wrote nothing").toBe(10);
    expect(stored, "stored for restore latest").toHaveLength(1);
    const report = execution.getResult()!;
    expect(report.actions.find((a) => a.kind === "group")).toMatchObject({ status: "done" });
    expect(report.actions.find((a) => a.kind === "project")).toMatchObject({ status: "failed", error: "not written (write notices: cut by the invocation's deadline 9 times): the next run writes it" });
    expect(report.warnings).toContain("notices: 2 notices not opened or closed (write notices: cut by the invocation's deadline 9 times): the next run writes them");
  }, 120_000);
});
