/**
 * The watch (lib/jobs/watch) reading audit events a forged or corrupted answer (a proxy, a GitLab node
 * with its clock ahead) put there. An id past 2^53 became the cursor's, which parseWatchCursor refuses to
 * read back: the Watch function failed every minute until someone deleted the item. An event dated a day
 * ahead became the cursor's time: every later poll listed only what was newer, seeing nothing for a day,
 * while the cursor age said it was caught up. Now such an event is passed and said, and the cursor's time
 * never goes past the time of the read. An item no event is (an id that is a string, a null, an id out of
 * the listing's order) failed the listing, and so every poll at the same place: the watch stopped for
 * good on one item. Now it is passed and said as well.
 */
import { describe, expect, it } from "vitest";
import { parseWatchCursor, pollOnce } from "../../../lib/jobs/watch/index.ts";
import { begin, sim, start } from "../../support/watch-sim.ts";
import { allShares, IDS, share } from "../../support/watch-world.ts";

const EVENTS = "/api/v4/audit_events";

describe("watch: audit events no GitLab writes", () => {
  it("an event whose id no number holds exactly is passed and said; the cursor stays one the next poll reads back", async () => {
    await start();
    const w = await begin("root");
    sim.addFaults({
      kind: "rewrite", method: "GET", path: EVENTS, times: 1,
      edit: (body) => [{ id: 2 ** 64, author_id: 5, entity_id: 5, entity_type: "User", event_name: "user_logged_in", details: {}, created_at: new Date().toISOString() }, ...(body as unknown[])],
    });
    const first = await pollOnce({ ...w, apply: true });
    expect(first.failedSources).toEqual(["the audit events of the instance: 1 event with an id or a time GitLab never writes (not a positive integer, not a date; a forged or corrupted answer?) passed"]);
    const stored = parseWatchCursor(JSON.parse(JSON.stringify(first.cursor)));
    expect(stored).toBeDefined();
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    const second = await pollOnce({ ...w, cursor: stored!, apply: true });
    expect(second.report!.actions.map((a) => a.status)).toEqual(["done"]);
    expect(allShares(sim)).toEqual([]);
  });

  it("an event dated ahead moves the cursor's time no further than the time of the read: the shares made after it are still seen", async () => {
    await start();
    const w = await begin("root");
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    const ahead = new Date(Date.now() + 86_400_000).toISOString();
    sim.addFaults({ kind: "rewrite", method: "GET", path: EVENTS, times: 1, edit: (body) => (body as { created_at: string }[]).map((e) => ({ ...e, created_at: ahead })) });
    const readAt = Date.now();
    const first = await pollOnce({ ...w, apply: true });
    expect(first.report!.actions.map((a) => a.status)).toEqual(["done"]);
    expect(Date.parse(first.cursor.sources["instance"]!.at!)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(first.cursor.sources["instance"]!.at!)).toBeGreaterThanOrEqual(readAt - 1_000);
    await share(sim, "jane", `/projects/${IDS.api}/share`, IDS.partners);
    const second = await pollOnce({ ...w, cursor: first.cursor, apply: true });
    expect(second.report!.actions.map((a) => [a.kind === "project" && a.projectId, a.status])).toEqual([[IDS.api, "done"]]);
    expect(allShares(sim)).toEqual([]);
  });

  it("items no event is (a string id, a null, an id out of the listing's order) on every answer are passed and said: the watch goes on", async () => {
    await start();
    const w = await begin("root");
    const at = new Date().toISOString();
    const event = (id: unknown) => ({ id, author_id: 5, entity_id: 5, entity_type: "User", event_name: "user_logged_in", details: {}, created_at: at });
    // Newest first: the last item's id is above every one before it, which no listing by id descending sends.
    sim.addFaults({ kind: "rewrite", method: "GET", path: EVENTS, times: 1_000, edit: (body) => [event("1"), null, ...(body as unknown[]), event(Number.MAX_SAFE_INTEGER)] });
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    const first = await pollOnce({ ...w, apply: true });
    expect(first.report!.actions.map((a) => a.status)).toEqual(["done"]);
    expect(first.failedSources).toEqual(["the audit events of the instance: 3 events with an id or a time GitLab never writes (not a positive integer, not a date; a forged or corrupted answer?) passed"]);
    await share(sim, "jane", `/projects/${IDS.api}/share`, IDS.partners);
    const second = await pollOnce({ ...w, cursor: first.cursor, apply: true });
    expect(second.report!.actions.map((a) => [a.kind === "project" && a.projectId, a.status])).toEqual([[IDS.api, "done"]]);
    expect(allShares(sim)).toEqual([]);
  });
});
