/**
 * How many claim writes and Worker invokes one delivery has in flight at once (functions/shared/events/
 * dispatch.ts): stand-ins for the claims table and the invoke hold every call until the test lets the
 * event loop turn, and count what is pending then. No clock: a turn of the loop (setImmediate) runs
 * every microtask first, so whatever dispatch starts without waiting for an answer is counted.
 */
import { describe, expect, it } from "vitest";
import type { DeliveredEvent } from "../../../functions/shared/events/delivery.ts";
import { dispatch, EVENT_DISPATCH_CONCURRENCY } from "../../../functions/shared/events/dispatch.ts";
import type { Claims } from "../../../functions/shared/state/claims.ts";

/** Calls held until `drain` answers them, and the most ever pending at one turn of the loop. */
function heldCalls<T>(answer: T) {
  const pending: (() => void)[] = [];
  const held = {
    calls: 0,
    maxInFlight: 0,
    call: () =>
      new Promise<T>((resolve) => {
        held.calls++;
        pending.push(() => resolve(answer));
      }),
    drain: () => {
      held.maxInFlight = Math.max(held.maxInFlight, pending.length);
      pending.splice(0).forEach((resolve) => resolve());
    },
  };
  return held;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("dispatch: bounded concurrency", () => {
  it(`writes claims and starts Worker runs at most ${EVENT_DISPATCH_CONCURRENCY} at a time, however many subjects a delivery names`, async () => {
    const subjects = 100;
    const events: DeliveredEvent[] = Array.from({ length: subjects }, (_, i) => ({
      claim: `stream:${i}`,
      id: String(i),
      name: "project_group_link_created",
      subject: { kind: "project", id: i + 1 },
      createdAt: "2026-01-01T00:00:00.000Z",
    }));
    const claims = heldCalls(true);
    const starts = heldCalls(undefined);
    const standIn: Claims = { claim: claims.call, release: async () => undefined, holder: async () => undefined };
    let done = false;
    const tally = dispatch(events, { claims: standIn, start: starts.call, requestId: "req-1" }).finally(() => (done = true));
    while (!done) {
      await turn();
      claims.drain();
      starts.drain();
    }
    expect(await tally).toMatchObject({ events: subjects, duplicates: 0, failed: [] });
    expect([claims.calls, starts.calls]).toEqual([subjects, subjects]);
    expect(claims.maxInFlight).toBe(EVENT_DISPATCH_CONCURRENCY);
    expect(starts.maxInFlight).toBe(EVENT_DISPATCH_CONCURRENCY);
  });
});
