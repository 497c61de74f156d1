/**
 * How much of a delivery reaches a log line. The Events function's own line
 * carries 20 ids at most ("ids and names only, bounded by delivery.ts"), but one delivery may hold 1,000
 * events about one subject, each id up to 128 characters of the sender's choosing, and two lines carry
 * every one of them: dispatch's ERROR line when the worker cannot be started, and the EventsWorker's
 * `job finished` line (its `events` field). A holder of the streaming token so writes lines of hundreds
 * of kilobytes, past what CloudWatch Logs takes as one event (256 KB): the line is cut, no longer JSON, and
 * that run's `job finished` (its summary, exit code, warnings) is lost to Logs Insights and metric filters.
 */
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { describe, expect, it, vi } from "vitest";
import type { SubjectWorkerEvent } from "../../../functions/shared/runs/job-request.ts";
import { streamDelivery } from "../../../sim/aws/gitlab-deliveries.ts";
import { captureLogs, lambdaContext } from "../../support/lambda.ts";
import { eventsWorld } from "../../support/events-world.ts";
import { IDS } from "../../support/watch-world.ts";

const world = eventsWorld({ reportOnly: true });

/** 1,000 events (the most a delivery may hold) about acme/app, each with an id of 128 characters, most of them control characters (six in JSON each): under 1 MiB of body. */
const flood = Array.from({ length: 1_000 }, (_, i) => ({
  id: `${i}-`.padEnd(128, "\u0001"),
  entity_id: IDS.partners,
  entity_type: "Group",
  event_type: "project_group_link_created",
  created_at: new Date(Date.now() - 1_000).toISOString(),
  details: { target_id: IDS.app, target_type: "Project" },
}));

/** The longest line, and the lines with this message. */
function lines(all: Record<string, unknown>[], message: string) {
  return all.filter((line) => line["message"] === message).map((line) => JSON.stringify(line).length);
}

async function deliver(): Promise<APIGatewayProxyStructuredResultV2> {
  vi.resetModules();
  const { handler } = await import("../../../functions/events.ts");
  return (await handler(streamDelivery(flood), lambdaContext({ functionName: "warden-test-Events" }))) as APIGatewayProxyStructuredResultV2;
}

describe("review: a log line carries a bounded part of a delivery, however many events it held", () => {
  it("the ERROR line for a worker that could not be started names at most a few dozen of its events (the gitlab-events line names 20)", async () => {
    world.lambdaApi.answer = "throttle";
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    expect((await deliver()).statusCode).toBe(200);
    const all = logs.lines();
    logs.restore();
    const sizes = lines(all, "starting the worker for a subject failed; the scheduled run will find its strays");
    expect(sizes).toHaveLength(1);
    expect(sizes[0], "the ERROR line carries all 1,000 ids (CloudWatch Logs cuts an event at 256 KB)").toBeLessThan(20_000);
  });

  it("the EventsWorker's `job finished` line names at most a few dozen of the run's events", async () => {
    expect((await deliver()).statusCode).toBe(200);
    const [payload] = world.lambdaApi.invokes.map((i) => JSON.parse(i.payload) as SubjectWorkerEvent);
    expect(payload!.events).toHaveLength(1_000);
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    vi.resetModules();
    const { handler } = await import("../../../functions/worker.ts");
    await handler(payload as never, lambdaContext({ functionName: "warden-test-EventsWorker" }));
    const all = logs.lines();
    logs.restore();
    const sizes = lines(all, "job finished");
    expect(sizes).toHaveLength(1);
    expect(sizes[0], "the job finished line carries all 1,000 events' names and ids (CloudWatch Logs cuts an event at 256 KB)").toBeLessThan(20_000);
  });
});
