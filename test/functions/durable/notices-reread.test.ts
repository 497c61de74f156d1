/**
 * The durable Enforce's "write notices" step, when GitLab fails the re-read of the open notices that
 * follows their opening (every time, for a minute or more). The step threw, the durable runner attempted
 * it again (3 attempts), and each attempt opened every notice again; then the execution failed, and the
 * report of the removals it made was neither its result nor stored.
 */
import { describe, expect, it, vi } from "vitest";
import type { EnforceReport } from "../../../lib/jobs/index.ts";
import { markedKey } from "../../../lib/jobs/notices/marker.ts";
import { durableWorld, timedRunner } from "../../support/durable-world.ts";
import { notifyPolicy } from "../../support/policies.ts";
import { NOTICES, world as noticesDataset } from "../../support/notices-world.ts";

const lambda = durableWorld({
  skipTime: true,
  policy: notifyPolicy(),
  gitlab: () => ({ dataset: noticesDataset(), tokens: { "glpat-sim-admin": { admin: true }, jane: { admin: false, username: "jane" } } }),
  env: () => ({ WARDEN_REPORT_ONLY: "false" }),
});

async function asJane(method: string, path: string, body: unknown): Promise<void> {
  const res = await fetch(`${lambda.gitlab.url}/api/v4${path}`, { method, headers: { "private-token": "jane", "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(res.status).toBe(201);
}

describe("a durable run whose re-read of the notices fails after it opened them", () => {
  it("opens one notice per stray share, not one per attempt of the step, and ends with its report", async () => {
    // Jane shares acme/app and her group acme with partners: two strays under onStray notify, no notice yet.
    await asJane("POST", "/projects/100/share", { group_id: 20, group_access: 30 });
    await asJane("POST", "/groups/10/share", { group_id: 20, group_access: 30 });
    // The "notices" step's listing of the open notices is answered; every later one (write notices' re-read) is not:
    // a 501 from a proxy, which lib/http does not retry (a 500 behaves the same, after lib/http's own retries).
    lambda.gitlab.addFaults(
      { kind: "delay", ms: 0, route: "GET /projects/:id/issues", query: { state: "opened" }, times: 1 },
      { kind: "status", status: 501, route: "GET /projects/:id/issues", query: { state: "opened" }, times: 1_000_000 },
    );
    vi.resetModules();
    const { handler } = await import("../../../functions/enforce.ts");
    const { runner } = timedRunner<EnforceReport>(handler, 900_000);
    const execution = await runner.run({ payload: { dryRun: false } });

    const notices = lambda.gitlab.work.issuesOf(NOTICES);
    const perShare = Object.groupBy(notices, (i) => markedKey(i.description) ?? "?");
    // One notice each: every attempt of the step opened both again (assigned to jane: a notification each).
    expect.soft(Object.fromEntries(Object.entries(perShare).map(([key, list]) => [key, list!.length]))).toEqual({ "group:10:group:20": 1, "project:100:group:20": 1 });
    // And the run ends with its report (a warning that the re-read failed), not a failed execution without one.
    expect(execution.getStatus(), execution.getStatus() === "SUCCEEDED" ? "" : execution.getError()?.errorMessage).toBe("SUCCEEDED");
  }, 60_000);
});
