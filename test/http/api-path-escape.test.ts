/**
 * Credentials left the service's API path through an encoded "../" (the credential review's finding).
 *
 * lib/http/credentials.ts adds PRIVATE-TOKEN (or X-N8N-API-KEY) to a hop only when the hop's
 * `URL.pathname` starts with the API path (`/gitlab/api/v4/`). The WHATWG URL parser resolves `..`,
 * `%2e%2e` and `\`, but keeps `..%2F..%2F` as one ordinary segment, so a same-origin Location of
 * `/gitlab/api/v4/..%2F..%2F..%2Fwiki/collect` passes the check: the token is sent. The server in front
 * (nginx, which the GitLab Omnibus package ships) matches `location` blocks against the URI *after*
 * decoding %XX and resolving `.`/`..` ("The matching is performed against a normalized URI, after
 * decoding the text encoded in the %XX form, resolving references to relative path components . and
 * ..": nginx's documentation of `location`), so that request goes to the neighbouring application,
 * token included: the very leak test/gitlab/path-prefix-credentials.test.ts closed for `/wiki/…`. The
 * check now judges the path as such a front routes it (lib/http/credentials.ts).
 *
 * The loopback server here is that front: it routes by the normalised path, as nginx does, and records
 * what the application that is not GitLab received.
 */
import type { IncomingMessage } from "node:http";
import { expect, it } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { N8nClient } from "../../lib/n8n/index.ts";
import { json, serve } from "../support/server.ts";

const TOKEN = "glpat-review-leaks-apipath-0123456789";

/** nginx's normalisation for `location` matching: %XX decoded (%2F included), then `.` and `..` resolved. */
function normalised(rawPath: string): string {
  const path = rawPath.split("?")[0]!;
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // left as it is
  }
  return new URL(decoded, "http://front.invalid").pathname;
}

it("GitLab under /gitlab: a same-origin Location with an encoded ../ sends PRIVATE-TOKEN to the application beside it", async () => {
  const neighbour: { url: string; token: unknown }[] = [];
  const s = await serve((req: IncomingMessage & { url: string }, res) => {
    const route = normalised(req.url);
    if (!route.startsWith("/gitlab/")) {
      // Another application on the host (a wiki, a status page): whoever runs it reads its access log.
      neighbour.push({ url: req.url, token: req.headers["private-token"] });
      return json(res, 200, { id: 1, name: "p", path: "p", path_with_namespace: "acme/p" });
    }
    // GitLab (or whatever answers the API) redirects a read: the Location is the server's to choose.
    res.writeHead(301, { location: "/gitlab/api/v4/..%2F..%2F..%2Fwiki/collect" });
    res.end();
  });
  const gitlab = new GitLabClient({ url: `${s.url}/gitlab`, token: TOKEN, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  await gitlab.getProject(1).catch(() => undefined);

  // The hop reached the neighbour (routed by the normalised path), as the plain /wiki/ redirect does in the earlier test.
  expect(neighbour.map((r) => normalised(r.url))).toContain("/wiki/collect");
  // What the fix of the earlier finding promises: nothing outside GitLab's API path gets the token.
  expect(neighbour.filter((r) => r.token !== undefined).map((r) => r.url), "requests the neighbouring application received with GitLab's token").toEqual([]);
});

it("n8n under /n8n: the same Location sends X-N8N-API-KEY to the application beside it", async () => {
  const KEY = "n8n-review-leaks-apipath-key-0123456789";
  const neighbour: { url: string; key: unknown }[] = [];
  const s = await serve((req: IncomingMessage & { url: string }, res) => {
    if (!normalised(req.url).startsWith("/n8n/")) {
      neighbour.push({ url: req.url, key: req.headers["x-n8n-api-key"] });
      return json(res, 200, { id: "1", name: "w", active: false });
    }
    res.writeHead(301, { location: "/n8n/api/v1/..%2F..%2F..%2Fwiki/collect" });
    res.end();
  });
  const n8n = new N8nClient({ url: `${s.url}/n8n`, apiKey: KEY, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  await n8n.getWorkflow("1").catch(() => undefined);
  expect(neighbour.map((r) => normalised(r.url))).toContain("/wiki/collect");
  expect(neighbour.filter((r) => r.key !== undefined).map((r) => r.url), "requests the neighbouring application received with n8n's key").toEqual([]);
});
