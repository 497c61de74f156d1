/**
 * A durable Enforce run's time limit counts from the execution's start, as Lambda counts its timeout. It
 * counted from the step "begin" (the durable13 review): job.ts gave enforce `runLimitMs` and begin.ts added it to its own `startedAt`,
 * taken when "begin" finally succeeds. Every invocation the deadline cut before that (the policy's read,
 * "last sweep", "begin" itself: a GitLab holding GET /user off) was added to the run's end, though Lambda
 * counts the execution's timeout from its start. Real numbers: a 24 h execution, a 23 h 40 min run limit,
 * and "begin" retried after each deadline cut for as long as the lease-based limit allows (up to 10
 * invocations, 2.5 h): the examination and removals then went on past the execution's timeout, and Lambda
 * ended it TIMED_OUT with no `finish` (no report, no `job failed`, no metrics), which docs/aws.md promises
 * cannot happen ("ends with its report, complete: false ... rather than as Lambda's TIMED_OUT").
 *
 * Scaled down as time-limit.test.ts is: a 12 s execution (6 s run limit), each invocation told it has 4 s
 * (its deadline 1 s in). GET /user is held 3 s three times: "begin" is cut three times and succeeds
 * some 6 s into the execution. The listing is slow (20,000 projects, 60 ms a request, 0.3 s slices).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { EnforceReport } from "../../../lib/jobs/index.ts";
import type { GitLabSim } from "../../../sim/gitlab/index.ts";
import { groupSharesPolicy } from "../../support/policies.ts";
import { twinSims } from "../../support/steps.ts";
import { durableWorld, timedRunner } from "../../support/durable-world.ts";
import { stubAwsEnv, writePolicy } from "../../support/lambda.ts";

const world = durableWorld({ skipTime: false });
const sims: GitLabSim[] = [];
const EXECUTION_SECONDS = 12;
const RUN_LIMIT_MS = (EXECUTION_SECONDS * 1000) / 2;
const REMAINING_MS = 4_000;

beforeEach(async () => {
  stubAwsEnv({ AWS_ENDPOINT_URL_SECRETS_MANAGER: world.secretsManager.url, WARDEN_POLICY: await writePolicy(groupSharesPolicy()), WARDEN_REPORT_ONLY: "false", ...(await world.dynamo.freshClaimsEnv()) });
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(sims.map((sim) => sim.close()));
  sims.length = 0;
});

describe("the run's time limit of a durable Enforce execution", () => {
  it("is counted from the execution's start: a 'begin' the deadline cut several times does not push the run's end past the execution's timeout", async () => {
    const { stepped: sim } = await twinSims(sims, { projects: 20_000, seed: 13, tree: { groups: 300, maxDepth: 5, heavy: 0.5 }, latencyMs: 60 });
    sim.addFaults({ kind: "delay", ms: 3_000, method: "GET", route: "GET /user", times: 3 });
    vi.stubEnv("GITLAB_URL", sim.url);
    vi.stubEnv("WARDEN_SLICE_SECONDS", "0.3");
    vi.stubEnv("WARDEN_EXECUTION_TIMEOUT_SECONDS", String(EXECUTION_SECONDS));
    vi.resetModules();
    const { handler } = await import("../../../functions/enforce.ts");
    const { runner, overran } = timedRunner<EnforceReport>(handler, REMAINING_MS);
    const started = Date.now();
    const execution = await runner.run({ payload: {} });
    const tookMs = Date.now() - started;
    expect(overran()).toEqual([]);
    expect(sim.pendingFaults()).toBe(0);
    const begins = execution.getOperations().filter((op) => op.getName() === "begin");
    expect(begins[0]?.getStepDetails()?.attempt ?? 1, "begin was cut by the deadline and attempted again").toBeGreaterThan(1);
    expect(execution.getStatus()).toBe("SUCCEEDED");
    const report = execution.getResult()!;
    // The run stopped at its limit, counted from the execution's start (a slice and a finish of slack), ...
    expect(Date.parse(report.finishedAt) - started, "the run ended within its limit, counted from the execution's start").toBeLessThanOrEqual(RUN_LIMIT_MS + 2_500);
    // ... and so within the execution's own time, where Lambda would otherwise end it TIMED_OUT with no report.
    expect(tookMs, "the execution ended within its timeout").toBeLessThanOrEqual(EXECUTION_SECONDS * 1000);
  }, 120_000);
});
