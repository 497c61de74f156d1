/**
 * The one paging abstraction: a lazy listing of pages and of items. Strategies only know how to fetch
 * one page; limits, checkpoints, loop guards and de-duplication live here, once.
 */
import { createHash } from "node:crypto";
import { idProblem } from "./items.ts";
import type { Checkpoint, Page, Strategy } from "./strategy.ts";

export interface ListOptions {
  maxPages?: number;
  maxItems?: number;
  /**
   * A listing that announces no totals stops with a PagingError after this many pages (default 100,000:
   * 10 million items at GitLab's 100 a page, far beyond any real instance).
   */
  pageCeiling?: number;
  /** Resume after this checkpoint (from an earlier run of the same listing). */
  from?: Checkpoint;
  signal?: AbortSignal;
  /**
   * An item the listing cannot take (Listing.cannotTake: not an object, an id not of its type or not one
   * JSON.parse reads exactly, one out of the listing's id order) is passed, not an error of the listing:
   * audit events, whose ids are only hints, and whose reader passes such an event and goes on
   * (lib/jobs/watch): failing there would fail every read of the place again. Elsewhere an id addresses a
   * project or group, and a listing with such an item stops.
   */
  idsAreHints?: true;
  /** Given each item passed under idsAreHints, for the caller to count and say. */
  passed?: (item: unknown) => void;
}

export class PagingError extends Error {
  override name = "PagingError";
}

const PAGE_CEILING = 100_000;
/** Recent positions and pages remembered to catch a server that loops back; older loops hit the page limits. */
const RECENT = 1_000;
/**
 * Pages in a row that bring nothing new (empty, or only the page before's items) while a next page is
 * still sent: a server that ignores the position it is given. One such page happens when an offset
 * listing shifts by a whole page; three in a row do not.
 */
const STALE_PAGES = 3;
/** How many pages back an offset listing's items are de-duplicated: a shift repeats the page before; a page further back comes again only from a server serving pages in turn. */
const SHIFT_PAGES = 4;

type Identified = { id: number | string };

export class Listing<T extends Identified> implements AsyncIterable<T> {
  private readonly strategy: Strategy<T>;
  private readonly opts: ListOptions;

  constructor(strategy: Strategy<T>, opts: ListOptions = {}) {
    if (strategy.idOrder && strategy.idType !== "number") throw new PagingError(`${strategy.route}: a listing ordered by id needs numeric ids`);
    if (opts.from && opts.from.strategy !== strategy.name) {
      throw new PagingError(`checkpoint is for ${opts.from.strategy}, not ${strategy.name}`);
    }
    this.strategy = strategy;
    this.opts = opts;
  }

  async *pages(): AsyncGenerator<Page<T>> {
    const { maxPages = Infinity, maxItems = Infinity, from, signal } = this.opts;
    let position: string | null = from ? from.next : "";
    let pages = from?.pages ?? 0;
    let items = from?.items ?? 0;
    // A project created while an offset listing runs shifts every later page by one, so a page can
    // repeat the end of the one before: checking against the ids of the page before catches that, and,
    // on a listing that shifts (where no served page is refused), against the last SHIFT_PAGES pages'
    // pages served in turn under ever-new links (A, B, A, B); in memory of a few pages.
    const earlier: Set<number | string>[] = [];
    // A server that loops is caught by the positions it sent recently, by the pages it served recently
    // (where no page may come again), and a listing by id by the ids going back (ordered); one that
    // sends new positions and pages forever, or loops over more than RECENT, by the page limits below.
    // So memory stays bounded however long a listing runs, instead of growing with every link visited.
    const recent = new Recent<string>();
    const served = new Recent<string>();
    const ceiling = this.opts.pageCeiling ?? PAGE_CEILING;
    let announced: number | undefined;
    // The last id of an ordered listing (Strategy.idOrder): one number, however long the listing.
    let lastId: number | undefined;
    let stale = 0;
    let taken = 0;
    let fetched = 0;
    while (position !== null && fetched < maxPages && taken < maxItems) {
      signal?.throwIfAborted();
      const page = await this.strategy.fetch(position, signal);
      fetched++;
      if (typeof page.meta.totalPages === "number") announced = page.meta.totalPages;
      if (page.next !== null) this.guard(page.next, position, recent, pages + 1, announced, ceiling);
      const identified = this.identified(page.items, pages + 1);
      // Against every id of the pages before, repeats included: a page served again and again is dropped every time.
      const once = new Set<number | string>();
      const unseen = identified.filter((item) => !earlier.some((ids) => ids.has(item.id)) && !once.has(item.id) && (once.add(item.id), true));
      earlier.push(new Set(identified.map((item) => item.id)));
      if (earlier.length > (this.strategy.shifts ? SHIFT_PAGES : 1)) earlier.shift();
      const fresh = this.ordered(unseen, lastId);
      lastId = fresh.length > 0 ? (fresh.at(-1)!.id as number) : lastId;
      this.unrepeated(identified, served, pages + 1);
      stale = fresh.length === 0 && page.next !== null ? stale + 1 : 0;
      if (stale >= STALE_PAGES) {
        const { route, name } = this.strategy;
        throw new PagingError(`${route} (${name}): ${stale} pages in a row brought nothing new (each only what the page before held, or nothing) and the server still sends a next page; stopping instead of looping`);
      }
      const kept = fresh.slice(0, maxItems - taken);
      taken += kept.length;
      pages++;
      items += kept.length;
      // A page cut short by maxItems resumes at its own start (items may repeat, none is lost).
      const next = kept.length < fresh.length ? position : page.next;
      position = page.next;
      yield { items: kept, meta: page.meta, checkpoint: { strategy: this.strategy.name, next, pages, items } };
    }
  }

  /**
   * Checks every item is an object with an id of the listing's type: one without would be dropped as
   * a duplicate of `undefined`, or (a string where ids are ordered numbers) escape the order guard.
   * Says what was wrong by position and type, never quoting the body.
   */
  private identified(items: readonly T[], page: number): T[] {
    return items.filter((item, i) => {
      // Passed here where ids are hints, not taken: an id of 0 or past 2^53 first would set the order guard's
      // last id, and every real one after it would be out of order.
      const wrong = idProblem(item, this.strategy.idType);
      return !wrong || this.cannotTake(item, `item ${i + 1} of page ${page} ${wrong}; stopping instead of guessing what it is`);
    });
  }

  /**
   * An item the listing cannot take ends it; where ids are hints, it is passed (ListOptions.passed) and
   * left out instead: a watch failing at it would fail at the same place every poll, for good, on one
   * forged or corrupted item. A server that loops back still stops: its pages then bring nothing new.
   */
  private cannotTake(item: unknown, why: string): false {
    if (this.opts.idsAreHints !== true) throw new PagingError(`${this.strategy.route} (${this.strategy.name}): ${why}`);
    this.opts.passed?.(item);
    return false;
  }

  /**
   * Refuses a page that repeats one served recently: a server that serves pages in turn under ever-new
   * cursors. Not on a listing whose items shift between pages as it runs (Strategy.shifts: there the
   * de-duplication and the stale pages above keep the caller from seeing a repeat). A keyset page never
   * comes again; n8n's cursor holds an offset, but a page comes again only if a whole page of workflows
   * were created between two requests. A page is remembered by a hash of its ids, RECENT at most.
   */
  private unrepeated(items: readonly T[], served: Recent<string>, page: number): void {
    const { route, name, shifts } = this.strategy;
    if (shifts || items.length === 0) return;
    const fingerprint = createHash("sha256").update(JSON.stringify(items.map((item) => item.id))).digest("base64");
    const before = served.get(fingerprint);
    if (before !== undefined) {
      throw new PagingError(`${route} (${name}): page ${page} holds the same items as page ${before}: the server went back to where it had been; stopping instead of looping`);
    }
    served.remember(fingerprint, page);
  }

  /** These items, after checking they go on in the listing's id order from `last` (the last id of the pages before). */
  private ordered(items: T[], last: number | undefined): T[] {
    const { idOrder } = this.strategy;
    if (!idOrder) return items;
    // Numbers: identified() checked each id is of idType, and the constructor that idOrder has "number".
    return items.filter((item) => {
      const id = item.id as number;
      if (last !== undefined && (idOrder === "asc" ? id <= last : id >= last)) {
        return this.cannotTake(item, `id ${id} listed after id ${last}, in a listing by id ${idOrder === "asc" ? "ascending" : "descending"}: the server went back to where it had been; stopping instead of looping`);
      }
      last = id;
      return true;
    });
  }

  /** Stops a listing that would never end: a repeated position, or far more pages than it should have. */
  private guard(next: string, position: string, recent: Recent<string>, pages: number, announced: number | undefined, ceiling: number): void {
    const { route, name } = this.strategy;
    if (next === "" || next === position || recent.has(next)) {
      throw new PagingError(`${route} (${name}): the server sent the same next position twice; stopping instead of looping`);
    }
    recent.remember(next, pages);
    // Totals drift while a listing runs (projects are created), so only a wide margin means a runaway.
    const limit = Math.min(ceiling, announced === undefined ? Infinity : announced * 2 + 10);
    if (pages >= limit) {
      throw new PagingError(
        `${route} (${name}): ${pages} pages read and the server still sends a next page, ` +
          (limit === ceiling ? `past the ceiling of ${ceiling} pages` : `more than twice the ${announced} its totals announced`) +
          "; stopping instead of running on",
      );
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for await (const page of this.pages()) yield* page.items;
  }

  /** Only for listings known to be small (scope groups, namespaces): everything else should stream. */
  async collect(): Promise<T[]> {
    return Array.fromAsync(this);
  }
}

/** The page each of the last RECENT keys was seen on: what a guard remembers stays bounded. */
class Recent<K> extends Map<K, number> {
  remember(key: K, page: number): void {
    this.set(key, page);
    if (this.size > RECENT) this.delete(this.keys().next().value as K);
  }
}
