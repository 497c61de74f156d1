/**
 * The removal step the invocation's deadline cuts returns (removal-steps.ts), and when it had no removal
 * left to make (its DELETEs answered, only a confirming read cut), the next step, "write notices", starts
 * at once, in the same invocation, past its deadline. Every request it sent was aborted at once, and
 * write.ts recorded each as the outcome (a notice "failed" to open, a removed share's notice not closed)
 * instead of failing with a DeadlineError, as every other step so cut does, to be attempted in the next
 * invocation (the durable review's finding). A "write notices" step the deadline cuts fails now, and its
 * next attempt reads first what this one opened.
 */
import { describe, expect, it, vi } from "vitest";
import type { EnforceReport } from "../../../lib/jobs/index.ts";
import { durableWorld, timedRunner, twoStraysOneDue } from "../../support/durable-world.ts";
import { notifyPolicy } from "../../support/policies.ts";
import { NOTICES, world as noticesDataset } from "../../support/notices-world.ts";

const lambda = durableWorld({
  skipTime: true,
  policy: notifyPolicy(),
  gitlab: () => ({ dataset: noticesDataset(), tokens: { "glpat-sim-admin": { admin: true }, jane: { admin: false, username: "jane" } } }),
  env: () => ({ WARDEN_REPORT_ONLY: "false" }),
});
/** Each invocation's deadline comes 3 s in (20 s before the 23 s it is told it has). */
const REMAINING_MS = 23_000;

describe("a durable run whose last removal step is cut by the deadline after its last DELETE was answered", () => {
  it("opens the notices of its strays under notify, in the next invocation if need be, rather than recording them failed", async () => {
    // Jane's two strays under onStray notify; the group share's notice is due: this run removes that share.
    const due = "group:10:group:20";
    await twoStraysOneDue(lambda, due);
    // GitLab answers the DELETE, then is slow to answer the read that confirms it (shares/remove.ts): the deadline comes meanwhile.
    let armed = false;
    lambda.gitlab.beforeAnswer(({ route }) => {
      if (armed || route !== "DELETE /groups/:id/share/:group_id") return;
      armed = true;
      lambda.gitlab.addFaults({ kind: "delay", ms: 6_000, method: "GET", path: "/api/v4/groups/10", times: 1 });
    });
    vi.resetModules();
    const { handler } = await import("../../../functions/enforce.ts");
    const { runner } = timedRunner<EnforceReport>(handler, REMAINING_MS);
    const execution = await runner.run({ payload: { dryRun: false } });

    expect(armed).toBe(true);
    expect(execution.getStatus(), execution.getStatus() === "SUCCEEDED" ? "" : execution.getError()?.errorMessage).toBe("SUCCEEDED");
    const report = execution.getResult()!;
    const group = report.actions.find((a) => a.kind === "group")!;
    const project = report.actions.find((a) => a.kind === "project")!;
    expect(group.status).toBe("done");
    const issues = lambda.gitlab.work.issuesOf(NOTICES);
    const dueNotice = issues.find((i) => i.labels.includes(`warden-share::${due}`))!;
    // What a run whose requests were not cut does: the notice opened, the removed share's notice closed.
    expect({ project: project.status, projectError: project.error, notices: issues.length, dueNoticeState: dueNotice.state }).toEqual({ project: "noticed", projectError: undefined, notices: 2, dueNoticeState: "closed" });
    // Closed once, with one note saying why, however many attempts it took.
    expect(dueNotice.notes.filter((note) => note.author.username !== "jane")).toHaveLength(1);
  }, 60_000);
});
