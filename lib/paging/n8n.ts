/**
 * n8n's body cursor: `{ data, nextCursor }`. The cursor keeps no filters, so every follow-up repeats
 * the first request's query and adds `cursor`.
 */
import type { HttpClient } from "../http/index.ts";
import { kindOf } from "./items.ts";
import { PagingError } from "./listing.ts";
import type { Strategy } from "./strategy.ts";

export const N8N_MAX_LIMIT = 250;

export interface N8nListRequest {
  http: HttpClient;
  /** The list URL with its filters (`active`, `excludePinnedData`, …), without `limit` or `cursor`. */
  url: URL;
  route: string;
  /** 1–250. Never 0: n8n answers 0 with everything and a cursor that never ends. */
  limit?: number;
  /** The fields parsed of each item (lib/http/json-fields.ts); none: every field. */
  fields?: readonly string[];
}

export function n8nCursor<T extends { id: string }>(req: N8nListRequest): Strategy<T> {
  const limit = req.limit ?? N8N_MAX_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > N8N_MAX_LIMIT) {
    throw new RangeError(`n8n page size must be an integer from 1 to ${N8N_MAX_LIMIT}, got ${limit}`);
  }
  return {
    name: "n8n-cursor",
    route: req.route,
    idType: "string",
    async fetch(position, signal) {
      const url = new URL(req.url);
      url.searchParams.set("limit", String(limit));
      if (position) url.searchParams.set("cursor", position);
      const res = await req.http.send({ method: "GET", url, route: req.route, headers: { accept: "application/json" }, expect: "json", ...(req.fields ? { fields: { keep: req.fields, in: "data" } } : {}), signal });
      req.http.stats.count(req.route, "pages");
      const body = (res.json ?? {}) as { data?: unknown; nextCursor?: unknown };
      if (!Array.isArray(body.data)) throw new PagingError(`${req.route}: expected {"data": [...]} from n8n`);
      // No n8n sends more than it was asked for (1.x refuses a limit over 250, 2.x cuts it): a page that does is no n8n's, and
      // a big enough one would fill the heap before any bound per item is reached.
      if (body.data.length > limit) throw new PagingError(`${req.route}: n8n sent ${body.data.length} items on a page, more than the ${limit} asked for, which no n8n does; stopping instead of reading it`);
      return { items: body.data as T[], next: cursor(req, body.nextCursor), meta: {} };
    },
  };
}

/** The longest nextCursor taken: n8n's are a few dozen characters; the listing keeps recent ones, and each goes back in a URL. */
const MAX_CURSOR_CHARS = 4096;

/**
 * null, none or "" ends a listing (n8n sends null on its last page); a cursor of another kind read as
 * the end would cut the listing short unnoticed, so it is an error, as is one of megabytes.
 */
function cursor(req: N8nListRequest, next: unknown): string | null {
  if (next === null || next === undefined || next === "") return null;
  if (typeof next === "string" && next.length > MAX_CURSOR_CHARS) {
    throw new PagingError(`${req.route}: n8n's nextCursor is ${next.length} characters, more than the ${MAX_CURSOR_CHARS} Warden sends back; stopping instead of following it`);
  }
  if (typeof next === "string") return next;
  throw new PagingError(`${req.route}: n8n's nextCursor is ${kindOf(next)}, neither a cursor nor null; stopping instead of guessing whether more pages follow`);
}
