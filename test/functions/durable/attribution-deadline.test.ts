/**
 * The step "attribute" (lib/jobs/enforce/phases/attribute.ts) reads audit events for who added each stray,
 * within a budget of requests but with no bound in time: on a large instance whose audit-event endpoints are
 * slow (they are GitLab's slowest), what is left of that budget may take longer than a whole invocation. The
 * invocation's deadline then cut the step, and every attempt began the reads again from the same recorded
 * state, so every attempt was cut: after 10 invocations the execution failed, with nothing removed, every
 * day. Attribution is never a reason for the run to fail (attribution.ts's attributeWithin); a step cut again
 * after a whole invocation of its own gives up on it, and the run goes on to its removals.
 */
import { describe, expect, it, vi } from "vitest";
import type { EnforceReport } from "../../../lib/jobs/index.ts";
import { created, durableWorld, timedRunner } from "../../support/durable-world.ts";
import { ACME_ONLY } from "../../support/policies.ts";
import { world as noticesDataset } from "../../support/notices-world.ts";

const lambda = durableWorld({
  skipTime: true,
  policy: ACME_ONLY,
  gitlab: () => ({ dataset: noticesDataset(), tokens: { "glpat-sim-admin": { admin: true }, jane: { admin: false, username: "jane" } } }),
  env: () => ({ WARDEN_REPORT_ONLY: "false" }),
});
/** Each invocation's deadline comes 3 s in (20 s before the 23 s it is told it has). */
const REMAINING_MS = 23_000;

describe("a durable run whose attribution takes longer than an invocation, every time", () => {
  it("gives attribution up and removes the strays, rather than failing the execution after 10 invocations", async () => {
    await created(lambda, "jane", "POST", "/projects/100/share", { group_id: 20, group_access: 30 });
    await created(lambda, "jane", "POST", "/groups/10/share", { group_id: 20, group_access: 30 });
    // Every audit-event page is answered after longer than an invocation has.
    for (const route of ["GET /audit_events", "GET /groups/:id/audit_events", "GET /projects/:id/audit_events"]) {
      lambda.gitlab.addFaults({ kind: "delay", ms: 30_000, route, times: 1_000_000 });
    }
    vi.resetModules();
    const { handler } = await import("../../../functions/enforce.ts");
    const { runner, overran } = timedRunner<EnforceReport>(handler, REMAINING_MS);
    const execution = await runner.run({ payload: { dryRun: false } });
    expect(overran()).toEqual([]);
    expect(execution.getStatus(), execution.getStatus() === "FAILED" ? execution.getError()?.errorMessage : "").toBe("SUCCEEDED");
    const report = execution.getResult()!;
    expect(report.summary).toMatchObject({ strays: 2, removed: 2, failed: 0 });
    expect(report.actions.map((a) => a.attribution)).toEqual(["not visible", "not visible"]);
    expect(report.warnings).toContainEqual(expect.stringMatching(/^attribution cut short by the invocation's deadline .*: 2 removals show no author; the run went on$/));
    // Given up on in its second attempt, the first in an invocation of its own: not ten.
    expect(execution.getOperations().filter((op) => op.getName() === "attribute")).toHaveLength(1);
    expect(execution.getInvocations().length).toBeLessThan(6);
  }, 120_000);
});
