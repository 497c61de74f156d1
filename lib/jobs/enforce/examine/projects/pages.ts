/**
 * One listing's pages, each through the slot pool, each project judged through the ledger once: what
 * every way of listing projects (partition.ts, both-ends.ts, sweep.ts) is built on.
 */
import type { Project } from "../../../../gitlab/index.ts";
import type { Checkpoint, Page } from "../../../../paging/index.ts";
import type { Examination } from "../context.ts";
import { unjudged, type GroupListing } from "../ledger.ts";
import { inSlot, PAUSED } from "../slots.ts";
import { listingFailed, notExamined } from "../unexamined.ts";
import type { GroupList, ProjectWork } from "../work.ts";

/** GitLab's largest page. */
export const PER_PAGE = 100;

/** The listings begun from one piece of project work and the parts it splits into, judged through the ledger. */
export interface ListingRun {
  exam: Examination;
  /** Judges a page's projects, read by this listing (the ledger leaves out those judged already). */
  judgePage: (items: Project[], by: GroupListing | "instance") => void;
  leave: (work: ProjectWork) => void;
  /** One object per group listing, so the ledger says which listing judged a project (ledger.ts). */
  listings: Map<string, GroupListing>;
  /** Server time a little before the first page was answered, and whether any listing had a second page. */
  began?: number;
  paged: boolean;
}

/** Listings judged through the ledger (each project once), leaving what a pause stops to `leave`. */
export function listingRun(exam: Examination, judgeProjects: (projects: Project[]) => void, leave: (work: ProjectWork) => void, listings = new Map<string, GroupListing>()): ListingRun {
  return { exam, judgePage: (items, by) => judgeProjects(unjudged(exam.ledger, items, by)), leave, listings, paged: false };
}

/** The group a piece of work lists, with how; undefined for the instance or an id range of it. */
export function groupListOf(work: ProjectWork): GroupList | undefined {
  return typeof work.list === "object" && "group" in work.list ? work.list : undefined;
}

export function listingOf(run: ListingRun, work: ProjectWork): GroupListing | "instance" {
  const list = groupListOf(work);
  if (!list) return "instance";
  const key = `${list.group}${list.own ? " own" : ""} ${list.visibility ?? ""}`;
  let listing = run.listings.get(key);
  if (!listing) run.listings.set(key, (listing = { ...list, ...(work.path === undefined ? {} : { path: work.path }) }));
  return listing;
}

/** The listing a piece of work reads, from its start or from a checkpoint. */
export function listing(exam: Examination, work: ProjectWork, sort: "asc" | "desc", from?: Checkpoint): AsyncIterator<Page<Project>> {
  const list = { signal: exam.signal, from };
  if (work.list === "instance") throw new Error("the instance is listed in id ranges");
  if ("project" in work.list) throw new Error("one project is read, not listed");
  if ("group" in work.list) return unlessGone(exam, work, exam.gitlab.listGroupProjects(work.list.group, list, { includeSubgroups: !work.list.own, sort, visibility: work.list.visibility }).pages());
  return unlessFailing(exam, work.list, work.at?.top, exam.gitlab.listProjects({ idAfter: work.list.after, idBefore: work.list.before, list }).pages());
}

/**
 * A group's listing whose page GitLab fails on ends there, and the run goes on: with 404 the group was
 * deleted since the run found it, its projects with it; otherwise the rest of the listing is recorded
 * as not examined (unexamined.ts's listingFailed).
 */
async function* unlessGone(exam: Examination, work: ProjectWork, pages: AsyncGenerator<Page<Project>>): AsyncGenerator<Page<Project>> {
  try {
    yield* pages;
  } catch (err) {
    listingFailed(exam.unexamined, exam.warnings, err, exam.signal, { kind: "projects", id: groupListOf(work)!.group, path: work.path });
  }
}

/**
 * An id range of the instance whose page GitLab fails on (after lib/http's retries) ends there, and the
 * run goes on: the ids above the last one listed (`top`, where a resumed listing stood), up to the
 * range's end, are recorded as not examined.
 * One project GitLab cannot list (it happens, and answers 500 every time) must not fail every run of a
 * policy without a scope, as it would if the error went on.
 */
async function* unlessFailing(exam: Examination, range: { after?: number; before?: number }, top: number | undefined, pages: AsyncGenerator<Page<Project>>): AsyncGenerator<Page<Project>> {
  // Listed by id ascending (a keyset that goes up only): every id up to the last one seen is listed.
  let listedTo = Math.max(range.after ?? 0, top ?? 0);
  try {
    for await (const page of pages) {
      listedTo = Math.max(listedTo, ...page.items.map((project) => project.id));
      yield page;
    }
  } catch (err) {
    notExamined(exam.unexamined, err, exam.signal, { kind: "range", id: listedTo, ...(range.before === undefined ? {} : { before: range.before }) });
  }
}

/** A slot for one page, by its priority (slots.ts); once the examination pauses, nothing is sent. */
export function nextPage(exam: Examination, pages: AsyncIterator<Page<Project>>, priority: number): Promise<IteratorResult<Page<Project>> | typeof PAUSED> {
  return inSlot(exam, () => pages.next(), priority);
}

/**
 * Judges the projects of a page above the listing's `judgedUpTo` (those below, an enclosing listing
 * judged) and not among those its group's detail carried.
 */
export function judgeAbove(run: ListingRun, work: ProjectWork, items: Project[]): void {
  const judgedUpTo = work.judgedUpTo ?? 0;
  const carried = work.carried?.length ? new Set(work.carried) : undefined;
  const fresh = judgedUpTo || carried ? items.filter((project) => project.id > judgedUpTo && !carried?.has(project.id)) : items;
  run.judgePage(fresh, listingOf(run, work));
}

/** What a listing's first page told: how many projects and pages it counts (Infinity above 10,000). */
export function counts(first: Page<Project>): { projects: number; pages: number } {
  const total = first.meta.total;
  const projects = typeof total === "number" ? total : Infinity;
  return { projects, pages: Math.ceil(projects / PER_PAGE) };
}
