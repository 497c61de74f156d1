/**
 * The hour's request budget is asked before the policy is read (8dc8865), by the limit of the last policy
 * the container read. A container that had read none (a cold start, a scale-out) asked by the default,
 * 3,600, and once the hour's runs had sent that many refused the run before reading the policy, so it
 * never learned the policy's own, higher limit: every run it got that hour was refused, though the policy
 * allowed them (the recent-changes review). Such a container now reads the policy once and asks by its limit.
 */
import { describe, expect, it, vi } from "vitest";
import type { SubjectWorkerEvent } from "../../../functions/shared/runs/job-request.ts";
import { dynamoEventRequestBudget } from "../../../functions/shared/state/event-request-budget.ts";
import { streamDelivery } from "../../../sim/aws/gitlab-deliveries.ts";
import { captureLogs, lambdaContext } from "../../support/lambda.ts";
import { eventsWorld } from "../../support/events-world.ts";
import { forgedShareEvent, IDS, watchPolicyText } from "../../support/watch-world.ts";

const POLICY = `${watchPolicyText()}  events: { maxRequestsPerHour: 10000 }\n`;
const world = eventsWorld({ policy: POLICY });

describe("the event runs' request budget under a policy that raises it", () => {
  it("a fresh container starts an event's run while the hour's runs have sent fewer than the policy's limit", async () => {
    // The hour's runs (in other containers) have sent 4,000 requests: above the default, far below the policy's 10,000.
    const spent = await dynamoEventRequestBudget().open(1_000_000);
    await spent!.spend(4_000);

    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    vi.resetModules();
    try {
      const { handler: events } = await import("../../../functions/events.ts");
      const { handler: worker } = await import("../../../functions/worker.ts");
      world.lambdaApi.invokes.length = 0;
      await events(streamDelivery([forgedShareEvent(995_001, IDS.app)]), lambdaContext({ functionName: "warden-test-Events" }));
      const [payload] = world.lambdaApi.invokes.map((i) => JSON.parse(i.payload) as SubjectWorkerEvent);
      expect(payload).toBeDefined();
      const before = world.gitlab.counters.requests;
      await worker(payload as never, lambdaContext({ functionName: "warden-test-EventsWorker" }));
      const refusals = logs.lines().filter((l) => JSON.stringify(l).includes("the hour's request budget is spent"));
      expect(refusals, "runs refused by the default limit, the policy's never read").toEqual([]);
      expect(world.gitlab.counters.requests - before).toBeGreaterThan(0);
    } finally {
      logs.restore();
    }
  });
});
