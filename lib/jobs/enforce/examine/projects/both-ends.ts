/**
 * A listing after its first page, read from both ends at once above a few pages: where it stands is
 * the work's `at` (Ends), so a pause leaves it resumable in a later slice.
 */
import type { Project } from "../../../../gitlab/index.ts";
import type { Page } from "../../../../paging/index.ts";
import { awaitedLater } from "../../../awaited-later.ts";
import type { Examination } from "../context.ts";
import { chainPriority, PAUSED } from "../slots.ts";
import type { Ends, ProjectWork } from "../work.ts";
import { counts, groupListOf, judgeAbove, listing, listingOf, nextPage, PER_PAGE, type ListingRun } from "./pages.ts";

/** Above this many pages, a listing that is not split is read from both ends (one request more at most). */
const BOTH_ENDS_ABOVE_PAGES = 4;

/** A listing's pages from where one end stands, and the next one's answer where it was asked for ahead. */
interface Chain {
  pages: AsyncIterator<Page<Project>>;
  next?: Promise<NextPage> | undefined;
}

type NextPage = Awaited<ReturnType<typeof nextPage>>;

/** A listing after its first page: read from both ends above a few pages (enforce's id ranges from one). */
export async function readRest(run: ListingRun, work: ProjectWork, first: Page<Project>, top: number, chains: { up: Chain; down?: Chain }): Promise<void> {
  const opening = counts(first);
  // An id range of the instance is read from one end (GitLab's keyset on /projects goes up only).
  const oneEnd = opening.pages <= BOTH_ENDS_ABOVE_PAGES || !groupListOf(work);
  if (first.checkpoint.next === null || oneEnd) await close(chains.down);
  if (first.checkpoint.next === null) return close(chains.up);
  const at: Ends = { up: first.checkpoint, top, bottom: null, seen: first.items.length, projects: Number.isFinite(opening.projects) ? opening.projects : null };
  if (oneEnd) at.down = null;
  return readEnds(run, { ...work, at }, at, { up: chains.up, ...(oneEnd ? {} : { down: chains.down }) });
}

/**
 * The next page up and the first page down of a large listing, asked for before anyone knows whether
 * they will be read (each failure is the reader's to throw, when it reads it); `drop` when the listing
 * is split instead.
 */
export function readAhead(exam: Examination, work: ProjectWork, pages: AsyncIterator<Page<Project>>, total: number): { up: Chain; down: Chain; drop(): Promise<void> } {
  // Unknown totals (above 10,000 projects) count as 10,000, as ends() counts them.
  const priority = chainPriority((Number.isFinite(total) ? total : 10_000 / PER_PAGE) / 2);
  const ask = (chain: AsyncIterator<Page<Project>>): Chain => ({ pages: chain, next: awaitedLater(nextPage(exam, chain, priority)) });
  const up = ask(pages);
  const down = ask(listing(exam, work, "desc"));
  return { up, down, drop: async () => void (await Promise.all([close(up), close(down)])) };
}

/** Ends a chain: its page asked for ahead settled, its listing closed. */
export async function close(chain: Chain | undefined): Promise<void> {
  if (!chain) return;
  await chain.next?.catch(() => undefined);
  await chain.pages.return?.(undefined);
}

/**
 * The rest of a listing after its first page. Above a few pages, it is read from both ends at once:
 * the ascending listing goes on up the ids while a second one — the same filters, sorted by id
 * descending — comes down, each following its own links, until they meet. The pages of one listing
 * cannot be fetched side by side (that would mean building their addresses), but its two ends can, so
 * a large group whose projects sit directly in it takes half the time. Each project is judged by
 * whichever end reached it first; where they meet, a page may be read by both (one request more, and
 * the proof that none between them was missed).
 * A pause stops both ends between pages and leaves where they stand.
 */
export async function readEnds(run: ListingRun, work: ProjectWork, at: Ends, chains: { up?: Chain; down?: Chain } = {}): Promise<void> {
  const { exam } = run;
  const bottom = () => at.bottom ?? Infinity;
  // Both ends stop where their ids meet, not once as many projects as the first page counted are
  // seen: a project created meanwhile (the down end's first) would be counted in place of one between
  // them, never read. A listing read from one end only goes to its last page.
  const open = () => at.down === null || at.top < bottom();
  let paused = false;
  // Pages this end still has to read, about: what priority its next page gets (unknown totals count as 10,000).
  const ahead = () => ((at.projects ?? 10_000) - at.seen) / PER_PAGE / (at.down === null ? 1 : 2);
  const end = async ({ pages, next: early }: Chain, mine: (project: Project) => boolean, reached: (page: Page<Project>) => void) => {
    while (open()) {
      const next = early ?? nextPage(exam, pages, chainPriority(ahead()));
      early = undefined;
      const page = await next;
      if (page === PAUSED) {
        paused = true;
        break;
      }
      if (page.done) break;
      const fresh = page.value.items.filter(mine);
      at.seen += fresh.length;
      judgeAbove(run, work, fresh);
      reached(page.value);
      if (page.value.checkpoint.next === null) break;
    }
    await close({ pages, next: early });
  };
  const up = end(chains.up ?? { pages: listing(exam, work, "asc", at.up) }, (project) => project.id < bottom(), (page) => {
    at.up = page.checkpoint;
    at.top = Math.max(at.top, ...page.items.map((project) => project.id));
  });
  const down =
    at.down === null
      ? undefined
      : end(chains.down ?? { pages: listing(exam, work, "desc", at.down) }, (project) => project.id > at.top, (page) => {
          at.down = page.checkpoint;
          at.bottom = Math.min(bottom(), ...page.items.map((project) => project.id));
        });
  await Promise.all([up, down]);
  const finished = at.up.next === null && (at.down === null || at.down?.next === null);
  if (paused && open() && !finished) return run.leave({ ...work, at });
  const listed = listingOf(run, work);
  if (listed !== "instance" && at.projects !== null && at.seen < at.projects) exam.ledger.short.set(listed, { counted: at.projects, listed: at.seen });
}
