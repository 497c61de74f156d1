/**
 * Adds credentials per hop, and only when the hop goes to the configured origin, below the service's API
 * path. Callers never put a credential in their headers, so no redirect, retry or error path can carry
 * one anywhere else.
 */
import type { Layer } from "./types.ts";

export function credentialsLayer(origin: string, apiPath: string, credentials: Record<string, string>): Layer {
  return (next) => (req) =>
    next(req.url.origin === origin && req.url.pathname.startsWith(apiPath) ? { ...req, headers: { ...req.headers, ...credentials } } : req);
}
