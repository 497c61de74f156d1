/**
 * "write notices" comes after the removals. When GitLab holds the notices' POST past every invocation's
 * deadline (an issue creation that hangs: a locked database, a proxy holding POSTs), each attempt is cut and
 * attempted again, 10 times; then the step failed, the run failed after its removals, and the report of what
 * it removed was neither the result nor stored for `restore latest` (the second durable review's finding).
 * The notices it could not write are failed in the report now, left to the next run, and the run ends.
 */
import { describe, expect, it, vi } from "vitest";
import type { EnforceReport } from "../../../lib/jobs/index.ts";
import { durableWorld, timedRunner } from "../../support/durable-world.ts";
import { notifyPolicy } from "../../support/policies.ts";
import { NOTICES, world as noticesDataset } from "../../support/notices-world.ts";

const BUCKET = "warden-runs";
const lambda = durableWorld({
  skipTime: true,
  s3: true,
  policy: notifyPolicy(),
  gitlab: () => ({ dataset: noticesDataset(), tokens: { "glpat-sim-admin": { admin: true }, jane: { admin: false, username: "jane" } } }),
  env: () => ({ WARDEN_REPORT_ONLY: "false", WARDEN_RUN_HISTORY_BUCKET: BUCKET }),
});
/** Each invocation's deadline comes 1 s in (its floor: Lambda's 21 s less the 20 s margin), and its end leaves time to store the report. */
const REMAINING_MS = 21_000;
/** How long GitLab holds each notice's POST: longer than an invocation has. */
const HELD_MS = 25_000;

async function call(token: string, method: string, path: string, body: unknown): Promise<void> {
  const res = await fetch(`${lambda.gitlab.url}/api/v4${path}`, { method, headers: { "private-token": token, "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(res.status).toBe(201);
}

describe("a durable run whose notices' POSTs GitLab holds past every invocation's deadline", () => {
  it("keeps the report of the removal it made (the execution's result, stored for restore latest) rather than failing after it", async () => {
    // Two strays under onStray notify: acme/app with partners (a notice to open), acme with partners (its notice due: removed now).
    await call("jane", "POST", "/projects/100/share", { group_id: 20, group_access: 30 });
    await call("jane", "POST", "/groups/10/share", { group_id: 20, group_access: 30 });
    const due = "group:10:group:20";
    await call("glpat-sim-admin", "POST", `/projects/${NOTICES}/issues`, { title: "notice", description: `<!-- warden-share: ${due} -->\nx`, labels: `warden::notice,warden-share::${due}`, due_date: "2020-01-01" });
    lambda.gitlab.addFaults({ kind: "delay", ms: HELD_MS, method: "POST", route: "POST /projects/:id/issues", times: 1_000 });
    vi.resetModules();
    const { handler } = await import("../../../functions/enforce.ts");
    const { runner } = timedRunner<EnforceReport>(handler, REMAINING_MS);
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
