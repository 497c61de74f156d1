/**
 * What a paging strategy is to the listing (listing.ts): how to fetch one page, what its items' ids are,
 * and what a page and a resume point hold. GitLab's offset and keyset pages (gitlab.ts), n8n's cursor (n8n.ts).
 */
export type StrategyName = "gitlab-offset" | "gitlab-keyset" | "n8n-cursor";

/** Serialisable resume point, taken after every page. `next: null` means the listing is complete. */
export interface Checkpoint {
  strategy: StrategyName;
  next: string | null;
  pages: number;
  items: number;
}

export interface PageMeta {
  /** GitLab omits totals above 10,000 records (and on some hosted endpoints): then "unknown", never 0. */
  total?: number | "unknown";
  totalPages?: number | "unknown";
  /** The server's clock when it answered (the Date header), where it sent one. */
  date?: string;
  /** GitLab keyset: X-NEXT-CURSOR / X-PREV-CURSOR. */
  nextCursor?: string;
  prevCursor?: string;
}

export interface Page<T> {
  items: T[];
  meta: PageMeta;
  checkpoint: Checkpoint;
}

export interface FetchedPage<T> {
  items: T[];
  /** Opaque position of the next page (a path and query, or a cursor); null at the end. */
  next: string | null;
  meta: PageMeta;
}

export interface Strategy<T> {
  name: StrategyName;
  /** The listing's route ("GET /projects"), for errors. */
  route: string;
  /** `position` is "" for the first page, else a `next` this strategy returned. */
  fetch(position: string, signal?: AbortSignal): Promise<FetchedPage<T>>;
  /** What every item's id is (GitLab's are numbers, n8n's strings): an item without one is refused. */
  idType: "number" | "string";
  /**
   * Set where the listing is by id (GitLab's keyset by id): its ids only ever rise ("asc") or fall
   * ("desc"), however the cursors are spelled, so one that goes back is a cursor that looped. Needs
   * `idType: "number"`.
   */
  idOrder?: "asc" | "desc";
  /**
   * Set where items move between pages as the listing runs (GitLab's offset pages, by page number):
   * a page may then repeat one before it, so no page is refused for that (Listing.unrepeated).
   */
  shifts?: true;
}
