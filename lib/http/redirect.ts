/**
 * Follows 301/302/303/307/308 for GET and HEAD only (GitLab answers a renamed project's old path with
 * a 301 to its numeric id). Another origin is refused by default; when allowed, the hop goes without
 * credentials because the credentials layer only adds them for the configured origin.
 */
import { RedirectError } from "./errors.ts";
import type { Redactor } from "../redact/index.ts";
import type { Layer } from "./types.ts";

export type CrossOriginPolicy = "refuse" | "follow-without-credentials";

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export function redirectLayer(origin: string, policy: CrossOriginPolicy, redactor: Redactor, maxHops = 5): Layer {
  return (next) => async (first) => {
    let req = first;
    for (let hop = 0; ; hop++) {
      const res = await next(req);
      const location = res.headers["location"];
      if (!REDIRECTS.has(res.status) || !location || (req.method !== "GET" && req.method !== "HEAD")) return res;
      const target = URL.parse(location, req.url.href);
      // Named by the request alone: the header's text is the server's to choose.
      if (!target) throw new RedirectError(`${req.method} ${redactor.path(req.url)} redirected to a Location that is not a URL; refused`);
      if (target.origin !== origin && policy === "refuse") {
        throw new RedirectError(`${req.method} ${redactor.path(req.url)} redirected to another origin (${target.origin}); refused`);
      }
      if (hop >= maxHops) throw new RedirectError(`${req.method} ${redactor.path(first.url)}: more than ${maxHops} redirects`);
      req = { ...req, url: target };
    }
  };
}
