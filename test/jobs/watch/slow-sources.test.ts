/**
 * The watch (lib/jobs/watch) when GitLab answers one source's audit events slowly, or all of them: a
 * poll reads its sources several at once, and only until its read deadline (the Watch function's is
 * half of what its invocation has left), so the batch found is still enforced and the cursor stored. A
 * source not read in time keeps its place and is read first at the next poll: a poll that outlasted
 * its invocation every time would store nothing, ever.
 */
import { describe, expect, it } from "vitest";
import { pollOnce } from "../../../lib/jobs/watch/index.ts";
import { validReport } from "../../support/report.ts";
import { begin, sim, start } from "../../support/watch-sim.ts";
import { allShares, IDS, share } from "../../support/watch-world.ts";

const acmeEvents = `/api/v4/groups/${IDS.acme}/audit_events`;
/** Each removal as [the group shared, its status]. */
const removed = (report: { actions: ({ status: string } & ({ kind: "group"; sharedGroupId: number } | { kind: "project" }))[] }) =>
  report.actions.map((a) => [a.kind === "group" ? a.sharedGroupId : "project", a.status]);

describe("watch: slow audit-event listings", () => {
  it("a source GitLab answers slowly holds the poll no longer than its read deadline: the others' events are enforced, and it is read first at the next poll", async () => {
    await start();
    const w = await begin("jane");
    await share(sim, "jane", `/groups/${IDS.acme}/share`, IDS.partners);
    await share(sim, "jane", `/groups/${IDS.team}/share`, IDS.partners);
    sim.addFaults({ kind: "delay", ms: 30_000, method: "GET", path: acmeEvents, times: 1 });
    const began = Date.now();
    const first = await pollOnce({ ...w, apply: true, readDeadline: AbortSignal.timeout(500) });
    expect(Date.now() - began).toBeLessThan(5_000);
    expect(removed(validReport(first.report!))).toEqual([[IDS.team, "done"]]);
    expect(first.cursor.sources[`group:${IDS.acme}`]).toEqual(w.cursor.sources[`group:${IDS.acme}`]);
    expect(first.failedSources).toEqual([expect.stringMatching(/^the audit events of acme were not read this poll: its time for reading ran out \(GitLab answering slowly\?\); they keep their place and are read first at the next poll$/)]);
    expect(first.report!.warnings).toContain(first.failedSources[0]);
    expect(first.behindSeconds).toBeGreaterThanOrEqual(0);

    const order: string[] = [];
    sim.beforeAnswer(({ url }) => void (url.pathname.endsWith("/audit_events") && order.push(url.pathname)));
    const second = await pollOnce({ ...w, cursor: first.cursor, apply: true });
    expect(order[0]).toBe(acmeEvents);
    expect(removed(second.report!)).toEqual([[IDS.acme, "done"]]);
    expect(second.failedSources).toEqual([]);
    expect(allShares(sim)).toEqual([]);
  });

  it("sources are read several at once: a poll of two slow listings takes about one's time", async () => {
    await start();
    const w = await begin("jane");
    await share(sim, "jane", `/groups/${IDS.team}/share`, IDS.partners);
    sim.addFaults({ kind: "delay", ms: 1_000, route: "GET /groups/:id/audit_events", times: 2 });
    const began = Date.now();
    const polled = await pollOnce({ ...w, apply: true });
    expect(Date.now() - began).toBeLessThan(1_900);
    expect(polled.report!.actions.map((a) => a.status)).toEqual(["done"]);
  });

  it("a read deadline passed before the poll begins reads nothing, moves nothing, and says so", async () => {
    await start();
    const w = await begin("jane");
    await share(sim, "jane", `/groups/${IDS.team}/share`, IDS.partners);
    const requests = sim.requests.length;
    const polled = await pollOnce({ ...w, apply: true, readDeadline: AbortSignal.abort(new Error("no time left")) });
    expect(sim.requests.length).toBe(requests);
    expect(polled).toMatchObject({ moved: false, read: 0, cursor: w.cursor });
    expect(polled.report).toBeUndefined();
    expect(polled.failedSources).toEqual([expect.stringMatching(/^the audit events of acme and acme\/team were not read this poll/)]);
  });
});
