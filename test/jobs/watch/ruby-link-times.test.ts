/**
 * The watch reads each source's events past its cursor from `created_after` = the
 * cursor's time (an event's created_at, milliseconds and all) less 5 minutes. GitLab writes the next
 * link of that listing from the coerced parameters (Keyset::HeaderBuilder: `params.merge(…).to_query`),
 * a DateTime written by Ruby in whole seconds. lib/paging refused that link as changing created_after,
 * so a source with more than one page (100) of events past its cursor failed every poll, and its cursor
 * never moved: the backlog only grew, and the source was never read again. On an instance source (an
 * administrator's token), more than 100 events between two polls is an ordinary busy minute.
 */
import { describe, expect, it } from "vitest";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { readSource } from "../../../lib/jobs/watch/read.ts";
import { json, serve } from "../../support/server.ts";

const TOKEN = "glpat-ruby-link-times-watch-0123";
const rubyTime = (value: string) => new Date(value).toISOString().replace(/\.\d{3}Z$/, "+00:00");

describe("the watch reads a backlog of more than one page past its cursor through GitLab's own next links", () => {
  it("150 events past the cursor (a busy minute): the poll reads them, it does not fail for good", async () => {
    const start = Math.floor((Date.now() - 10 * 60_000) / 1000) * 1000 + 137;
    const cursor = { id: 1000, at: new Date(start).toISOString() };
    // ids 1000..1150, one every 2 s after the cursor's; newest first, as GitLab lists them.
    const all = Array.from({ length: 151 }, (_, i) => ({ id: 1000 + i, author_id: 1, entity_id: 7, entity_type: "Group", event_name: "user_signed_in", details: {}, created_at: new Date(start + i * 2_000).toISOString() })).reverse();
    const server = await serve((req, res) => {
      const url = new URL(req.url, "http://x");
      const after = Date.parse(url.searchParams.get("created_after") ?? "") || 0;
      const before = Date.parse(url.searchParams.get("created_before") ?? "") || Infinity;
      const perPage = Number(url.searchParams.get("per_page") ?? 20);
      const below = Number(url.searchParams.get("cursor") ?? Infinity);
      const matching = all.filter((e) => Date.parse(e.created_at) >= after && Date.parse(e.created_at) <= before && e.id < below);
      const page = matching.slice(0, perPage);
      if (matching.length <= perPage) return json(res, 200, page);
      // GitLab's link: the coerced params (times as Ruby writes them), keys sorted, plus the cursor.
      const params = new Map<string, string>();
      for (const [k, v] of url.searchParams) params.set(k, k === "created_after" || k === "created_before" ? rubyTime(v) : v);
      params.set("cursor", String(page.at(-1)!.id));
      const query = [...params].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&");
      json(res, 200, page, { link: `<${server.url}${url.pathname}?${query}>; rel="next"` });
    });
    const gitlab = new GitLabClient({ url: server.url, token: TOKEN, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 1, maxRetries: 0 } });
    const source = { key: "group:7", source: { kind: "group" as const, id: 7 }, label: "acme" };
    let error: unknown;
    let got;
    try {
      got = await readSource(gitlab, source, cursor, 1_000);
    } catch (err) {
      error = err;
    }
    expect(String(error ?? "no error"), "GitLab's own link to the second page").toBe("no error");
    expect(got?.events).toHaveLength(150);
    expect(got?.to.id).toBe(1150);
  });
});
