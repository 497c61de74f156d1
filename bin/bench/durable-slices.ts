/**
 * How the benchmark's durable row stands in for Lambda's invocation budget, and reads back how the
 * execution was cut: pure, so test/bench tests it.
 */
import { SLICE_FLOOR_MS, SLICE_MARGIN_MS } from "../../functions/shared/durable/steps.ts";

/**
 * WARDEN_SLICE_SECONDS for an invocation of `invocationS` (Lambda's timeout, 900 at most) when the
 * budgets' windows are divided by `timeScale`: the slice the handler gives itself by default, on the
 * same clock as the budgets (a 15-minute invocation works 10 minutes: 60 s at a time scale of 10).
 */
export function sliceSeconds(invocationS: number, timeScale: number): number {
  return Math.max(SLICE_FLOOR_MS / 1000, invocationS - SLICE_MARGIN_MS / 1000) / timeScale;
}

/** One invocation as the local durable runner records it. */
export interface InvocationTimes {
  startTimestamp: Date | undefined;
  endTimestamp: Date | undefined;
}

/**
 * The time between invocations (the durable waits, and the runner starting the next invocation) and
 * the longest invocation, in ms. Invocations with a missing timestamp are left out of both.
 */
export function invocationTimes(invocations: InvocationTimes[]): { pausedMs: number; longestMs: number } {
  let pausedMs = 0;
  let longestMs = 0;
  for (const [i, inv] of invocations.entries()) {
    const [start, end] = [inv.startTimestamp?.getTime(), inv.endTimestamp?.getTime()];
    if (start !== undefined && end !== undefined) longestMs = Math.max(longestMs, end - start);
    const previousEnd = invocations[i - 1]?.endTimestamp?.getTime();
    if (start !== undefined && previousEnd !== undefined) pausedMs += start - previousEnd;
  }
  return { pausedMs, longestMs };
}
