/**
 * The project-listing requests Warden's own examination sends for one scope group, whose token sees
 * every group, counted from the world as the simulator answers them. The projects come with the group
 * details the examination reads anyway, up to 100 of a group's own projects each
 * (lib/jobs/enforce/examine/groups/detail-projects.ts), so it lists only:
 * - one sample page, the scope's newest 100 projects;
 * - the own projects of each group whose detail carries 100 (it may hold more), or whose share of the
 *   sample makes it likely to hold 1,000 or more, split as projects/partition.ts splits them (at equal
 *   latency, as the floor has it);
 * - the sweep for moves, one page where nothing moved, once more than one detail or listing was read.
 * At a list concurrency of 1, which splits nothing by visibility, it counts a few requests too many.
 */
import type { SimGroup, SimProject, Visibility } from "../../sim/gitlab/index.ts";

/** GitLab's largest page, and the most projects a group's detail carries. */
const PER_PAGE = 100;
/** Groups the sample shows likely to hold this many projects are listed at once; totals above 10,000 count as 10,000. */
const HEAVY = 1_000;
const UNCOUNTED = 10_000;
/** A listing above this many pages is split by visibility; a listing (or part) above 4 is read from both ends. */
const SPLIT_ABOVE_PAGES = 10;
const BOTH_ENDS_ABOVE_PAGES = 4;
const VISIBILITIES: readonly Visibility[] = ["private", "internal", "public"];

/** `projects` and `groups` are the scope group's tree, itself included. */
export function listingRequests(groups: readonly SimGroup[], projects: readonly SimProject[], visibilityOf: (project: SimProject) => Visibility): number {
  const own = Map.groupBy(projects, (project) => project.namespace_id);
  const newest = projects.toSorted((a, b) => b.id - a.id).slice(0, PER_PAGE);
  const sampled = Map.groupBy(newest, (project) => project.namespace_id);
  const total = Math.min(projects.length, UNCOUNTED);
  const heavy = (group: SimGroup) => ((sampled.get(group.id)?.length ?? 0) / newest.length) * total >= HEAVY;
  const listed = groups.filter((group) => (own.get(group.id)?.length ?? 0) >= PER_PAGE || heavy(group));
  const pages = listed.reduce((n, group) => n + ownListing(own.get(group.id) ?? [], visibilityOf), 0);
  const sweep = groups.length + listed.length > 1 ? 1 : 0;
  return 1 + pages + sweep;
}

/** A group's own projects: the first page, then above 10 pages three listings by visibility, each its first page and the rest. */
function ownListing(projects: readonly SimProject[], visibilityOf: (project: SimProject) => Visibility): number {
  if (projects.length <= SPLIT_ABOVE_PAGES * PER_PAGE) return 1 + afterFirst(projects.length);
  return 1 + VISIBILITIES.reduce((n, visibility) => n + 1 + afterFirst(projects.filter((project) => visibilityOf(project) === visibility).length), 0);
}

/**
 * A listing's pages after its first (projects/both-ends.ts): from one end up to 4 pages; above, the
 * second page up and the first down go together, each end asking for its next page while the highest
 * project read from below is under the lowest read from above. The up end, asked first, is answered
 * first: it decides on the down end's page before, so where they meet it may read one page more.
 */
function afterFirst(projects: number): number {
  const pages = Math.ceil(projects / PER_PAGE);
  if (pages <= BOTH_ENDS_ABOVE_PAGES) return Math.max(0, pages - 1);
  let [up, down, sent] = [PER_PAGE, 0, 0];
  for (let [upOn, downOn] = [true, true]; upOn || downOn; ) {
    const before = down;
    if (upOn) [up, sent] = [up + PER_PAGE, sent + 1];
    if (downOn) [down, sent] = [down + PER_PAGE, sent + 1];
    upOn &&= up < projects && up - 1 < projects - before;
    downOn &&= down < projects && up - 1 < projects - down;
  }
  return sent;
}
