/**
 * The removal budget the EventsWorker's runs share under a policy no full run
 * has judged (functions/shared/state/removal-budget.ts, lib/jobs/enforce/phases/guard.ts). docs/security.md
 * promises that "before any full run under a policy, the stream's runs remove no more than
 * gitlab.guard.maxRemovals in all". The budget is taken from by each run's *plan*, before it removes;
 * nothing was given back: a removal GitLab refuses, or one a concurrent run of the same subject already
 * made, used it up, so runs that removed fewer shares than maxRemovals (none at all, in the first case)
 * left no budget, and a real stray elsewhere was kept until the daily sweep.
 */
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { describe, expect, it, vi } from "vitest";
import type { SubjectWorkerEvent } from "../../../functions/shared/runs/job-request.ts";
import { streamDelivery } from "../../../sim/aws/gitlab-deliveries.ts";
import { lambdaContext } from "../../support/lambda.ts";
import { eventsWorld } from "../../support/events-world.ts";
import { allShares, forgedShareEvent, IDS, share, watchPolicyText } from "../../support/watch-world.ts";

const world = eventsWorld({ policy: watchPolicyText({ maxRemovals: 2 }) });

/** Each event in a delivery of its own, as GitLab streams them; the worker events the Events function started. */
async function deliverEach(events: object[]): Promise<SubjectWorkerEvent[]> {
  world.lambdaApi.invokes = [];
  for (const event of events) {
    vi.resetModules();
    const { handler } = await import("../../../functions/events.ts");
    const answer = (await handler(streamDelivery(event), lambdaContext({ functionName: "warden-test-Events" }))) as APIGatewayProxyStructuredResultV2;
    expect(answer.statusCode).toBe(200);
  }
  return world.lambdaApi.invokes.map((i) => JSON.parse(i.payload) as SubjectWorkerEvent);
}

async function worker(): Promise<(payload: SubjectWorkerEvent) => Promise<unknown>> {
  vi.resetModules();
  const { handler } = await import("../../../functions/worker.ts");
  return (payload) => handler(payload as never, lambdaContext({ functionName: "warden-test-EventsWorker" }));
}

describe("the stream's removal budget counts removals made, not removals planned", () => {
  it("a stray GitLab refuses to remove (403), named by two events, removes nothing and must not use up the budget: a real stray elsewhere is still removed", async () => {
    await share(world.gitlab, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    await share(world.gitlab, "jane", `/projects/${IDS.api}/share`, IDS.partners);
    // The token is not allowed to remove acme/app's share (a project it is not Maintainer of): every attempt is refused.
    world.gitlab.addFaults({ kind: "status", status: 403, method: "DELETE", path: `/api/v4/projects/${IDS.app}/share/${IDS.partners}`, times: 1_000 });
    const run = await worker();
    // Whoever holds the streaming token names acme/app twice (or GitLab streams two events about it).
    for (const payload of await deliverEach([forgedShareEvent(970_001, IDS.app), forgedShareEvent(970_002, IDS.app)])) await run(payload);
    expect(allShares(world.gitlab)).toContain(`p${IDS.app}:${IDS.partners}`);
    // No share was removed so far, so the budget (maxRemovals 2) is whole: acme/team/api's stray goes.
    for (const payload of await deliverEach([forgedShareEvent(970_003, IDS.api)])) await run(payload);
    expect(allShares(world.gitlab), "acme/team/api's stray was kept: two refused removals used up the budget of 2 though nothing was removed").not.toContain(`p${IDS.api}:${IDS.partners}`);
  });

  it("two events about one project, run at once (the EventsWorker runs several), remove its one stray once and take one removal from the budget, not two", async () => {
    await share(world.gitlab, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    await share(world.gitlab, "jane", `/projects/${IDS.api}/share`, IDS.partners);
    // Network time on the removal: both runs have read the share before either removes it.
    world.gitlab.addFaults({ kind: "delay", ms: 300, method: "DELETE", times: 2 });
    const run = await worker();
    const both = await deliverEach([forgedShareEvent(971_001, IDS.app), forgedShareEvent(971_002, IDS.app)]);
    expect(both).toHaveLength(2);
    await Promise.all(both.map((payload) => run(payload)));
    expect(allShares(world.gitlab)).not.toContain(`p${IDS.app}:${IDS.partners}`);
    // One share removed of maxRemovals 2: there is room for acme/team/api's.
    for (const payload of await deliverEach([forgedShareEvent(971_003, IDS.api)])) await run(payload);
    expect(allShares(world.gitlab), "acme/team/api's stray was kept: one removal, counted twice by two concurrent runs, used up the budget of 2").not.toContain(`p${IDS.api}:${IDS.partners}`);
  });
});
