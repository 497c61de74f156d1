/**
 * A durable Enforce execution whose invocations end while removals wait (a 429 with a Retry-After far
 * longer than the invocation has left), run by AWS's local durable runner against the loopback
 * GitLab simulator. Lambda would kill such an invocation mid-step; the runner reports a short time
 * left instead, so the invocation's deadline must end each step inside it, and nothing removed may
 * be missing from the report or the audit lines, which `restore` reads. A DELETE held off that way
 * every time once kept an execution adding parts until its own timeout ended it without a report.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { restoreInputFrom, type EnforceReport, type RestoreReport } from "../../../lib/jobs/index.ts";
import { shareKey } from "../../../lib/jobs/shares/plan.ts";
import type { GitLabSim } from "../../../sim/gitlab/index.ts";
import { groupSharesPolicy } from "../../support/policies.ts";
import { removals, twinSims } from "../../support/steps.ts";
import { durableWorld, timedRunner } from "../../support/durable-world.ts";
import { captureLogs, coldEnforce, stubAwsEnv, writePolicy } from "../../support/lambda.ts";

const world = durableWorld({ skipTime: false });
const sims: GitLabSim[] = [];
/** What each invocation has, as the runner's context tells it (Lambda's counts down from the function's timeout). */
const REMAINING_MS = 4_000;

beforeEach(async () => {
  stubAwsEnv({ AWS_ENDPOINT_URL_SECRETS_MANAGER: world.secretsManager.url, WARDEN_POLICY: await writePolicy(groupSharesPolicy()), WARDEN_REPORT_ONLY: "false", ...(await world.dynamo.freshClaimsEnv()) });
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(sims.map((sim) => sim.close()));
  sims.length = 0;
});

/** The Enforce handler in the local durable runner, each invocation told it has REMAINING_MS (durable-world.ts's timedRunner). */
async function cutRunner(sim: GitLabSim, env: Record<string, string> = {}) {
  vi.stubEnv("GITLAB_URL", sim.url);
  vi.stubEnv("WARDEN_SLICE_SECONDS", "0.3");
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  vi.resetModules();
  const { handler } = await import("../../../functions/enforce.ts");
  return timedRunner<EnforceReport>(handler, REMAINING_MS);
}

describe("a durable Enforce execution cut while removing", () => {
  it("a DELETE held by a long Retry-After: every invocation ends inside its time, and every share removed is done in the report and in an audit line, and restored from either", async () => {
    const { stepped: sim, strays } = await twinSims(sims, { projects: 1_500, seed: 21, tree: { groups: 30, maxDepth: 3 } });
    // The first removal of each kind is told to come back in 8 s: twice what the invocation has, so waiting it out takes several.
    sim.addFaults(
      { kind: "429", headers: "retry-after", seconds: 8, route: "DELETE /projects/:id/share/:group_id", times: 1 },
      { kind: "429", headers: "retry-after", seconds: 8, route: "DELETE /groups/:id/share/:group_id", times: 1 },
    );
    const { runner, overran } = await cutRunner(sim, { POWERTOOLS_LOG_LEVEL: "INFO" });
    const logs = captureLogs();
    const execution = await runner.run({ payload: { dryRun: false } });
    const lines = logs.lines();
    logs.restore();

    expect(execution.getStatus()).toBe("SUCCEEDED");
    expect(overran()).toEqual([]);
    expect(sim.pendingFaults()).toBe(0);
    const report = execution.getResult()!;
    // A removal step the deadline cut went on in a further part of its batch.
    const names = execution.getOperations().map((op) => op.getName());
    expect(names.some((name) => name !== undefined && /^remove \d+ part 2$/.test(name))).toBe(true);
    expect(strays).toBeGreaterThan(10);
    expect(report.summary).toMatchObject({ strays, removed: strays, alreadyGone: 0, failed: 0, complete: true });
    expect(removals(sim)).toBe(strays + 2);

    // Every share removed has its audit line; restore reads the same shares from the lines and from the report.
    const removedKeys = report.actions.map(shareKey).sort();
    const audited = lines.filter((line) => line["message"] === "remove-share" || line["message"] === "remove-group-share");
    expect(restoreInputFrom({ lines: audited }).removals.map(shareKey).sort()).toEqual(removedKeys);
    expect(restoreInputFrom(report).removals.map(shareKey).sort()).toEqual(removedKeys);
    // The policy still calls them stray: includeStray brings them back all the same.
    const restored = await (await coldEnforce<RestoreReport>())({ restore: report, dryRun: false, includeStray: true });
    expect(restored.actions.map((a) => a.status)).toEqual(Array(strays).fill("done"));
  }, 120_000);

  it("a DELETE held off longer than an invocation every time: the execution ends at its time limit with that removal left for the next run, instead of adding parts without end", async () => {
    const { stepped: sim, strays } = await twinSims(sims, { projects: 200, seed: 21, tree: { groups: 10, maxDepth: 2 } });
    sim.addFaults({ kind: "429", headers: "retry-after", seconds: 30, route: "DELETE /projects/:id/share/:group_id", times: 1_000_000 });
    // An execution of 12 s may run 6 s (runLimit: half of a short limit); each invocation has 4.
    const { runner, overran } = await cutRunner(sim, { WARDEN_EXECUTION_TIMEOUT_SECONDS: "12" });
    const execution = await runner.run({ payload: { dryRun: false } });
    expect(execution.getStatus()).toBe("SUCCEEDED");
    expect(overran()).toEqual([]);
    const report = execution.getResult()!;
    // The group shares are removed; the project shares, every one held, are left as planned.
    const held = report.actions.filter((a) => a.kind === "project");
    expect(report.summary).toMatchObject({ strays, complete: false, removed: strays - held.length });
    expect(held.length).toBeGreaterThan(0);
    expect(held.every((a) => a.status === "planned")).toBe(true);
    // Parts of the held step, each an invocation's: bounded by the time limit, not by the execution's own timeout.
    const parts = execution.getOperations().filter((op) => /^remove \d+ part \d+$/.test(op.getName() ?? "")).length;
    expect(parts, `${parts} parts`).toBeLessThan(10);
  }, 120_000);
});
