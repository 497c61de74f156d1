/**
 * A group's listing split where large: by subgroup, as deep as the tree's shape allows, or by
 * visibility where no subgroup can split it (docs/how-enforce-works.md).
 */
import type { Group, Project, Visibility } from "../../../../gitlab/index.ts";
import type { Page } from "../../../../paging/index.ts";
import type { Examination } from "../context.ts";
import { answeredBefore, inGroupItself, lists } from "../ledger.ts";
import { PAUSED, PRIORITY } from "../slots.ts";
import { isRunFailure } from "../unexamined.ts";
import type { ProjectWork } from "../work.ts";
import { close, readAhead, readRest } from "./both-ends.ts";
import { counts, groupListOf, judgeAbove, listing, listingOf, nextPage, PER_PAGE, type ListingRun } from "./pages.ts";

/** A listing of this many pages or fewer is never split: a split costs two requests or more. */
const SPLIT_ABOVE_PAGES = 10;

/**
 * A group's projects, its subgroups' included (or its own only). A listing's pages follow each other's
 * links, so parallelism comes from partitions: the listing starts whole, and when its first page shows
 * it large (more pages than its share of the slots, and than 10) it splits into the group's own
 * projects and each direct subgroup's tree, each judged the same way; with more child groups than
 * pages it stays whole. Only a token that sees every group splits (others are not listed every
 * subgroup), and never an id range of the instance. Moves meanwhile: sweep.ts, and the de-duplication
 * of strays by share (docs/how-enforce-works.md).
 */
export async function partition(run: ListingRun, work: ProjectWork): Promise<void> {
  const { exam } = run;
  const pages = listing(exam, work, "asc");
  const sentAt = Date.now();
  const first = await nextPage(exam, pages, PRIORITY.opening);
  if (first === PAUSED) return run.leave(work);
  if (first.done) return;
  run.began ??= answeredBefore(first.value.meta.date, sentAt);
  judgeAbove(run, work, first.value.items);
  if (first.value.checkpoint.next === null) return;
  run.paged = true;
  const opening = counts(first.value);
  const top = Math.max(work.judgedUpTo ?? 0, ...first.value.items.map((project) => project.id));
  const list = groupListOf(work);
  const group = list && !list.own ? list.group : undefined;
  // The root's first page sets the split threshold, its pages spread evenly over the slots; a branch
  // below it splits only when it holds clearly more (twice that), since every split costs requests.
  const splitAbove = work.share ?? Math.max(SPLIT_ABOVE_PAGES, Math.ceil((Number.isFinite(opening.pages) ? opening.pages : 10_000 / PER_PAGE) / exam.concurrency));
  const large = opening.pages > (work.share === undefined ? splitAbove : 2 * splitAbove);
  const bySubgroups = group !== undefined && large && exam.seesAllGroups;
  // Looking up the subgroups takes a round trip. Where the listing will likely be read whole after
  // it — a branch whose first page is nearly all the group's own projects, on a GitLab that offers no
  // visibility to split by — its next pages are asked for meanwhile, held unjudged, and read on if it
  // is not split after all (two requests spent if it is).
  const likelyWhole = work.share !== undefined && first.value.items.every((project) => project.visibility === undefined) && ownShare(work, first.value) >= 0.9;
  const ahead = bySubgroups && likelyWhole ? readAhead(exam, work, pages, opening.pages) : undefined;
  // Split after all: this listing is read no further.
  const drop = async () => void (await (ahead?.drop() ?? pages.return?.(undefined)));
  const children = bySubgroups ? await subgroups(exam, group) : [];
  if (children.length === 0 || children.length >= opening.pages) {
    if (large && (await byVisibility(run, work, first.value, top))) return drop();
    return readRest(run, work, first.value, top, ahead ?? { up: { pages } });
  }
  await drop();
  const part = (list: ProjectWork["list"], path: string | undefined, threshold?: number): ProjectWork => ({
    kind: "project", list, judgedUpTo: top, ...(path === undefined ? {} : { path }), ...(threshold === undefined ? {} : { share: threshold }),
  });
  const parts = [part({ group: group!, own: true }, work.path), ...children.map((child) => part({ group: child.id }, child.full_path, splitAbove))];
  handOver(run, work, first.value.items, parts);
  await Promise.all(parts.map((split) => partition(run, split)));
}

/**
 * The projects of a split listing's first page, judged by it, are paged over by the parts too (below
 * their `judgedUpTo`): one of them moving away shifts the part that holds it, so the ledger names
 * that part as its listing, the one to read again (sweep.ts).
 */
function handOver(run: ListingRun, work: ProjectWork, items: Project[], parts: ProjectWork[]): void {
  const { judged } = run.exam.ledger;
  const whole = listingOf(run, work);
  const listings = parts.map((part) => listingOf(run, part));
  for (const project of items) {
    if (judged.get(project.id) !== whole) continue;
    const holder = listings.find((listing) => listing !== "instance" && lists(listing, project));
    if (holder) judged.set(project.id, holder);
  }
}

/** The share of a page's projects that sit in the listing's group itself (0 where its path is unknown). */
function ownShare(work: ProjectWork, page: Page<Project>): number {
  const group = work.path;
  if (group === undefined || page.items.length === 0) return 0;
  return page.items.filter((project) => inGroupItself(group, project)).length / page.items.length;
}

const VISIBILITIES: readonly Visibility[] = ["private", "internal", "public"];

/**
 * A large listing no subgroup can split (a group holding its projects directly, or more child groups
 * than pages) is split by visibility, which every project has exactly one of: three listings,
 * disjoint and together whole, each read from both ends, so a chain of N pages becomes three shorter
 * ones. It goes ahead only if their first pages show GitLab applied the filter (each project of the
 * visibility asked for, the totals adding up to the listing's): a server that ignores it would have
 * each list everything, so then the listing goes on whole, three requests spent. A server whose
 * projects show no visibility is not asked at all. False then, or when the examination paused meanwhile.
 */
async function byVisibility(run: ListingRun, work: ProjectWork, first: Page<Project>, top: number): Promise<boolean> {
  const list = groupListOf(work);
  if (!list || list.visibility || first.items.some((project) => project.visibility === undefined)) return false;
  const parts = await Promise.all(
    VISIBILITIES.map(async (visibility) => {
      const part: ProjectWork = { ...work, list: { ...list, visibility }, judgedUpTo: top };
      const pages = listing(run.exam, part, "asc");
      const opened = await nextPage(run.exam, pages, PRIORITY.opening);
      return { visibility, part, pages, page: opened === PAUSED || opened.done ? undefined : opened.value };
    }),
  );
  const total = counts(first).projects;
  const applied =
    parts.every(({ visibility, page }) => page?.items.every((project) => project.visibility === visibility)) &&
    // Projects created, moved or deleted meanwhile may shift the totals a little, not threefold.
    (!Number.isFinite(total) || Math.abs(parts.reduce((n, { page }) => n + counts(page!).projects, 0) - total) <= Math.max(10, total / 100));
  if (!applied) {
    await Promise.all(parts.map(({ pages }) => pages.return?.(undefined)));
    return false;
  }
  handOver(run, work, first.items, parts.map(({ part }) => part));
  await Promise.all(
    parts.map(({ part, pages, page }) => {
      judgeAbove(run, part, page!.items);
      return readRest(run, part, page!, Math.max(top, ...page!.items.map((project) => project.id)), { up: { pages } });
    }),
  );
  return true;
}

/**
 * A group's direct subgroups (a few pages: read whole even when a pause comes meanwhile). Splitting is
 * only a way to read sooner: where GitLab fails to list them (after lib/http's retries; not the run's
 * failure), none is given, and the listing is read whole, as one that cannot be split is.
 */
async function subgroups(exam: Examination, group: number): Promise<Group[]> {
  const groups: Group[] = [];
  const pages = exam.gitlab.listSubgroups(group, { signal: exam.signal }).pages();
  const next = () => exam.slots(() => pages.next(), PRIORITY.opening);
  try {
    for (let page = await next(); !page.done; page = await next()) groups.push(...page.value.items);
  } catch (err) {
    if (isRunFailure(err, exam.signal)) throw err;
    return [];
  }
  return groups;
}
