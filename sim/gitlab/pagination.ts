import { intParam, invalid } from "./context.ts";
import type { RequestContext } from "./context.ts";
import { apiError, HttpError } from "./http.ts";
import type { Reply } from "./http.ts";
import { baseName } from "./query.ts";

/** Arrays qualify; `lazyList` builds only the slice asked for. */
export interface Sliceable<T> {
  readonly length: number;
  slice(start: number, end: number): T[];
}

export interface Page<T> {
  items: T[];
  headers: Record<string, string>;
}

const DEFAULT_PER_PAGE = 20;
const MAX_PER_PAGE = 100;
/** Above this many records GitLab stops counting: no x-total, x-total-pages or rel="last". */
const COUNT_LIMIT = 10_000;

export function lazyList<T>(length: number, at: (index: number) => T): Sliceable<T> {
  return {
    length,
    slice(start, end) {
      const out: T[] = [];
      for (let i = Math.max(0, start); i < Math.min(end, length); i++) out.push(at(i));
      return out;
    },
  };
}

/** First index whose item satisfies `pred`, for a `pred` that is false then true along `items`. */
export function lowerBound<T>(items: readonly T[], pred: (item: T) => boolean): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (pred(items[mid]!)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function perPage(ctx: RequestContext): number {
  const n = intParam(ctx, "per_page");
  return n === undefined || n < 1 ? DEFAULT_PER_PAGE : Math.min(n, MAX_PER_PAGE);
}

/**
 * A time parameter as GitLab writes it back into a link: Grape coerced it to a DateTime, and Ruby writes
 * that in whole seconds ("2026-11-30T09:15:42+00:00" for "…T09:15:42.137Z").
 */
function asGitLabWritesIt(pair: string): string {
  const [key, value = ""] = pair.split("=");
  const text = decodeURIComponent(value.replace(/\+/g, " "));
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(text) || Number.isNaN(Date.parse(text))) return pair;
  return `${key}=${encodeURIComponent(new Date(text).toISOString().replace(/\.\d{3}Z$/, "+00:00"))}`;
}

/** The request's own URL, absolute, with `set` replacing (and `drop` removing) parameters, its times as GitLab writes them. */
export function pageUrl(ctx: RequestContext, set: Record<string, string>, drop: readonly string[] = []): string {
  const removed = new Set([...drop, ...Object.keys(set)]);
  const kept = ctx.rawQuery.split("&").filter((pair) => pair && !removed.has(baseName(pair))).map(asGitLabWritesIt);
  const added = Object.entries(set).map(([k, v]) => `${k}=${encodeURIComponent(v)}`);
  return `${ctx.baseUrl}${ctx.rawPath}?${[...kept, ...added].join("&")}`;
}

/**
 * Offset pagination: the page plus x-* headers and an absolute `Link`. With `limitedType`, pages
 * starting at or past the configured maximum offset are refused, as on endpoints that offer keyset.
 */
export function offsetPage<T>(ctx: RequestContext, items: Sliceable<T>, limitedType?: string): Page<T> {
  const size = perPage(ctx);
  const page = Math.max(1, intParam(ctx, "page") ?? 1);
  const start = (page - 1) * size;
  // Grape's error!, which writes its text under `error`, not `message` (GitLab's spec reads json_response['error']).
  if (limitedType && start >= ctx.offsetLimit) {
    throw new HttpError(405, { error: `Offset pagination has a maximum allowed offset of ${ctx.offsetLimit} for requests that return objects of type ${limitedType}. Remaining records can be retrieved using keyset pagination.` });
  }
  const total = items.length;
  const counted = total <= COUNT_LIMIT;
  const lastPage = Math.max(1, Math.ceil(total / size));
  const next = start + size < total ? page + 1 : undefined;
  const prev = page > 1 ? page - 1 : undefined;
  const url = (n: number): string => pageUrl(ctx, { page: String(n), per_page: String(size) });
  const links = [
    prev && `<${url(prev)}>; rel="prev"`,
    next && `<${url(next)}>; rel="next"`,
    `<${url(1)}>; rel="first"`,
    counted && `<${url(lastPage)}>; rel="last"`,
  ];
  const headers: Record<string, string> = {
    link: links.filter(Boolean).join(", "),
    "x-page": String(page),
    "x-per-page": String(size),
    "x-next-page": next ? String(next) : "",
    "x-prev-page": prev ? String(prev) : "",
  };
  if (counted) {
    headers["x-total"] = String(total);
    headers["x-total-pages"] = String(lastPage);
  }
  return { items: items.slice(start, start + size), headers };
}

/**
 * Keyset pagination over items already ordered and filtered past the cursor. One item of
 * look-ahead decides whether a next page exists: on the last page there is no `Link` at all.
 */
export function keysetPage<T>(
  ctx: RequestContext,
  ordered: Sliceable<T>,
  next: (last: T) => { params: Record<string, string>; cursor: string },
): Page<T> {
  const size = perPage(ctx);
  const window = ordered.slice(0, size + 1);
  const items = window.slice(0, size);
  const last = items.at(-1);
  if (window.length <= size || last === undefined) return { items, headers: {} };
  const { params, cursor } = next(last);
  // The link repeats the request's parameters, replacing only the position it moves (keyset rule 1):
  // a caller's id_before bound survives an ascending listing, and id_after a descending one.
  const url = pageUrl(ctx, params, ["cursor", "page", ...Object.keys(params)]);
  return { items, headers: { link: `<${url}>; rel="next"`, "x-next-cursor": cursor } };
}

export const encodeCursor = (fields: Record<string, string>): string => Buffer.from(JSON.stringify(fields)).toString("base64url");

export function decodeCursor(ctx: RequestContext): Record<string, unknown> | undefined {
  const raw = ctx.params["cursor"];
  if (raw === undefined) return undefined;
  try {
    const fields: unknown = JSON.parse(Buffer.from(String(raw), "base64url").toString("utf8"));
    if (typeof fields === "object" && fields !== null) return fields as Record<string, unknown>;
  } catch {
    // falls through to the error below
  }
  throw invalid("cursor");
}

export const keysetUnavailable = () => apiError(405, "Keyset pagination is not yet available for this type of request");

export const listReply = <T>(page: Page<T>, serialize: (item: T) => unknown): Reply => ({
  status: 200,
  headers: page.headers,
  body: page.items.map(serialize),
});
