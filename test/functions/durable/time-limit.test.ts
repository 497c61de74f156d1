/**
 * The run's time limit (runLimit: the execution's timeout less 20 minutes, half of a short one) bounded the
 * examination and the removal batches only. The steps between them ("notices", "rules", "attribute", …) were
 * each attempted again after every deadline cut, up to 10 invocations each, with no look at the limit, and
 * Lambda ended the execution at its timeout (TIMED_OUT): no "finish" step, so no `job failed` line, no
 * metrics (the Failed alarm silent), no report, and the lease kept to its expiry (the second durable
 * review's finding). Past the limit, a step that changes nothing is not attempted again now: the run fails
 * with its end, within the execution's time. Scaled down as in cut.test.ts: a 12 s execution (6 s run
 * limit), each invocation told it has 4 s.
 */
import { describe, expect, it, vi } from "vitest";
import type { EnforceReport } from "../../../lib/jobs/index.ts";
import { created, durableWorld, timedRunner } from "../../support/durable-world.ts";
import { notifyPolicy } from "../../support/policies.ts";
import { world as noticesDataset } from "../../support/notices-world.ts";

const EXECUTION_SECONDS = 12;
const lambda = durableWorld({
  skipTime: false,
  policy: notifyPolicy(),
  gitlab: () => ({ dataset: noticesDataset(), tokens: { "glpat-sim-admin": { admin: true }, jane: { admin: false, username: "jane" } } }),
  env: () => ({ WARDEN_REPORT_ONLY: "false", WARDEN_EXECUTION_TIMEOUT_SECONDS: String(EXECUTION_SECONDS) }),
});
/** Each invocation's deadline comes 1 s in (its floor). */
const REMAINING_MS = 4_000;

describe("a durable run whose notices listing GitLab holds past several invocations' deadlines", () => {
  it("ends (its finish step: the failure's line, metrics, the lease given back) within the execution's time limit", async () => {
    await created(lambda, "jane", "POST", "/projects/100/share", { group_id: 20, group_access: 30 });
    // The notices project's listing is held longer than an invocation has, 8 times: the step "notices" is cut 8 times.
    lambda.gitlab.addFaults({ kind: "delay", ms: 3_000, method: "GET", route: "GET /projects/:id/issues", times: 8 });
    vi.resetModules();
    const { handler } = await import("../../../functions/enforce.ts");
    const { runner, overran } = timedRunner<EnforceReport>(handler, REMAINING_MS);
    const started = Date.now();
    const execution = await runner.run({ payload: { dryRun: false } });
    const tookMs = Date.now() - started;
    expect(overran()).toEqual([]);
    const notices = execution.getOperations().filter((op) => op.getName() === "notices");
    expect(notices.length).toBeGreaterThan(0);
    expect(tookMs, "ended within the execution's time").toBeLessThanOrEqual(EXECUTION_SECONDS * 1000);
    expect(execution.getStatus()).toBe("FAILED");
    expect(execution.getError()?.errorMessage).toMatch(/^notices: cut short by the invocation's deadline/);
    expect(execution.getOperations().map((op) => op.getName())).toContain("finish");
  }, 120_000);
});
