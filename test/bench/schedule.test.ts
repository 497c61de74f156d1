import { describe, expect, it } from "vitest";
import { floorMs, lowerBound } from "../../bin/bench/schedule.ts";

describe("the benchmark's floor", () => {
  it("without limits: the job's sequential steps, then the removals `concurrency` at a time", () => {
    // token check, scope look-up, 10 pages one after another, then 8 removals 4 at a time: 14 round trips.
    expect(floorMs([10], 8, 4, 10)).toBe(140);
    // Split: first page, subgroup list, then partitions of 5, 3 and 3 pages on 2 workers (5 | 3+3), then removals.
    expect(floorMs([5, 3, 3], 4, 2, 10)).toBe((2 + 1 + 1 + 6 + 2) * 10);
  });

  it("under a budget: a request waits for the window that admits it, windows opening at the first request after the last closed", () => {
    // 5 requests per 1,000 ms overall: requests 1–5 from t=0, 6–10 from t=1000, 11–14 from t=2000.
    expect(floorMs([10], 2, 1, 10, [{ limit: 5, windowMs: 1000 }])).toBe(2000 + 3 * 10 + 10);
  });

  it("the lower bound is scope resolution, full pages and one DELETE per stray", () => {
    expect(lowerBound(1001, 30)).toEqual({ requests: 2 + 11 + 30, pages: 11 });
  });
});
