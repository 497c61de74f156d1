/**
 * The stream's removals under a policy no full run has judged yet (functions/shared/state/removal-budget.ts).
 * Whoever holds the streaming token chooses the subjects the EventsWorker enforces, one an event, and
 * each targeted run's guard judges only its own plan; the last full run's record (rules:last-sweep)
 * counts only under the policy it was written for. So before any full run under the current policy (a
 * fresh deployment, or any policy change: the schedule is daily) forged events removed every share the
 * policy calls stray, however many: what a full run would refuse as more than maxRemovals (a policy that
 * lost a rule; a hostile review's finding). Now their removals add up to maxRemovals at most until a full
 * run under the policy passes the guard.
 */
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { describe, expect, it, vi } from "vitest";
import type { SubjectWorkerEvent } from "../../../functions/shared/runs/job-request.ts";
import { dynamoLastSweep } from "../../../functions/shared/state/last-sweep.ts";
import { policySha256 } from "../../../lib/policy/index.ts";
import { streamDelivery } from "../../../sim/aws/gitlab-deliveries.ts";
import { captureLogs, lambdaContext } from "../../support/lambda.ts";
import { eventsWorld } from "../../support/events-world.ts";
import { allShares, forgedShareEvent, IDS, share, watchPolicyText } from "../../support/watch-world.ts";

const POLICY = watchPolicyText({ maxRemovals: 1 });
const world = eventsWorld({ policy: POLICY });

/** Two strays (partners may have nothing in acme), more than maxRemovals (1); one forged event for each, each run by the EventsWorker as Lambda would. */
async function forgedEventsForTwoStrays(): Promise<string[]> {
  await share(world.gitlab, "jane", `/projects/${IDS.app}/share`, IDS.partners);
  await share(world.gitlab, "jane", `/projects/${IDS.api}/share`, IDS.partners);
  const before = allShares(world.gitlab);
  vi.resetModules();
  const { handler: events } = await import("../../../functions/events.ts");
  const answer = (await events(streamDelivery([forgedShareEvent(990_001, IDS.app), forgedShareEvent(990_002, IDS.api)]), lambdaContext({ functionName: "warden-test-Events" }))) as APIGatewayProxyStructuredResultV2;
  expect(answer.statusCode).toBe(200);
  const payloads = world.lambdaApi.invokes.map((i) => JSON.parse(i.payload) as SubjectWorkerEvent);
  expect(payloads).toHaveLength(2);
  for (const payload of payloads) {
    vi.resetModules();
    const { handler: worker } = await import("../../../functions/worker.ts");
    await worker(payload as never, lambdaContext({ functionName: "warden-test-EventsWorker" }));
  }
  return before.filter((s) => !allShares(world.gitlab).includes(s));
}

describe("the stream's removals under a policy no full run has judged", () => {
  it("add up to gitlab.guard.maxRemovals at most: one event's share is removed, the other's run removes nothing and says why", async () => {
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const removed = await forgedEventsForTwoStrays();
    const lines = JSON.stringify(logs.lines());
    logs.restore();
    expect(removed).toHaveLength(1);
    expect(lines).toContain("guard: no full run has judged this policy yet");
  });

  it("once a full run under the policy passed the guard, each run's own guard judges it again", async () => {
    await dynamoLastSweep().write({ policySha256: policySha256(POLICY), unmatched: [], at: new Date().toISOString() });
    expect(await forgedEventsForTwoStrays()).toHaveLength(2);
  });
});
