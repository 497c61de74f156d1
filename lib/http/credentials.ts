/**
 * Adds credentials per hop, and only when the hop goes to the configured origin, below the service's API
 * path. Callers never put a credential in their headers, so no redirect, retry or error path can carry
 * one anywhere else.
 *
 * "Below the API path" must hold for the path as whatever front routes it: nginx (GitLab's Omnibus ships
 * it) matches its locations after decoding %XX and resolving `.` and `..`, keeping a decoded `?` as part
 * of the path, so a Location of `/gitlab/api/v4/..%2F..%2Fwiki/x`, or `/gitlab/api/v4/%3F%2F..%2Fwiki/x`,
 * below the API path as written, reaches the application beside it; a front that decodes twice, or one
 * that takes `\` for `/`, goes further. Rather than model each front's resolution, a path that holds a
 * dot segment, `?`, `#` or `\` at any decoding gets no credential: GitLab's and n8n's API paths never do.
 */
import type { Layer } from "./types.ts";

export function credentialsLayer(origin: string, apiPath: string, credentials: Record<string, string>): Layer {
  return (next) => (req) => next(req.url.origin === origin && belowApiPath(req.url.pathname, apiPath) ? { ...req, headers: { ...req.headers, ...credentials } } : req);
}

/** Decodings judged: a front decoding twice is known; three covers one more. */
const DECODINGS = 3;
/** A segment any front may resolve (`.`, `..`), or a character one may take for the end of the path or a separator. */
const routedAway = (path: string) => /[?#\\\0-\x1f]/.test(path) || path.split("/").some((segment) => segment === "." || segment === "..");

/** Judged as written (its literal prefix no decoding changes), then at every decoding for what may route it away. */
function belowApiPath(pathname: string, apiPath: string): boolean {
  if (!pathname.startsWith(apiPath)) return false;
  let path = pathname;
  for (let i = 0; i < DECODINGS; i++) {
    if (routedAway(path)) return false;
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      // Not decodable as a whole: a front decoding it leaves some %XX as they are; judged as they stand.
      break;
    }
    if (decoded === path) break;
    path = decoded;
  }
  return !routedAway(path);
}
