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
 * The check judged the path decoded once and resolved by the WHATWG URL parser, for which a decoded `?`
 * (`%3F`) starts a query: the `/../..` after it went unresolved, where nginx keeps a decoded `?` in the
 * path (ngx_http_parse_complex_uri) and resolves them (the recent-changes review). A front that decodes
 * twice goes further still. The loopback servers here are such fronts: each routes by its normalised
 * path and records what the application that is not GitLab received.
 */
import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { N8nClient } from "../../lib/n8n/index.ts";
import { json, serve } from "../support/server.ts";

const TOKEN = "glpat-review-leaks-apipath-0123456789";
const KEY = "n8n-review-leaks-apipath-key-0123456789";

/** A front's normalisation for routing: the path ends at its first literal `?`; %XX (and IIS's %uXXXX) decoded `times`
 * (nginx: once, a decoded `?` an ordinary character), then `.` and `..` resolved on `/` alone. */
function normalised(rawPath: string, times = 1): string {
  let path = rawPath.split("?")[0]!;
  // %uXXXX too, as IIS's http.sys decodes it.
  for (let i = 0; i < times; i++) path = path.replace(/%u([0-9a-fA-F]{4})|%([0-9a-fA-F]{2})/g, (_, u: string | undefined, h: string | undefined) => String.fromCharCode(parseInt(u ?? h!, 16)));
  const out: string[] = [];
  for (const segment of path.split("/").slice(1)) {
    if (segment === "..") out.pop();
    else if (segment !== ".") out.push(segment);
  }
  return `/${out.join("/")}`;
}

/** Locations below the API path as written that a front routes elsewhere, and how often it decodes. */
const ESCAPES: [string, string, number][] = [
  ["an encoded ../", "..%2F..%2F..%2Fwiki/collect", 1],
  ["an encoded ? before an encoded ../", "%3F%2F..%2F..%2F..%2F..%2Fwiki/collect", 1],
  ["an encoded # before an encoded ../", "%23%2F..%2F..%2F..%2F..%2Fwiki/collect", 1],
  ["a twice-encoded ../, at a front that decodes twice", "%252E%252E%252F%252E%252E%252F%252E%252E%252Fwiki/collect", 2],
  // A byte no UTF-8 spells (`%FF`): nginx decodes byte by byte all the same; the check stopped decoding at it.
  ["a %FF before an encoded ../", "%FF/..%2F..%2F..%2F..%2Fwiki/collect", 1],
  ["IIS's %u002e dot segments (http.sys decodes %uXXXX by default)", "%u002e%u002e/%u002e%u002e/%u002e%u002e/wiki/collect", 1],
];

describe.each(ESCAPES)("a same-origin Location with %s", (_what, escape, decodings) => {
  it("does not send PRIVATE-TOKEN to the application beside GitLab", async () => {
    const neighbour: { url: string; token: unknown }[] = [];
    const s = await serve((req: IncomingMessage & { url: string }, res) => {
      if (!normalised(req.url, decodings).startsWith("/gitlab/")) {
        // Another application on the host (a wiki, a status page): whoever runs it reads its access log.
        neighbour.push({ url: req.url, token: req.headers["private-token"] });
        return json(res, 200, { id: 1, name: "p", path: "p", path_with_namespace: "acme/p" });
      }
      // GitLab (or whatever answers the API) redirects a read: the Location is the server's to choose.
      res.writeHead(301, { location: `/gitlab/api/v4/${escape}` });
      res.end();
    });
    const gitlab = new GitLabClient({ url: `${s.url}/gitlab`, token: TOKEN, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
    await gitlab.getProject(1).catch(() => undefined);

    // The hop reached the neighbour (routed by the normalised path), as the plain /wiki/ redirect does in the earlier test.
    expect(neighbour.map((r) => normalised(r.url, decodings))).toContain("/wiki/collect");
    expect(neighbour.filter((r) => r.token !== undefined).map((r) => r.url), "requests the neighbouring application received with GitLab's token").toEqual([]);
  });

  it("does not send X-N8N-API-KEY to the application beside n8n", async () => {
    const neighbour: { url: string; key: unknown }[] = [];
    const s = await serve((req: IncomingMessage & { url: string }, res) => {
      if (!normalised(req.url, decodings).startsWith("/n8n/")) {
        neighbour.push({ url: req.url, key: req.headers["x-n8n-api-key"] });
        return json(res, 200, { id: "1", name: "w", active: false });
      }
      res.writeHead(301, { location: `/n8n/api/v1/${escape}` });
      res.end();
    });
    const n8n = new N8nClient({ url: `${s.url}/n8n`, apiKey: KEY, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
    await n8n.getWorkflow("1").catch(() => undefined);
    expect(neighbour.map((r) => normalised(r.url, decodings))).toContain("/wiki/collect");
    expect(neighbour.filter((r) => r.key !== undefined).map((r) => r.url), "requests the neighbouring application received with n8n's key").toEqual([]);
  });
});

it("a path below the API path with encoded slashes, dots, # and ? inside its names still carries the token", async () => {
  const seen: unknown[] = [];
  const s = await serve((req: IncomingMessage & { url: string }, res) => {
    seen.push(req.headers["private-token"]);
    return json(res, 200, { id: 1, name: "p", path: "p", path_with_namespace: "acme/p.v2" });
  });
  const gitlab = new GitLabClient({ url: `${s.url}/gitlab`, token: TOKEN, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  await gitlab.getProject("acme/sub.group/p..v2");
  // A # or ? in a name (a branch fix/#123, a file what?.md) routes nowhere: nginx keeps it in the path.
  await gitlab.findBranch(1, "fix/#123").catch(() => undefined);
  await gitlab.getFile(1, "docs/what?.md", "main").catch(() => undefined);
  expect(seen).toEqual([TOKEN, TOKEN, TOKEN]);
});
