/**
 * What the Events function takes from a holder of the streaming token (functions/shared/events/
 * delivery.ts) against what the EventsWorker then takes (functions/shared/runs/job-request.ts's
 * WorkerEventSchema): whatever the Events function claims and reports "started" must be a worker
 * event the worker runs, or the answer says a run was started that never runs, and a well-formed
 * event about the same subject is taken down with it.
 */
import { describe, expect, it } from "vitest";
import { readDelivery } from "../../../functions/shared/events/delivery.ts";
import { dispatch } from "../../../functions/shared/events/dispatch.ts";
import type { GitLabRequestEvent } from "../../../functions/shared/events/verify-request.ts";
import { WorkerEventSchema, type SubjectWorkerEvent } from "../../../functions/shared/runs/job-request.ts";
import type { Claims } from "../../../functions/shared/state/claims.ts";
import { streamDelivery } from "../../../sim/aws/gitlab-deliveries.ts";

const claims: Claims = { claim: async () => true, release: async () => undefined, holder: async () => undefined };

/** The delivery as the handler gets it once the token is checked, then dispatched; what each started worker is invoked with (as JSON, as Lambda carries it). */
async function deliverAndStart(body: unknown): Promise<{ started: string[]; payloads: unknown[] }> {
  const event = { ...streamDelivery(body), sender: "stream" } as GitLabRequestEvent;
  const payloads: unknown[] = [];
  const tally = await dispatch(readDelivery(event), { claims, requestId: "req-review", start: async (w: SubjectWorkerEvent) => void payloads.push(JSON.parse(JSON.stringify(w))) });
  return { started: tally.started, payloads };
}

const groupShare = (over: Record<string, unknown>) => ({
  id: 4242,
  author_id: 5,
  entity_id: 77,
  entity_type: "Group",
  event_type: "group_share_with_group_link_created",
  created_at: new Date(Date.now() - 1_000).toISOString(),
  details: { target_id: 9, target_type: "Group" },
  ...over,
});

describe("events the Events function would start a run for, which the EventsWorker would refuse", () => {
  it.each([
    ["an entity_id that is not a number", { entity_id: "not-a-number" }],
    ["an entity_id of 0", { entity_id: 0 }],
    ["a negative entity_id", { entity_id: -4 }],
    ["a fractional entity_id", { entity_id: 2.5 }],
    ["a null entity_id", { entity_id: null }],
    ["a created_at in year 10000 (Date.parse takes it)", { created_at: "+010000-01-01T00:00:00Z" }],
    ["a created_at before year 0 (Date.parse takes it)", { created_at: "-000001-01-01T00:00:00Z" }],
  ])("%s: either ignored, or a worker event the worker takes", async (_, over) => {
    const { started, payloads } = await deliverAndStart(groupShare(over));
    const refusedByWorker = payloads.filter((p) => !WorkerEventSchema.safeParse(p).success);
    expect({ started, refusedByWorker }, "the Events function answers 200 'started', the worker fails the invocation on its schema and nothing runs").toEqual({ started: expect.any(Array), refusedByWorker: [] });
  });

  it("one malformed event about a subject takes a well-formed event about the same subject down with it (one worker event per subject)", async () => {
    const good = groupShare({ id: 1 });
    const bad = groupShare({ id: 2, created_at: "+010000-01-01T00:00:00Z" });
    const { payloads } = await deliverAndStart([good, bad]);
    expect(payloads).toHaveLength(1);
    // The good event is claimed (dispatch claims before it starts), but its run is the one the worker refuses.
    expect(WorkerEventSchema.safeParse(payloads[0]).success, "the well-formed event's run is refused with the malformed one").toBe(true);
  });
});

// Plain JSON whose value has no string or number form made delivery.ts's String()/Number() throw: the
// delivery was a 500 and an ERROR line ("gitlab-events failed", an alarm's input) for input the sender
// chose, and a relayed batch holding one such event was lost whole.
describe("an event of an unexpected shape is the sender's, never the function's own failure", () => {
  const unprintable = { toString: 1, valueOf: 1 };
  it.each(["entity_type", "created_at", "author_id", "entity_id"])("an event whose %s is an object with toString and valueOf keys is read, and the others of its delivery with it", async (field) => {
    const { started } = await deliverAndStart([groupShare({ [field]: unprintable }), groupShare({ id: 4243, entity_id: 78 })]);
    expect(started).toContain("group:78");
  });
});
