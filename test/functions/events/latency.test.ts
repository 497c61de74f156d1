/**
 * The time to enforcement the stream reports (functions/shared/events/latency.ts): from the earliest
 * event naming the subject to the end of the run that removed its strays. The events' times are the
 * sender's word: one dated before an event is claimed for (1970, from a holder of the streaming token)
 * is left out rather than reported as a delay of half a century.
 */
import { describe, expect, it } from "vitest";
import { EVENT_CLAIM_SECONDS } from "../../../functions/shared/events/dispatch.ts";
import { secondsToEnforcement } from "../../../functions/shared/events/latency.ts";
import type { EnforceReport } from "../../../lib/jobs/index.ts";

const finishedAt = "2026-11-30T12:00:00.000Z";
const run = (removed: number) => ({ finishedAt, summary: { removed } }) as EnforceReport;
const before = (seconds: number) => new Date(Date.parse(finishedAt) - seconds * 1000).toISOString();

describe("secondsToEnforcement", () => {
  it("counts from the earliest event to the run's end, for a run that removed something", () => {
    expect(secondsToEnforcement(run(1), [{ createdAt: before(3) }, { createdAt: before(7) }])).toBe(7);
    expect(secondsToEnforcement(run(0), [{ createdAt: before(3) }])).toBeUndefined();
  });

  it("leaves out an event dated before the claim window: a forged 1970 is not a delay", () => {
    expect(secondsToEnforcement(run(1), [{ createdAt: "1970-01-01T00:00:00.000Z" }, { createdAt: before(4) }])).toBe(4);
    expect(secondsToEnforcement(run(1), [{ createdAt: before(EVENT_CLAIM_SECONDS + 1) }])).toBeUndefined();
    expect(secondsToEnforcement(run(1), [{ createdAt: before(EVENT_CLAIM_SECONDS) }])).toBe(EVENT_CLAIM_SECONDS);
  });
});
