/**
 * The cursor once kept a position for every source it ever read (pollOnce started from the whole stored
 * cursor). A subgroup deleted or moved out of the scope leaves the sources at the next refresh (hourly in
 * the Watch function), but its position stayed for good: whoever may create subgroups, or an organisation
 * whose subgroups come and go, grew the one `watch:cursor` item by some 65 bytes a subgroup until
 * DynamoDB's 400 KB item limit refused its write, and every poll failed (the second watch review's
 * finding; test/functions/watch-cursor-size.test.ts has the item). A poll carries on the watched sources'
 * positions, and of the others only the newest MAX_UNWATCHED_POSITIONS within the audit window, so one
 * that comes back within it goes on where it stood.
 */
import { describe, expect, it } from "vitest";
import { MAX_UNWATCHED_POSITIONS, pollOnce, type WatchCursor } from "../../../lib/jobs/watch/index.ts";
import { begin, sim, start } from "../../support/watch-sim.ts";
import { share } from "../../support/watch-world.ts";

const DAY_MS = 86_400_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

describe("the cursor of a watch whose sources change", () => {
  it("carries on the watched sources' positions, the newest of those no longer watched within the audit window, and no other", async () => {
    await start();
    // Jane is no administrator: the watch reads acme's and acme/team's own events.
    const w = await begin("jane");
    expect(Object.keys(w.cursor.sources).sort()).toEqual(["group:10", "group:11"]);
    // The hourly refresh no longer lists acme/team; 300 subgroups came and went over the last days, and one long ago.
    const sources = w.sources.filter((s) => s.key !== "group:11");
    const gone = Array.from({ length: 300 }, (_, i) => [`group:${5_000 + i}`, { id: 1_000 + i, at: ago((i + 1) * 60_000) }] as const);
    const cursor: WatchCursor = { ...w.cursor, sources: { ...w.cursor.sources, ...Object.fromEntries(gone), "group:4999": { id: 999, at: ago(40 * DAY_MS) } } };
    await share(sim, "jane", "/groups/10/share", 20);
    const next = (await pollOnce({ ...w, sources, cursor, apply: true })).cursor;
    // acme's, and the newest of the sources no longer watched (acme/team's among them: it may come back); not the one of 40 days ago.
    const unwatched = Object.entries(cursor.sources).filter(([key]) => key !== "group:10");
    const newest = unwatched.sort((a, b) => Date.parse(b[1].at!) - Date.parse(a[1].at!)).slice(0, MAX_UNWATCHED_POSITIONS).map(([key]) => key);
    expect(newest).toContain("group:5000");
    expect(newest).not.toContain("group:4999");
    expect(Object.keys(next.sources).sort()).toEqual(["group:10", ...newest].sort());
    expect(next.sources["group:10"]!.id).toBeGreaterThan(w.cursor.sources["group:10"]!.id);
  });
});
