/**
 * The Watch's removals under a policy no full run has judged yet (functions/shared/state/removal-budget.ts).
 * Each poll enforces the subjects of its audit events in one targeted run, whose guard sees only its own
 * batch; so before a full run under the current policy (a fresh deployment, any policy change: the schedule
 * is daily), a policy that lost a rule was enforced poll after poll (one a minute), each removing up to
 * maxRemovals, and none of it counted against the EventsWorker's budget (the together review's finding).
 * Now the Watch's runs take from the budget the EventsWorker's do: together they stay within maxRemovals
 * until a full run under the policy passes the guard.
 */
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { describe, expect, it, vi } from "vitest";
import type { WatchResult } from "../../functions/watch.ts";
import type { SubjectWorkerEvent } from "../../functions/shared/runs/job-request.ts";
import { streamDelivery } from "../../sim/aws/gitlab-deliveries.ts";
import { lambdaContext } from "../support/lambda.ts";
import { eventsWorld } from "../support/events-world.ts";
import { allShares, forgedShareEvent, IDS, share, watchPolicyText } from "../support/watch-world.ts";

// maxRemovals 1, and no rules:last-sweep record: no full run has judged this policy.
const world = eventsWorld({ policy: watchPolicyText({ maxRemovals: 1 }) });

async function poll(): Promise<WatchResult> {
  vi.resetModules();
  const { handler } = await import("../../functions/watch.ts");
  return (await handler({ source: "schedule" } as never, lambdaContext())) as WatchResult;
}

async function streamEvent(id: number, projectId: number): Promise<void> {
  vi.resetModules();
  const { handler: events } = await import("../../functions/events.ts");
  const answer = (await events(streamDelivery([forgedShareEvent(id, projectId)]), lambdaContext({ functionName: "warden-test-Events" }))) as APIGatewayProxyStructuredResultV2;
  expect(answer.statusCode).toBe(200);
  for (const invoke of world.lambdaApi.invokes.splice(0)) {
    vi.resetModules();
    const { handler: worker } = await import("../../functions/worker.ts");
    await worker(JSON.parse(invoke.payload) as SubjectWorkerEvent as never, lambdaContext({ functionName: "warden-test-EventsWorker" }));
  }
}

const removedOf = (before: string[]) => before.filter((s) => !allShares(world.gitlab).includes(s));

it("control: once a full run under the policy passed the guard, each poll's own guard judges it (both removed)", async () => {
  const { dynamoLastSweep } = await import("../../functions/shared/state/last-sweep.ts");
  const { policySha256 } = await import("../../lib/policy/index.ts");
  await dynamoLastSweep().write({ policySha256: policySha256(watchPolicyText({ maxRemovals: 1 })), unmatched: [], at: new Date().toISOString() });
  expect(await poll()).toEqual({ polled: "started", events: 0 });
  await share(world.gitlab, "jane", `/projects/${IDS.app}/share`, IDS.partners);
  await poll();
  await share(world.gitlab, "jane", `/projects/${IDS.api}/share`, IDS.partners);
  await poll();
  expect(allShares(world.gitlab)).toEqual([]);
});

describe("the Watch's runs under a policy no full run has judged", () => {
  it("two polls, a stray each: the second removes nothing (the budget of a policy no full run judged is spent)", async () => {
    expect(await poll()).toEqual({ polled: "started", events: 0 });
    await share(world.gitlab, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    const first = await poll();
    expect(first).toMatchObject({ actions: [{ projectId: IDS.app, status: "done" }] });
    await share(world.gitlab, "jane", `/projects/${IDS.api}/share`, IDS.partners);
    const second = (await poll()) as Extract<WatchResult, { job: string }>;
    // Judged alone, the second poll's one removal passed its guard (1 <= 1): at a poll a minute, 60 x maxRemovals an hour.
    // It trips now, saying why, as the stream's second run does (test/functions/events/removal-budget.test.ts).
    expect(allShares(world.gitlab)).toEqual([`p${IDS.api}:${IDS.partners}`]);
    expect(second.warnings.join("\n")).toContain("no full run has judged this policy yet");
  });

  it("a watch poll and a stream run together stay within gitlab.guard.maxRemovals", async () => {
    expect(await poll()).toEqual({ polled: "started", events: 0 });
    await share(world.gitlab, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    await share(world.gitlab, "jane", `/projects/${IDS.api}/share`, IDS.partners);
    const before = allShares(world.gitlab);
    // The stream removes the app share (its budget: 1 of 1)...
    await streamEvent(990_001, IDS.app);
    expect(removedOf(before)).toEqual([`p${IDS.app}:${IDS.partners}`]);
    // ...and the watch's poll of the same minute, which sees both events, removes the other one as well.
    await poll();
    expect(removedOf(before)).toHaveLength(1);
  });
});
