/**
 * Adds credentials per hop, and only when the hop goes to the configured origin, below the service's API
 * path. Callers never put a credential in their headers, so no redirect, retry or error path can carry
 * one anywhere else.
 *
 * "Below the API path" must hold for the path as whatever front routes it: nginx (GitLab's Omnibus ships
 * it) matches its locations after decoding %XX byte by byte (whatever the bytes spell) and resolving `.`
 * and `..`, so a Location of `/gitlab/api/v4/..%2F..%2Fwiki/x`, below the API path as written, reaches
 * the application beside it; a front that decodes twice goes further, one that takes `\` for `/` too,
 * and a Java one reads `..;` as `..`. Rather than model each front's resolution, a path that holds such a
 * segment, a `\` or a control character at any decoding gets no credential: GitLab's and n8n's API paths
 * never do. A decoded `?` or `#` is left alone: it routes nowhere (nginx keeps it in the path), and
 * names hold them (a branch `release/#42`).
 */
import type { Layer } from "./types.ts";

export function credentialsLayer(origin: string, apiPath: string, credentials: Record<string, string>): Layer {
  return (next) => (req) => next(req.url.origin === origin && belowApiPath(req.url.pathname, apiPath) ? { ...req, headers: { ...req.headers, ...credentials } } : req);
}

/** Decodings judged: a front decoding twice is known; three covers one more. */
const DECODINGS = 3;

/**
 * %XX decoded as bytes, as nginx does (a `%FF` no UTF-8 spells too): each byte a character; and IIS's
 * %uXXXX (http.sys decodes it by default) as the character it names.
 */
const percentDecoded = (path: string) =>
  path.replace(/%u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))).replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/**
 * A segment a front may resolve (`.`, `..`, `..;x`), or a character one may take for a separator: `\`, a
 * control character, or the lead byte of an overlong UTF-8 form (`%C0%AE`, a `.` to old decoders).
 */
const routedAway = (path: string) => /[\\\0-\x1f\x7f\xc0\xc1]/.test(path) || path.split("/").some((segment) => /^\.\.?(?:;.*)?$/.test(segment));

/** Judged as written (its literal prefix no decoding changes), then at every decoding for what may route it away. */
function belowApiPath(pathname: string, apiPath: string): boolean {
  if (!pathname.startsWith(apiPath)) return false;
  let path = pathname;
  for (let i = 0; i <= DECODINGS; i++) {
    if (routedAway(path)) return false;
    const decoded = percentDecoded(path);
    if (decoded === path) break;
    path = decoded;
  }
  return true;
}
