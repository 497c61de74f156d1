/**
 * Where GitLab's token goes on a redirect. A GitLab served under a path prefix (GITLAB_URL=
 * https://host/gitlab) shares its origin with whatever else the host serves; the token was bound to the
 * origin alone, so a same-origin redirect of a read carried it to another application. It is bound to
 * GitLab's API path too (lib/http/credentials.ts): a hop out of it goes without.
 */
import { expect, it } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { json, serve } from "../support/server.ts";

const TOKEN = "glpat-review-paging-token-0123456789";

it("GitLab under /gitlab: a 301 of a read to /wiki/… on the same host (another application) does not carry PRIVATE-TOKEN there", async () => {
  const s = await serve((req, res) => {
    if (req.url.startsWith("/gitlab/api/v4/")) {
      res.writeHead(301, { location: "/wiki/api/collect" });
      return res.end();
    }
    json(res, 200, { id: 1, name: "p", path: "p", path_with_namespace: "acme/p" });
  });
  const gitlab = new GitLabClient({ url: `${s.url}/gitlab`, token: TOKEN, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  await gitlab.getProject(1).catch(() => undefined);
  const leaked = s.received.filter((r) => !r.url.startsWith("/gitlab/") && r.headers["private-token"] !== undefined).map((r) => r.url);
  expect(leaked, "requests outside /gitlab that carried the token").toEqual([]);
  expect(s.received.map((r) => r.url), "the redirect was followed, without the token").toContain("/wiki/api/collect");
});
