/**
 * lib/paging's Listing de-duplicates a keyset listing's items against the page before only (a page
 * served again whole is caught by its fingerprint), so an issue listed again two pages later reached the
 * notices twice: GitLab's issues before 18.3 (offset pages under `pagination=keyset`) shifting by more
 * than a page, or a flaky cache serving a stale page. readNotices took the standing notice, seen again,
 * for a duplicate of itself (`earlier.iid < notice.iid` is false for the same iid), and plan.ts closed
 * it, "a duplicate of #N" on #N itself: the share's only notice closed, its removal date with it. And a
 * person's close read twice (closed.ts) counted as the close of a follow-up notice, so none was opened.
 * noticesBy now gives each issue once.
 */
import { describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { readEarlierNotices } from "../../../lib/jobs/notices/closed.ts";
import { readNotices } from "../../../lib/jobs/notices/read.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { notifyPolicy } from "../../support/policies.ts";
import { json, serve } from "../../support/server.ts";

const ME = 7;
const issue = (iid: number, group: number) => ({
  id: 1000 + iid,
  iid,
  project_id: 5,
  title: `notice ${iid}`,
  description: `<!-- warden-share: project:12:group:${group} -->\n`,
  state: "opened",
  labels: ["warden::notice", `warden-share::project:12:group:${group}`],
  due_date: "2027-01-01",
  web_url: `http://x/acme/notices/-/issues/${iid}`,
  author: { id: ME },
});

/** A client of a server that lists these pages of issues, one after the other by keyset cursor. */
async function listing(pages: unknown[][]): Promise<GitLabClient> {
  const s = await serve((req, res) => {
    const url = new URL(req.url, "http://x");
    const page = Number(url.searchParams.get("cursor") ?? "0");
    const next = page + 1 < pages.length ? String(page + 1) : undefined;
    const link: Record<string, string> = next ? { link: `<${s.url}${url.pathname}?${new URLSearchParams({ ...Object.fromEntries(url.searchParams), cursor: next })}>; rel="next"` } : {};
    json(res, 200, pages[page] ?? [], link);
  });
  return new GitLabClient({ url: s.url, token: "glpat-notice-listed-again-000123", limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
}

describe("a notice listed again two pages later counts once", () => {
  it("a notice listed again two pages later is not closed as a duplicate of itself", async () => {
    const gitlab = await listing([[issue(1, 34)], [issue(2, 35)], [issue(1, 34), issue(3, 36)]]);
    const listed = await readNotices(gitlab, "acme/notices", new Set(["project:12:group:34"]), 10, undefined, ME);
    expect(listed.byKey.get("project:12:group:34")?.iid).toBe(1);
    // Nothing to close: #1 stands; no notice is a duplicate of itself.
    expect(listed.duplicates.filter(({ notice, of }) => notice.iid === of)).toEqual([]);
  });

  it("a duplicate listed again is closed once", async () => {
    const gitlab = await listing([[issue(1, 34)], [issue(3, 34)], [issue(2, 35)], [issue(3, 34), issue(4, 36)]]);
    const listed = await readNotices(gitlab, "acme/notices", new Set(["project:12:group:34"]), 10, undefined, ME);
    expect(listed.duplicates.map(({ notice, of }) => [notice.iid, of])).toEqual([[3, 1]]);
    expect(listed.duplicatesLeft).toBe(0);
  });

  it("a notice a person closed, listed again, is one close: the run still opens the one follow-up notice", async () => {
    // jane closed #1, her share's only notice; no notice of Warden's followed it.
    const closed = (iid: number, group: number) => ({ ...issue(iid, group), state: "closed", created_at: "2026-11-30T10:00:00Z", closed_at: "2026-11-30T12:00:00Z", closed_by: { id: 99 } });
    const gitlab = await listing([[closed(1, 34)], [closed(2, 35)], [closed(1, 34), closed(3, 36)]]);
    const policy = parsePolicy(notifyPolicy(), "test.yaml");
    const wanted = new Map([["project:12:group:34", { grace: { text: "7d", hours: 168 } }]]);
    const earlier = await readEarlierNotices(gitlab, "acme/notices", wanted, policy, new Date("2026-12-01T00:00:00Z"), ME);
    expect(earlier.get("project:12:group:34")).toMatchObject({ iid: 1, followedUp: false });
  });
});
