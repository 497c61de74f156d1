import { describe, expect, it } from "vitest";
import { floorMs, lowerBound } from "../../bin/bench/schedule.ts";

describe("the benchmark's floor", () => {
  it("without limits: the three look-ups, the scope group's detail with the first descendants page, the rest of the examination on every slot, the sweep for moves, then the removals", () => {
    // 12 listing requests of Warden's own (the sample, 10 pages of a large group, the sweep), 3 groups (1 descendants page,
    // 3 details), 8 strays, 4 slots: the three look-ups together 1, the scope's detail and first descendants page 1, the
    // 11 listing requests and 2 details 13 / 4 = 4, the sweep after them 1, removals 8 / 4 = 2: 9 round trips.
    expect(floorMs({ projects: 1_000, listings: 12, groups: 3, strays: 8 }, 4, 10)).toBe(90);
    // A dry run stops with the plan.
    expect(floorMs({ projects: 1_000, listings: 12, groups: 3, strays: 8 }, 4, 10, [], false)).toBe(70);
  });

  it("schedules the listings Warden sends, not the projects in full pages", () => {
    // 10,000 projects that come with the details: the sample and the sweep, as at 100 projects.
    expect(floorMs({ projects: 10_000, listings: 2, groups: 3, strays: 0 }, 4, 10, [], false)).toBe(floorMs({ projects: 100, listings: 2, groups: 3, strays: 0 }, 4, 10, [], false));
  });

  it("the sweep for moves follows the last answer of the rest: never in a round of theirs", () => {
    // The sample and a second group's detail, then the sweep: 4 round trips, though 3 slots would hold the last three requests in one.
    expect(floorMs({ projects: 150, listings: 2, groups: 2, strays: 0 }, 3, 10, [], false)).toBe(40);
  });

  it("an old plan's re-checks run beside the removals, on slots of their own", () => {
    expect(floorMs({ projects: 1_000, listings: 12, groups: 3, strays: 8, rechecks: 8 }, 4, 10)).toBe(90);
  });

  it("under a budget: a request waits for the window that admits it, windows opening at the first request after the last closed", () => {
    // 5 requests per 1,000 ms overall, 1 slot: 3 look-ups + the detail and first descendants page + 5 listing requests
    // + 1 detail + the sweep + 3 removals = 15 requests, in windows from t=0, 1000, 2000; the last one starts at 2040.
    expect(floorMs({ projects: 1_000, listings: 6, groups: 2, strays: 3 }, 1, 10, [{ limit: 5, windowMs: 1000 }])).toBe(2000 + 5 * 10);
  });

  it("the lower bound: scope resolution, the projects in full pages and the sweep for moves, the descendants' pages, one read per group, one DELETE per stray and per re-check", () => {
    // The least a run that lists the projects sends, whatever Warden's own listings.
    expect(lowerBound({ projects: 1001, listings: 2, groups: 150, strays: 30 })).toEqual({ requests: 3 + 11 + 1 + 2 + 150 + 30, pages: 11 });
    expect(lowerBound({ projects: 1001, listings: 2, groups: 150, strays: 30, rechecks: 25 }, true).requests).toBe(3 + 11 + 1 + 2 + 150 + 30 + 25);
    expect(lowerBound({ projects: 1001, listings: 2, groups: 150, strays: 30 }, false).requests).toBe(3 + 11 + 1 + 2 + 150);
    // One page of projects: nothing can move between two pages of it.
    expect(lowerBound({ projects: 100, listings: 1, groups: 1, strays: 0 }, false).requests).toBe(3 + 1 + 1 + 1);
  });

  it("attribution: a run that plans strays gains the audit-event pages and author look-ups that attribute them, a run that plans none gains nothing", () => {
    const work = { projects: 1001, listings: 2, groups: 150, strays: 30, auditPages: 12, auditRounds: 4, authors: 4 };
    expect(lowerBound(work, false).requests).toBe(3 + 11 + 1 + 2 + 150 + 12 + 4);
    expect(lowerBound(work).requests).toBe(3 + 11 + 1 + 2 + 150 + 12 + 4 + 30);
    expect(lowerBound({ ...work, strays: 0 }, false).requests).toBe(3 + 11 + 1 + 2 + 150);
  });

  it("attribution in the floor: its pages on the examination's slots, no sooner than its rounds allow", () => {
    // The sample, 2 details, 2 audit pages and an author: 6 requests, 2 rounds on 4 slots, then the sweep (a dry run)...
    expect(floorMs({ projects: 1_000, listings: 2, groups: 3, strays: 8, auditPages: 2, auditRounds: 2, authors: 1 }, 4, 10, [], false)).toBe(50);
    // ...but a chain of 6 pages and its author, begun with the detail and the first descendants page (after 2 round trips), end after 2 + 7.
    expect(floorMs({ projects: 1_000, listings: 2, groups: 3, strays: 8, auditPages: 6, auditRounds: 7, authors: 1 }, 4, 10, [], false)).toBe(90);
  });
});
