/**
 * The GitLab requests the EventsWorker's runs send in an hour (functions/shared/state/event-request-budget.ts).
 * Whoever holds the streaming token chooses how many events arrive, each a new one (a claim is the whole
 * event's hash), and each starts a run that reads GitLab with the jobs' token: a flood of forged events
 * spent the rate limit GitLab gives that token, which the scheduled sweep and the watch need too (they
 * wait on its 429s). Now the event runs of one hour send at most about gitlab.events.maxRequestsPerHour
 * (a run in flight may finish past it); past it a run is not started, and says why: the scheduled sweep
 * finds what its event named.
 */
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { describe, expect, it, vi } from "vitest";
import type { SubjectWorkerEvent } from "../../../functions/shared/runs/job-request.ts";
import { streamDelivery } from "../../../sim/aws/gitlab-deliveries.ts";
import { captureLogs, lambdaContext } from "../../support/lambda.ts";
import { eventsWorld } from "../../support/events-world.ts";
import { forgedShareEvent, IDS, watchPolicyText } from "../../support/watch-world.ts";

const BUDGET = 25;
const world = eventsWorld({ policy: `${watchPolicyText()}  events: { maxRequestsPerHour: ${BUDGET} }\n` });

/** One delivery of one forged event, its run by the EventsWorker as Lambda would: the GitLab requests it cost. */
async function forgedRun(id: number): Promise<number> {
  const before = world.gitlab.counters.requests;
  world.lambdaApi.invokes.length = 0;
  vi.resetModules();
  const { handler: events } = await import("../../../functions/events.ts");
  const answer = (await events(streamDelivery([forgedShareEvent(id, IDS.app)]), lambdaContext({ functionName: "warden-test-Events" }))) as APIGatewayProxyStructuredResultV2;
  expect(answer.statusCode).toBe(200);
  const [payload] = world.lambdaApi.invokes.map((i) => JSON.parse(i.payload) as SubjectWorkerEvent);
  vi.resetModules();
  const { handler: worker } = await import("../../../functions/worker.ts");
  await worker(payload as never, lambdaContext({ functionName: "warden-test-EventsWorker" }));
  return world.gitlab.counters.requests - before;
}

describe("the event runs' GitLab requests in an hour", () => {
  it("stay within gitlab.events.maxRequestsPerHour however many events are forged: past it no run starts, and the log says why", async () => {
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const spent: number[] = [];
    for (let i = 0; i < 12; i++) spent.push(await forgedRun(991_000 + i));
    const lines = JSON.stringify(logs.lines());
    logs.restore();
    const [first] = spent;
    expect(first).toBeGreaterThan(0);
    // A run that started may end past the budget, by its own requests at most.
    expect(spent.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(BUDGET + first!);
    expect(spent.at(-1)).toBe(0);
    expect(lines).toContain("gitlab.events.maxRequestsPerHour");
  });
});
