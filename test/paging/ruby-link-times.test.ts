/**
 * GitLab writes a next link from the parameters *as Grape coerced them*
 * (lib/gitlab/pagination/keyset/header_builder.rb: `params.merge(query_params).to_query`; the offset
 * header builder alike). A parameter declared `type: DateTime` (created_after / created_before on every
 * audit-event route, updated_after on issues) is a Ruby DateTime there, and DateTime#to_s writes whole
 * seconds: "2026-11-30T09:15:42.137Z" comes back as "2026-11-30T09:15:42+00:00".
 *
 * Warden sends its times with milliseconds (`toISOString()` of `new Date()`-derived windows), and
 * lib/paging/gitlab.ts's `relative()` compares a time parameter as an instant: the link's instant is
 * 137 ms earlier, so, before it allowed for the whole seconds, the second page of every such listing was refused ("next link changes the parameter
 * created_after of the listing"). The simulator copies the raw query into its links, so no existing test
 * saw it (it writes times back as GitLab does now: sim/gitlab/pagination.ts). These tests play GitLab as its
 * HeaderBuilder writes links; the pages after the first are sent with the filter as first asked.
 */
import { describe, expect, it } from "vitest";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { GitLabClient, auditWindows, listAuditEvents, listIssues } from "../../lib/gitlab/index.ts";
import { json, serve } from "../support/server.ts";

const TOKEN = "glpat-ruby-link-times-token-0123";

/** A time as Ruby's DateTime#to_s writes it (what Grape's coerced param becomes in to_query): whole seconds, +00:00. */
const rubyTime = (value: string) => new Date(value).toISOString().replace(/\.\d{3}Z$/, "+00:00");

/**
 * GitLab's next link: the request's own parameters as coerced (the DateTime ones re-written by Ruby),
 * plus the position; ActiveSupport's to_query sorts the keys.
 */
function gitlabLink(origin: string, reqUrl: string, timeParams: readonly string[], set: Record<string, string>): string {
  const url = new URL(reqUrl, origin);
  const params = new Map<string, string>();
  for (const [k, v] of url.searchParams) params.set(k, timeParams.includes(k) ? rubyTime(v) : v);
  for (const [k, v] of Object.entries(set)) params.set(k, v);
  const query = [...params].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
  return `<${origin}${url.pathname}?${query}>; rel="next"`;
}

const client = (url: string) => new GitLabClient({ url, token: TOKEN, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 1, maxRetries: 0 } });

describe("a listing filtered by a time with milliseconds follows GitLab's own next link (times re-written by Ruby, whole seconds)", () => {
  it("a group's audit events in a 30-day window of more than one page (101 events) are all read", async () => {
    // 100 a page: page 1 ids 201..102, page 2 id 101 (newest first, keyset by id).
    const events = Array.from({ length: 101 }, (_, i) => ({ id: 201 - i, author_id: 1, entity_id: 7, entity_type: "Group", event_name: "user_access_locked", details: {}, created_at: "2026-11-20T00:00:00.000Z" }));
    const server = await serve((req, res) => {
      const url = new URL(req.url, "http://x");
      const cursor = url.searchParams.get("cursor");
      if (!cursor) return json(res, 200, events.slice(0, 100), { link: gitlabLink(server.url, req.url, ["created_after", "created_before"], { cursor: "eyJpZCI6IjEwMiJ9" }) });
      return json(res, 200, events.slice(100));
    });
    // What attribution (lib/jobs/enforce/attribution-reads.ts) asks: the run's `now` has milliseconds.
    const [window] = auditWindows(new Date("2026-11-30T09:15:42.137Z"), 30);
    const read: number[] = [];
    let error: unknown;
    try {
      for await (const event of listAuditEvents(client(server.url), { kind: "group", id: 7 }, window)) read.push(event.id);
    } catch (err) {
      error = err;
    }
    expect(String(error ?? "no error"), "the second page's link is GitLab's own").toBe("no error");
    expect(read).toHaveLength(101);
    expect(server.received).toHaveLength(2);
    // The second page with the window as first asked, not the link's whole seconds (up to a second narrower).
    const second = new URL(server.received[1]!.url, server.url).searchParams;
    expect([second.get("created_after"), second.get("created_before")]).toEqual([window!.createdAfter!.toISOString(), window!.createdBefore!.toISOString()]);
  });

  it("the closed notices updated after a time with milliseconds (readEarlierNotices' query), 101 of them, are all read", async () => {
    const issues = Array.from({ length: 101 }, (_, i) => ({ id: 1000 + i, iid: i + 1, project_id: 5, title: "t", description: "", state: "closed", labels: ["warden::notice"], due_date: null, web_url: "x", created_at: "2026-11-01T00:00:00.000Z" }));
    const server = await serve((req, res) => {
      const url = new URL(req.url, "http://x");
      if (!url.searchParams.get("cursor")) return json(res, 200, issues.slice(0, 100), { link: gitlabLink(server.url, req.url, ["updated_after"], { cursor: "eyJpZCI6IjExMDAifQ" }) });
      return json(res, 200, issues.slice(100));
    });
    // closed.ts: new Date(now - grace - 31 days).toISOString(), `now` with milliseconds.
    const updatedAfter = new Date(Date.parse("2026-11-30T09:15:42.137Z") - 38 * 86_400_000).toISOString();
    const read: number[] = [];
    let error: unknown;
    try {
      for await (const issue of listIssues(client(server.url), 5, { labels: ["warden::notice"], state: "closed", updatedAfter, authorId: 3 })) read.push(issue.iid);
    } catch (err) {
      error = err;
    }
    expect(String(error ?? "no error"), "the second page's link is GitLab's own").toBe("no error");
    expect(read).toHaveLength(101);
  });
});
