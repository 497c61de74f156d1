/**
 * A watch batch whose guard trips named every event id of the batch in one warning (the limits11 review). A
 * batch holds up to 1,000 events a source (EVENTS_PER_POLL), and a watch without an administrator's token
 * reads up to gitlab.watch.maxRequestsPerHour / polls sources (60 at the defaults): tens of thousands of
 * ids in one string, which went into the Watch function's "job finished" log line (logReport: warnings whole),
 * the CLI's report, and the Slack summary. It names ten and counts the rest, as Warden's other warnings do.
 */
import { describe, expect, it } from "vitest";
import { EVENTS_PER_POLL, pollOnce, type WatchCursor } from "../../../lib/jobs/watch/index.ts";
import type { SimAuditEvent } from "../../../sim/gitlab/index.ts";
import { begin, sim, start } from "../../support/watch-sim.ts";
import { IDS, watchPolicy, watchWorld } from "../../support/watch-world.ts";

const shareEvent = (id: number, at: number, project: number, path: string): SimAuditEvent => ({
  id, author_id: 5, entity_id: IDS.partners, entity_type: "Group", event_name: "project_group_link_created",
  details: { add: "project_access", target_id: project, target_type: "Project", target_details: path }, created_at: new Date(at).toISOString(),
});

describe("a tripped watch batch's warning", () => {
  it("names a bounded number of the batch's events, however many the batch holds", async () => {
    const T = Date.now() - 10 * 60_000;
    const world = watchWorld();
    // A busy minute of share events about two projects (a script re-granting, an outage's backlog): EVENTS_PER_POLL of them.
    world.auditEvents = Array.from({ length: EVENTS_PER_POLL }, (_, i) => shareEvent(1_000 + i, T + i * 100, i % 2 ? IDS.app : IDS.api, i % 2 ? "acme/app" : "acme/api"));
    await start({ dataset: world });
    const w = await begin("root", watchPolicy({ maxRemovals: 1 }));
    for (const id of [IDS.app, IDS.api]) sim.dataset.projects.find((p) => p.id === id)!.shared_with_groups.push({ group_id: IDS.partners, group_name: "partners", group_full_path: "partners", group_access_level: 30, expires_at: null });
    const cursor: WatchCursor = { version: 2, sources: { instance: { id: 999, at: new Date(T - 1).toISOString() } }, retries: {} };
    const polled = await pollOnce({ ...w, cursor, apply: true });
    expect(polled.report!.summary.guard).toBe("tripped");
    expect(polled.report!.events.length).toBe(EVENTS_PER_POLL);
    const warning = polled.report!.warnings.find((x) => x.startsWith("guard tripped: the subjects of events"))!;
    expect(warning).toBeDefined();
    // Ten ids named and the rest counted, as refusedBeforeWarning and the watch's other warnings do: some hundreds of characters.
    expect(warning.length, `the warning is ${warning.length} characters: ${warning.slice(0, 200)}…`).toBeLessThan(1_000);
    expect(warning).toContain(`, and ${EVENTS_PER_POLL - 10} more were left as they are`);
  }, 60_000);
});
