/**
 * A window that overflows is narrowed by the rate of the page read (read.ts): a page all in one millisecond
 * (a bulk action) sizes the next window at 1 ms. Found empty, the next try must not be the whole rest again,
 * the burst included (it overflows again: a millisecond gained per two probes, some 150 requests a poll, and
 * a quiet source's cursor stands hours or days before the burst), but what comes before the burst.
 */
import { describe, expect, it } from "vitest";
import { pollOnce, type WatchCursor } from "../../../lib/jobs/watch/index.ts";
import type { SimAuditEvent } from "../../../sim/gitlab/index.ts";
import { begin, sim, start } from "../../support/watch-sim.ts";
import { allShares, IDS, watchWorld } from "../../support/watch-world.ts";

const noise = (id: number, at: number): SimAuditEvent => ({ id, author_id: 6, entity_id: 6, entity_type: "User", event_name: "user_logged_in", details: {}, created_at: new Date(at).toISOString() });

describe("the watch after a quiet spell", () => {
  it("a burst of 1,500 events in one millisecond a minute after the cursor's time: passed within a few polls, each bounded, and a stray share made after it removed", async () => {
    const T = Date.now() - 10 * 60_000;
    const world = watchWorld();
    world.auditEvents = [noise(1, T - 60_000), ...Array.from({ length: 1_500 }, (_, i) => noise(i + 2, T))];
    await start({ dataset: world });
    const w = await begin("root");
    sim.dataset.projects.find((p) => p.id === IDS.app)!.shared_with_groups.push({ group_id: IDS.partners, group_name: "partners", group_full_path: "partners", group_access_level: 30, expires_at: null });
    sim.auditEvents.push({ id: 1_502, author_id: 5, entity_id: IDS.partners, entity_type: "Group", event_name: "project_group_link_created", details: { add: "project_access", target_id: IDS.app, target_type: "Project", target_details: "acme/app" }, created_at: new Date(T + 5_000).toISOString() });
    let cursor: WatchCursor = { version: 2, sources: { instance: { id: 1, at: new Date(T - 60_000).toISOString() } }, retries: {} };
    const perPoll: number[] = [];
    const ats: string[] = [];
    for (let poll = 0; poll < 10 && allShares(sim).length > 0; poll++) {
      sim.resetCounters();
      cursor = (await pollOnce({ ...w, cursor, apply: true })).cursor;
      perPoll.push(sim.counters.requests);
      ats.push(cursor.sources["instance"]!.at!);
    }
    expect(allShares(sim), `the cursor's time after each poll: ${ats.join(", ")}; requests a poll: ${perPoll.join(", ")}`).toEqual([]);
    expect(Math.max(...perPoll), `requests a poll: ${perPoll.join(", ")}`).toBeLessThanOrEqual(40);
  }, 120_000);

  it("a cursor older than a query's 30 days on a source with nothing since: one poll catches up in a few requests, the empty window not asked again", async () => {
    const T = Date.now() - 40 * 86_400_000;
    const world = watchWorld();
    world.auditEvents = [noise(1, T)];
    await start({ dataset: world });
    const w = await begin("root");
    sim.resetCounters();
    const polled = await pollOnce({ ...w, cursor: { version: 2, sources: { instance: { id: 1, at: new Date(T).toISOString() } }, retries: {} }, apply: true });
    expect(sim.counters.requests).toBeLessThanOrEqual(3);
    expect(Date.parse(polled.cursor.sources["instance"]!.at!)).toBeGreaterThan(Date.now() - 30 * 86_400_000);
  });
});
