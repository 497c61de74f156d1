import { describe, expect, it } from "vitest";
import { invocationTimes, sliceSeconds } from "../../bin/bench/durable-slices.ts";

describe("the durable row's invocation budget", () => {
  it("works the slice the handler gives a real invocation (its time less 5 minutes, 30 s at the least), on the budgets' clock", () => {
    expect(sliceSeconds(900, 10)).toBe(60);
    expect(sliceSeconds(900, 1)).toBe(600);
    expect(sliceSeconds(60, 10)).toBe(3);
  });
});

describe("how an execution was cut", () => {
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000);

  it("adds up the time between invocations and finds the longest invocation", () => {
    const invocations = [
      { startTimestamp: at(0), endTimestamp: at(60) },
      { startTimestamp: at(61.2), endTimestamp: at(125) },
      { startTimestamp: at(126), endTimestamp: at(130) },
    ];
    expect(invocationTimes(invocations)).toEqual({ pausedMs: 2200, longestMs: 63_800 });
  });

  it("one invocation: no pause", () => {
    expect(invocationTimes([{ startTimestamp: at(0), endTimestamp: at(5) }])).toEqual({ pausedMs: 0, longestMs: 5000 });
  });

  it("leaves out what a missing timestamp hides", () => {
    expect(invocationTimes([{ startTimestamp: at(0), endTimestamp: undefined }, { startTimestamp: at(3), endTimestamp: at(4) }])).toEqual({ pausedMs: 0, longestMs: 1000 });
  });
});
