/** lib/gitlab's audit event listings against the simulator: keyset newest first, windows, and a watch's cursor. */
import { afterEach, expect, it } from "vitest";
import { auditWindows, GitLabClient, listAuditEvents, newerThan } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { startGitLabSim, type GitLabSim, type SimAuditEvent } from "../../sim/gitlab/index.ts";

let sim: GitLabSim;
afterEach(() => sim?.close());

const NOW = Date.parse("2026-11-27T00:00:00Z");
const DAY = 86_400_000;

async function start(): Promise<GitLabClient> {
  // 250 events on group 10, one an hour back from NOW, then one on group 20.
  const events: SimAuditEvent[] = Array.from({ length: 250 }, (_, i) => ({
    id: i + 1, author_id: 1, entity_id: 10, entity_type: "Group", event_name: "group_share_with_group_link_created", details: {}, created_at: new Date(NOW - (250 - i) * 3_600_000).toISOString(),
  }));
  events.push({ ...events[0]!, id: 251, entity_id: 20 });
  const group = (id: number, path: string) => ({ id, name: path, path, full_path: path, parent_id: null, visibility: "private" as const, shared_with_groups: [] });
  sim = await startGitLabSim({ dataset: { groups: [group(10, "acme"), group(20, "other")], users: [], projects: [], auditEvents: events }, recordRequests: true });
  return new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
}

it("lists a group's events newest first by keyset, following GitLab's links, and the instance's narrowed to one entity", async () => {
  const gitlab = await start();
  const ids = (await listAuditEvents(gitlab, { kind: "group", id: 10 }).collect()).map((e) => e.id);
  expect(ids).toEqual(Array.from({ length: 250 }, (_, i) => 250 - i));
  expect(sim.requests.every((r) => /pagination=keyset/.test(r.url) && /order_by=id/.test(r.url) && /sort=desc/.test(r.url))).toBe(true);
  expect(sim.requests).toHaveLength(3);
  const instance = await listAuditEvents(gitlab, { kind: "instance", entityType: "Group", entityId: 20 }).collect();
  expect(instance.map((e) => e.id)).toEqual([251]);
});

it("newerThan stops reading at the cursor: a watch's poll costs one page when little is new", async () => {
  const gitlab = await start();
  const fresh = await Array.fromAsync(newerThan(listAuditEvents(gitlab, { kind: "group", id: 10 }), 245));
  expect(fresh.map((e) => e.id)).toEqual([250, 249, 248, 247, 246]);
  expect(sim.requests).toHaveLength(1);
});

it("windows cover the days asked, newest first, none longer than 30 days, and read only their events", async () => {
  expect(auditWindows(new Date(NOW), 75).map((w) => [(NOW - w.createdBefore!.getTime()) / DAY, (NOW - w.createdAfter!.getTime()) / DAY])).toEqual([[0, 30], [30, 60], [60, 75]]);
  expect(auditWindows(new Date(NOW), 0)).toEqual([]);
  const gitlab = await start();
  const [window] = auditWindows(new Date(NOW - 5 * DAY), 1);
  const events = await listAuditEvents(gitlab, { kind: "group", id: 10 }, window).collect();
  expect(events.length).toBe(25);
  expect(events.every((e) => Date.parse(e.created_at) >= NOW - 6 * DAY && Date.parse(e.created_at) <= NOW - 5 * DAY)).toBe(true);
});
