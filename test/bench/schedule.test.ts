import { describe, expect, it } from "vitest";
import { floorMs, lowerBound } from "../../bin/bench/schedule.ts";

describe("the benchmark's floor", () => {
  it("without limits: the token check and the administrator's read with the scope look-up, the first pages, the rest of the examination on every slot, the sweep for moves, then the removals", () => {
    // 1,000 projects (10 pages), 3 groups (1 descendants page, 3 reads), 8 strays, 4 slots: the three look-ups
    // together 1, first pages 1, the other 9 pages and 3 reads 12 / 4 = 3, the sweep for moves after them 1,
    // removals 8 / 4 = 2: 8 round trips.
    expect(floorMs({ projects: 1_000, groups: 3, strays: 8 }, 4, 10)).toBe(80);
    // A dry run stops with the plan.
    expect(floorMs({ projects: 1_000, groups: 3, strays: 8 }, 4, 10, [], false)).toBe(60);
  });

  it("the sweep for moves follows the listings' last answer: never in a round of theirs", () => {
    // 101 projects (2 pages: one after the first, then the sweep), 1 group: the three look-ups, the first pages, the
    // second page with the read, the sweep: 4 round trips, though 3 slots would hold the last three requests in one.
    expect(floorMs({ projects: 101, groups: 1, strays: 0 }, 3, 10, [], false)).toBe(40);
  });

  it("an old plan's re-checks run beside the removals, on slots of their own", () => {
    expect(floorMs({ projects: 1_000, groups: 3, strays: 8, rechecks: 8 }, 4, 10)).toBe(80);
  });

  it("under a budget: a request waits for the window that admits it, windows opening at the first request after the last closed", () => {
    // 5 requests per 1,000 ms overall, 1 slot: 3 look-ups + 2 first pages + 9 pages + 1 sweep + 1 read + 3 removals = 19
    // requests, in windows from t=0, 1000, 2000, 3000; the last four requests start at 3000, 3010, 3020 and 3030.
    expect(floorMs({ projects: 1_000, groups: 1, strays: 3 }, 1, 10, [{ limit: 5, windowMs: 1000 }])).toBe(3000 + 4 * 10);
  });

  it("the lower bound: scope resolution, full pages and the sweep for moves, the descendants' pages, one read per group, one DELETE per stray and per re-check", () => {
    expect(lowerBound({ projects: 1001, groups: 150, strays: 30 })).toEqual({ requests: 3 + 11 + 1 + 2 + 150 + 30, pages: 11 });
    expect(lowerBound({ projects: 1001, groups: 150, strays: 30, rechecks: 25 }, true).requests).toBe(3 + 11 + 1 + 2 + 150 + 30 + 25);
    expect(lowerBound({ projects: 1001, groups: 150, strays: 30 }, false).requests).toBe(3 + 11 + 1 + 2 + 150);
    // One page of projects: nothing can move between two pages of it.
    expect(lowerBound({ projects: 100, groups: 1, strays: 0 }, false).requests).toBe(3 + 1 + 1 + 1);
  });

  it("attribution: a run that plans strays gains the audit-event pages and author look-ups that attribute them, a run that plans none gains nothing", () => {
    const work = { projects: 1001, groups: 150, strays: 30, auditPages: 12, auditChain: 3, authors: 4 };
    expect(lowerBound(work, false).requests).toBe(3 + 11 + 1 + 2 + 150 + 12 + 4);
    expect(lowerBound(work).requests).toBe(3 + 11 + 1 + 2 + 150 + 12 + 4 + 30);
    expect(lowerBound({ ...work, strays: 0 }, false).requests).toBe(3 + 11 + 1 + 2 + 150);
  });

  it("attribution in the floor: its pages on the examination's slots, a group's one after another, then the author", () => {
    // 1,000 projects, 3 groups, 4 slots as above (the examination 6 round trips, a dry run): 2 audit pages take the
    // slots the sweep for moves leaves idle in the round before it...
    expect(floorMs({ projects: 1_000, groups: 3, strays: 8, auditPages: 2, auditChain: 1, authors: 1 }, 4, 10, [], false)).toBe(70);
    // ...but a chain of 6 pages and its author, begun with the first pages (after 2 round trips), end after 2 + 7.
    expect(floorMs({ projects: 1_000, groups: 3, strays: 8, auditPages: 6, auditChain: 6, authors: 1 }, 4, 10, [], false)).toBe(90);
  });
});
