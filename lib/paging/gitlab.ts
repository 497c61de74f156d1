/**
 * GitLab's two paging styles. Both follow `Link rel="next"` and take only its path and query, so a
 * listing never leaves the configured origin or /api/v4 whatever the server (or a proxy) writes.
 */
import { HttpError, type HttpClient } from "../http/index.ts";
import { linkWithRel } from "./link-header.ts";
import { hasKeyset, keysetSupportFor, offsetUnavailableFor, type ListingOrder } from "./keyset-support.ts";
import { Listing, PagingError, type ListOptions } from "./listing.ts";
import type { PageMeta, Strategy } from "./strategy.ts";

export interface GitLabListRequest {
  http: HttpClient;
  /** "/api/v4", or "/gitlab/api/v4" for an instance under a path. */
  basePath: string;
  /** Path below basePath, path parameters encoded: "/groups/acme%2Fmobile/projects". */
  path: string;
  /** Serialised query without paging parameters (lib/gitlab encodes it). */
  query?: string;
  route: string;
  /** Warden always asks for GitLab's maximum. */
  perPage?: number;
}

type Item = { id: number | string };

const JSON_ACCEPT = { accept: "application/json" };

export function gitlabOffset<T extends Item>(req: GitLabListRequest): Strategy<T> {
  const perPage = req.perPage ?? 100;
  const first = firstUrl(req, { per_page: String(perPage) });
  return {
    name: "gitlab-offset",
    route: req.route,
    idType: "number",
    shifts: true,
    async fetch(position, signal) {
      const url = position ? resolve(req, position) : first;
      const page = await getPage<T>(req, url, first, signal).catch((err: unknown) => {
        throw offsetLimitError(req, err);
      });
      const { headers } = page;
      // x-next-page is only a fallback: the spec says follow Link, and never build URLs where one is given.
      let next = page.next;
      const nextPage = headers["x-next-page"]?.trim() ?? "";
      // GitLab writes Link on every offset page (rel="first" at the least). A full page with neither it nor
      // X-Next-Page came through something that dropped them (a proxy passing an allowlist of headers): taken
      // for the last page, it would pass each listing's first page off as all of it. (A shorter page is the
      // last one whatever its headers say: offset pages are full but for the last.)
      if (next === null && !headers["link"] && headers["x-next-page"] === undefined && page.items.length >= perPage) {
        throw headersDropped(req, "no Link, no X-Next-Page");
      }
      if (next === null && nextPage !== "" && headers["link"]) {
        // The headers disagree: ending here would pass a partial listing off as complete.
        throw new PagingError(`${req.route}: X-Next-Page names a next page but Link has no rel="next"; stopping instead of ending the listing early`);
      }
      if (next === null && /^\d+$/.test(nextPage)) {
        const fallback = new URL(url);
        fallback.searchParams.set("page", nextPage);
        next = fallback.pathname + fallback.search;
      }
      const meta: PageMeta = { total: count(headers["x-total"]), totalPages: count(headers["x-total-pages"]), ...dated(headers) };
      return { items: page.items, next, meta };
    },
  };
}

/** `order.orderBy` is left out where keyset takes none (the repository tree). */
export function gitlabKeyset<T extends Item>(req: GitLabListRequest, order: ListingOrder): Strategy<T> {
  const perPage = req.perPage ?? 100;
  const params: Record<string, string> = { pagination: "keyset", per_page: String(perPage) };
  if (order.orderBy) params["order_by"] = order.orderBy;
  if (order.sort) params["sort"] = order.sort;
  const first = firstUrl(req, params);
  return {
    name: "gitlab-keyset",
    route: req.route,
    idType: "number",
    // Keyset by id walks the ids themselves: the cursor names the last one, so the next page's are beyond it.
    ...(order.orderBy === "id" && order.sort ? { idOrder: order.sort } : {}),
    async fetch(position, signal) {
      const page = await getPage<T>(req, position ? resolve(req, position) : first, first, signal);
      const meta: PageMeta = dated(page.headers);
      if (page.headers["x-next-cursor"]) meta.nextCursor = page.headers["x-next-cursor"];
      if (page.headers["x-prev-cursor"]) meta.prevCursor = page.headers["x-prev-cursor"];
      // The end of a keyset listing is an empty page without Link, or a full one: GitLab looks one item
      // ahead and sends no Link when none follows. A page reached by a link came through whatever passes
      // Link; a full first page without one may instead have lost it (a proxy passing an allowlist of
      // headers), so it is checked once (linkPasses).
      if (page.next === null && position === "" && perPage > 1 && page.items.length >= perPage) await linkPasses(req, first, signal);
      return { items: page.items, next: page.items.length === 0 ? null : page.next, meta };
    },
  };
}

/**
 * Asks for the listing's first page again, one item long: of a listing of a full page or more, GitLab
 * sends a next link with it, whatever the order. None means something drops Link, and the full page
 * is not known to be the last. (Asking past the last id would suit only listings that take id bounds,
 * not those by id that move by cursor, such as audit events, which would ignore the bound.)
 */
async function linkPasses(req: GitLabListRequest, first: URL, signal?: AbortSignal): Promise<void> {
  const probe = new URL(first);
  probe.searchParams.set("per_page", "1");
  const page = await getPage(req, probe, first, signal);
  if (page.next === null && page.items.length > 0) throw headersDropped(req, "no Link on a full page, nor on that page asked for again one item long");
}

/**
 * Keyset where GitLab offers it for this path, order and caller (never risking the offset limit), offset
 * everywhere else.
 */
export function gitlabListing<T extends Item>(
  req: GitLabListRequest & { order?: ListingOrder; authenticated: boolean },
  opts?: ListOptions,
): Listing<T> {
  const keysetOnly = offsetUnavailableFor(req.path);
  // Where offset is not offered (users), no order means the resource's first keyset order.
  const order = req.order ?? (keysetOnly?.orderBy ? { orderBy: keysetOnly.orderBy[0] } : {});
  const keyset = keysetSupportFor(req.path, order, req.authenticated);
  if (keyset) return new Listing(gitlabKeyset<T>(req, { orderBy: order.orderBy, sort: order.sort ?? keyset.sort[0] }), opts);
  if (keysetOnly) throw new PagingError(`${req.route}: GitLab offers only keyset pagination here, and not for order ${JSON.stringify(order)}`);
  const offsetReq = { ...req, query: [req.query, orderQuery(order)].filter(Boolean).join("&") };
  return new Listing(gitlabOffset<T>(offsetReq), opts);
}

/** GitLab's 405 past the maximum offset, turned into advice that names the way out. */
function offsetLimitError(req: GitLabListRequest, err: unknown): unknown {
  if (!(err instanceof HttpError && err.status === 405 && /keyset/i.test(err.serviceMessage))) return err;
  return new PagingError(
    `${req.route}: GitLab's maximum offset was reached (${err.serviceMessage}). ` +
      (hasKeyset(req.path) ? "List it by keyset (order_by=id) instead." : "This endpoint has no keyset pagination; narrow the listing with filters."),
  );
}

function headersDropped(req: GitLabListRequest, missing: string): PagingError {
  return new PagingError(
    `${req.route}: the page came without GitLab's paging headers (${missing}; a proxy dropping them?), so whether more pages follow is unknown; ` +
      "stopping instead of ending the listing early. Let the proxy in front of GitLab pass its Link and X-* paging headers",
  );
}

function orderQuery(order: ListingOrder): string {
  return [order.orderBy && `order_by=${encodeURIComponent(order.orderBy)}`, order.sort && `sort=${order.sort}`].filter(Boolean).join("&");
}

async function getPage<T>(req: GitLabListRequest, url: URL, first: URL, signal?: AbortSignal) {
  const res = await req.http.send({ method: "GET", url, route: req.route, headers: JSON_ACCEPT, expect: "json", signal });
  req.http.stats.count(req.route, "pages");
  const items = res.json;
  if (!Array.isArray(items)) throw new PagingError(`${req.route}: expected a JSON array, got ${typeof items}`);
  const link = linkWithRel(res.headers["link"], "next");
  return { items: items as T[], next: link ? relative(req, link, res.url, first) : null, headers: res.headers };
}

function firstUrl(req: GitLabListRequest, paging: Record<string, string>): URL {
  const url = new URL(req.http.origin + req.basePath + req.path + (req.query ? `?${req.query}` : ""));
  for (const [k, v] of Object.entries(paging)) if (!url.searchParams.has(k)) url.searchParams.set(k, v);
  return url;
}

/** What a next link may change of the first request: the page and its size, or the keyset's position (the last id, or a cursor). */
const MOVING = new Set(["page", "per_page", "cursor", "id_after", "id_before"]);

/**
 * Keeps only the path and query of a link, after checking it is a URL (one that is not is named by the
 * page it came with: its text is the server's to choose) that goes on with the same listing: its path,
 * under the API's base path, and every parameter of the first request (its filters) but the page's.
 * GitLab's links keep them; one that lists another group's projects, or drops `with_shared=false`,
 * would pass that listing off as the one asked for, the token sent along.
 */
function relative(req: GitLabListRequest, href: string, base: URL, first: URL): string {
  const link = URL.parse(href, base.href);
  if (!link) throw new PagingError(`${req.route}: the next link after ${req.http.redactor.path(base)} is not a URL; refusing to follow it`);
  if (!link.pathname.startsWith(`${req.basePath}/`)) {
    throw new PagingError(`${req.route}: next link leaves ${req.basePath} (${req.http.redactor.path(link)}); refusing to follow it`);
  }
  const changed = link.pathname !== first.pathname ? "its path" : [...new Set(first.searchParams.keys())].find((k) => !MOVING.has(k) && !sameValue(first.searchParams.getAll(k), link.searchParams.getAll(k)));
  if (changed) {
    throw new PagingError(`${req.route}: next link changes ${changed === "its path" ? changed : `the parameter ${changed}`} of the listing (${req.http.redactor.path(link)}); refusing to follow it`);
  }
  // The filters sent again as first asked: a time the link writes in whole seconds would, from the second
  // page on, list a window up to a second narrower at its end than the first page's.
  for (const key of new Set(first.searchParams.keys())) {
    const asked = first.searchParams.getAll(key);
    if (MOVING.has(key) || asked.join("&") === link.searchParams.getAll(key).join("&")) continue;
    link.searchParams.delete(key);
    for (const value of asked) link.searchParams.append(key, value);
  }
  return link.pathname + link.search;
}

/**
 * Whether a link keeps a parameter's value. GitLab writes its links from the parameters as it coerced them,
 * a time as Ruby writes one, in whole seconds ("2026-10-31T12:00:00+00:00", or "2026-10-31 12:00:00 UTC",
 * for "…T12:00:00.137Z"): a time Warden sent is compared as an instant, its milliseconds dropped or not.
 */
function sameValue(asked: string[], linked: string[]): boolean {
  const instant = (v: string | undefined) => (v === undefined ? NaN : Date.parse(v));
  const time = (v: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(v);
  const same = (v: string, link: string | undefined) => {
    const at = instant(v);
    return !Number.isNaN(at) && (instant(link) === at || instant(link) === at - (at % 1000));
  };
  return asked.length === linked.length && asked.every((v, i) => v === linked[i] || (time(v) && same(v, linked[i])));
}

function resolve(req: GitLabListRequest, position: string): URL {
  return new URL(position, req.http.origin);
}

function dated(headers: Record<string, string>): Pick<PageMeta, "date"> {
  return headers["date"] ? { date: headers["date"] } : {};
}

function count(header: string | undefined): number | "unknown" {
  return header && /^\d+$/.test(header.trim()) ? Number(header) : "unknown";
}
