/**
 * Adds credentials per hop, and only when the hop goes to the configured origin, below the service's API
 * path. Callers never put a credential in their headers, so no redirect, retry or error path can carry
 * one anywhere else.
 *
 * "Below the API path" is judged on the path as the server in front routes it: nginx (GitLab's Omnibus
 * ships it) matches its locations after decoding %XX and resolving `.` and `..`, so a Location of
 * `/gitlab/api/v4/..%2F..%2Fwiki/x`, below the API path as written, reaches the application beside it.
 */
import type { Layer } from "./types.ts";

export function credentialsLayer(origin: string, apiPath: string, credentials: Record<string, string>): Layer {
  return (next) => (req) => next(req.url.origin === origin && routedPath(req.url).startsWith(apiPath) ? { ...req, headers: { ...req.headers, ...credentials } } : req);
}

/** The path decoded once and its dot segments resolved; "" (below nothing) where it does not decode. */
function routedPath(url: URL): string {
  try {
    return new URL(decodeURIComponent(url.pathname), "http://path.invalid").pathname;
  } catch {
    return "";
  }
}
