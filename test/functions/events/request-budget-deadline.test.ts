/**
 * The event runs' request budget (functions/shared/state/event-request-budget.ts) when a run is cut off by
 * the EventsWorker's deadline. A run adds what it sent once it ends, with the run's own signal: the
 * invocation's deadline, which has fired by then when the deadline is what ended the run. The count was
 * never written ("the event runs' request count could not be written"), so a flood of forged events
 * naming a subject whose run outlasts the invocation (a GitLab slowed by that very flood, its 429s
 * waited on) sent its requests uncounted, and the hour's budget never closed.
 */
import { GetItemCommand } from "@aws-sdk/client-dynamodb";
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { describe, expect, it, vi } from "vitest";
import type { SubjectWorkerEvent } from "../../../functions/shared/runs/job-request.ts";
import { dynamoClient } from "../../../functions/shared/state/dynamo-client.ts";
import { streamDelivery } from "../../../sim/aws/gitlab-deliveries.ts";
import { lambdaContext } from "../../support/lambda.ts";
import { eventsWorld } from "../../support/events-world.ts";
import { forgedShareEvent, IDS, watchPolicyText } from "../../support/watch-world.ts";

const world = eventsWorld({ policy: `${watchPolicyText()}  events: { maxRequestsPerHour: 1000 }\n` });

describe("the event runs' request budget, a run cut off by the deadline", () => {
  it("counts the requests the run sent before its invocation's deadline cut it off", async () => {
    vi.resetModules();
    const { handler: events } = await import("../../../functions/events.ts");
    const answer = (await events(streamDelivery([forgedShareEvent(993_001, IDS.app)]), lambdaContext({ functionName: "warden-test-Events" }))) as APIGatewayProxyStructuredResultV2;
    expect(answer.statusCode).toBe(200);
    const [payload] = world.lambdaApi.invokes.map((i) => JSON.parse(i.payload) as SubjectWorkerEvent);
    // GitLab answers the subject's read slowly: the run is still waiting when the deadline (4 s in) cuts it.
    world.gitlab.addFaults({ kind: "delay", ms: 10_000, method: "GET", path: `/api/v4/projects/${IDS.app}`, times: 10 });
    const before = world.gitlab.counters.requests;
    vi.resetModules();
    const { handler: worker } = await import("../../../functions/worker.ts");
    await worker(payload as never, lambdaContext({ functionName: "warden-test-EventsWorker", remainingMs: 14_000 })).catch(() => undefined);
    const sent = world.gitlab.counters.requests - before;
    expect(sent).toBeGreaterThan(0);
    const key = `budget:stream:requests:${new Date().toISOString().slice(0, 13)}`;
    const { Item } = await dynamoClient().send(new GetItemCommand({ TableName: world.table, Key: { id: { S: key } }, ConsistentRead: true }));
    expect(Number(Item?.["requests"]?.N ?? 0), "the run's requests were not counted: its deadline had fired").toBeGreaterThan(0);
  }, 30_000);
});
