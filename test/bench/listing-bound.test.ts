/**
 * The project listings Warden's examination sends (bin/bench/listing-bound.ts), on fabricated worlds:
 * checked against Warden's own requests in test/bench/floor.test.ts.
 */
import { describe, expect, it } from "vitest";
import { listingRequests } from "../../bin/bench/listing-bound.ts";
import type { SimGroup, SimProject, Visibility } from "../../sim/gitlab/index.ts";

/** Groups 1..n, each holding the given number of projects, ids in that order. */
function world(...sizes: number[]): { groups: SimGroup[]; projects: SimProject[] } {
  let id = 0;
  const groups = sizes.map((_, i) => ({ id: i + 1 }) as SimGroup);
  const projects = sizes.flatMap((size, i) => Array.from({ length: size }, () => ({ id: ++id, namespace_id: i + 1 }) as SimProject));
  return { groups, projects };
}
const privateOnly = (_project: SimProject): Visibility => "private";
const count = (w: ReturnType<typeof world>, visibilityOf = privateOnly) => listingRequests(w.groups, w.projects, visibilityOf);

describe("the project listings Warden's examination sends", () => {
  it("for a scope whose groups' details carry every project: the sample and the sweep; the sample alone for one group", () => {
    expect(count(world(...Array<number>(20).fill(50)))).toBe(2);
    expect(count(world(99))).toBe(1);
  });

  it("a group whose detail carries 100 lists its own projects: from one end up to 4 pages", () => {
    expect(count(world(50, 100))).toBe(1 + 1 + 1);
    expect(count(world(50, 400))).toBe(1 + 4 + 1);
  });

  it("above 4 pages from both ends, the up end (answered first) deciding on the down end's page before", () => {
    // 450: the first page, then 2 pages down (to the 250th project) and 3 up: the third, to the 400th, asked for before
    // the down end's second page was answered.
    expect(count(world(50, 450))).toBe(1 + 6 + 1);
    // 500: 3 pages each way, the third of each one the other read (the proof that none between them was missed).
    expect(count(world(50, 500))).toBe(1 + 7 + 1);
  });

  it("above 10 pages split by visibility: the first page, then each visibility's listing", () => {
    const visibilityOf = (project: SimProject): Visibility => (project.id % 2 ? "private" : "internal");
    // 1,100 projects after the scope's 50: 550 private and 550 internal (6 pages each: 1 + 6 from both ends), no public (1).
    expect(count(world(50, 1_100), visibilityOf)).toBe(1 + (1 + (1 + 6) * 2 + 1) + 1);
  });

  it("a group the sample shows likely to hold 1,000 projects is listed though its detail carries them all", () => {
    // 99 of the newest 100 of 1,099 projects: about 1,088 by the sample.
    expect(count(world(...Array<number>(20).fill(50), 99))).toBe(1 + 1 + 1);
  });
});
