/**
 * The watch on a busy instance: every kind of audit event counts against a poll's bound (a sign-in, a
 * setting changed: anyone with an account makes them), so the bound must be far above what an
 * instance records in a poll's interval, or the cursor falls behind for good and a share made now
 * waits ever longer.
 */
import { describe, expect, it } from "vitest";
import { pollOnce, type WatchCursor } from "../../../lib/jobs/watch/index.ts";
import type { SimAuditEvent } from "../../../sim/gitlab/index.ts";
import { begin, sim, start } from "../../support/watch-sim.ts";
import { allShares, IDS, watchWorld } from "../../support/watch-world.ts";

const stray = (project: number, group: number) => `p${project}:${group}`;
/** An event that names no subject. */
const noise = (id: number, at: number): SimAuditEvent => ({ id, author_id: 6, entity_id: 6, entity_type: "User", event_name: "user_logged_in", details: {}, created_at: new Date(at).toISOString() });

describe("the watch under a steady stream of audit events", () => {
  it("150 audit events a minute that name no subject: the watch keeps up (a share made at minute 15 is removed within 2 polls, the cursor stays within 2 minutes of GitLab)", async () => {
    const RATE = 150;
    const T0 = Date.now() - 6 * 3_600_000;
    let nextId = 0;
    const minute = (m: number) => Array.from({ length: RATE }, (_, k) => noise(++nextId, T0 + m * 60_000 + Math.floor((k * 60_000) / RATE)));
    const world = watchWorld();
    world.auditEvents = minute(0);
    await start({ dataset: world });
    const w = await begin("root");
    let cursor: WatchCursor = { version: 2, sources: { instance: { id: nextId, at: sim.auditEvents.at(-1)!.created_at } }, retries: {} };
    const SHARE_MINUTE = 15;
    let shareEvent: number | undefined;
    let removedAtPoll: number | undefined;
    const lagAt: number[] = [];
    for (let m = 1; m <= 30; m++) {
      // What GitLab recorded during minute m, then the poll at its end.
      sim.auditEvents.push(...minute(m));
      if (m === SHARE_MINUTE) {
        // Jane shares acme/app with partners (a stray): its event among the minute's others.
        sim.dataset.projects.find((p) => p.id === IDS.app)!.shared_with_groups.push({ group_id: IDS.partners, group_name: "partners", group_full_path: "partners", group_access_level: 30, expires_at: null });
        shareEvent = ++nextId;
        sim.auditEvents.push({ id: shareEvent, author_id: 5, entity_id: IDS.partners, entity_type: "Group", event_name: "project_group_link_created", details: { add: "project_access", target_id: IDS.app, target_type: "Project", target_details: "acme/app" }, created_at: new Date(T0 + m * 60_000 + 59_999).toISOString() });
      }
      const polled = await pollOnce({ ...w, cursor, apply: true });
      cursor = polled.cursor;
      if (removedAtPoll === undefined && !allShares(sim).includes(stray(IDS.app, IDS.partners)) && m >= SHARE_MINUTE) removedAtPoll = m;
      // How far behind GitLab's newest event the cursor is, in GitLab's minutes.
      lagAt.push((Date.parse(sim.auditEvents.at(-1)!.created_at) - Date.parse(cursor.sources["instance"]!.at!)) / 60_000);
    }
    expect(shareEvent).toBeDefined();
    const lag = lagAt.map((l) => l.toFixed(1)).join(", ");
    // With a bound of 100 events a poll the lag grew by half a minute a minute (100 of 150 read), and the share waited ever longer.
    expect({ removedAtPoll: removedAtPoll ?? "not within 30 polls", finalLagMinutes: Number(lagAt.at(-1)!.toFixed(1)) }, `the cursor's lag in minutes after each poll: ${lag}`).toEqual({
      removedAtPoll: expect.toSatisfy((p: unknown) => typeof p === "number" && p <= SHARE_MINUTE + 2),
      finalLagMinutes: expect.toSatisfy((l: unknown) => typeof l === "number" && l <= 2),
    });
  });

  // GitLab lists a burst within one millisecond (a bulk action) newest first only: each poll read all of
  // it above the cursor to find its oldest, 50 requests a poll at 5,000 and its time growing with the
  // burst's size until a poll outlasts its invocation, at every poll.
  it("5,000 events recorded in the same millisecond: each poll stays within a bounded number of requests, the older of them passed and said", async () => {
    const at = new Date(Date.now() - 3_600_000).toISOString();
    const world = watchWorld();
    world.auditEvents = Array.from({ length: 5_000 }, (_, i) => noise(i + 1, Date.parse(at)));
    await start({ dataset: world });
    const w = await begin("root");
    let cursor: WatchCursor = { version: 2, sources: { instance: { id: 0, at } }, retries: {} };
    const perPoll: number[] = [];
    const said: string[] = [];
    for (let poll = 0; poll < 4; poll++) {
      sim.resetCounters();
      const polled = await pollOnce({ ...w, cursor });
      perPoll.push(sim.counters.requests);
      said.push(...polled.failedSources);
      cursor = polled.cursor;
    }
    // A probe's pages (EVENTS_PER_POLL) and the burst's (BURST_EVENTS): about 32, whatever the burst's size.
    expect(Math.max(...perPoll), `requests a poll: ${perPoll.join(", ")}`).toBeLessThanOrEqual(35);
    expect(cursor.sources["instance"]!.id).toBe(5_000);
    expect(said[0]).toMatch(/^the audit events of the instance: more than 2000 recorded within a millisecond or two \(a bulk action\), more than a poll reads: the older of them were passed unread, left to the scheduled sweep$/);
  });
});

