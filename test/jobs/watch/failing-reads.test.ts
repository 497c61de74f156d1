/**
 * The watch (lib/jobs/watch) when GitLab fails on one part of a poll, every time: a subject of the batch
 * it cannot read, or one source whose audit events it cannot list. That part is reported and tried
 * again within bounds; the rest of the poll goes on, and the cursor moves. Only a poll on which every
 * source fails fails as a whole.
 */
import { describe, expect, it } from "vitest";
import { exitCode } from "../../../lib/jobs/index.ts";
import { BatchError, MAX_ATTEMPTS, pollOnce, watchOnce, type CursorStore, type StoredCursor, type WatchCursor } from "../../../lib/jobs/watch/index.ts";
import { validReport } from "../../support/report.ts";
import { begin, sim, start } from "../../support/watch-sim.ts";
import { allShares, IDS, share, watchPolicy } from "../../support/watch-world.ts";


/** A store in memory that keeps the port's contract (a write names the revision it read). */
function memoryStore(initial: WatchCursor) {
  let stored: StoredCursor = { cursor: initial, revision: 1 };
  const store: CursorStore & { readonly stored: StoredCursor } = {
    get stored() {
      return stored;
    },
    read: async () => structuredClone(stored),
    async write(cursor, read) {
      if (stored.revision !== read) return false;
      stored = { cursor: structuredClone(cursor), revision: read + 1 };
      return true;
    },
  };
  return store;
}

async function polls(w: Awaited<ReturnType<typeof begin>>, n: number) {
  const results = [];
  let cursor = w.cursor;
  for (let i = 0; i < n; i++) {
    const polled = await pollOnce({ ...w, cursor, apply: true });
    results.push(polled);
    cursor = polled.cursor;
  }
  return results;
}

/**
 * A batch of two subjects: the one `shared` (POST) names, whose read (`read`) answers 500 every time,
 * and acme/team/api; polled MAX_ATTEMPTS + 1 times. The first poll moves the cursor past every event
 * and removes api's share.
 */
async function oneSubjectFailing(read: string, shared: string) {
  await start({ faults: [{ kind: "status", status: 500, method: "GET", path: read, times: 1_000 }] });
  const w = await begin("root");
  await share(sim, "jane", shared, IDS.partners);
  await share(sim, "jane", `/projects/${IDS.api}/share`, IDS.partners);
  const results = await polls(w, MAX_ATTEMPTS + 1);
  const first = results[0]!;
  expect(first.cursor.sources["instance"]!.id).toBe(sim.auditEvents.at(-1)!.id);
  expect(validReport(first.report!).actions).toMatchObject([{ projectId: IDS.api, status: "done" }]);
  return results;
}

describe("watch: one part failing every time", () => {
  it("a subject GitLab cannot read (a 500 every time) fails alone: the rest of its batch is enforced, the cursor moves, and it is tried MAX_ATTEMPTS times in all", async () => {
    const results = await oneSubjectFailing(`/api/v4/projects/${IDS.app}`, `/projects/${IDS.app}/share`);
    const [first] = results;
    expect(first!.report!.unreadTargets).toMatchObject([{ target: `project:${IDS.app}`, lasting: false }]);
    expect(exitCode(first!.report!)).toBe(1);
    expect(first!.report!.warnings.join("\n")).toMatch(/target project 100: reading it failed \(GET \S+ answered 500.*\): not examined/);
    expect(results.map((r) => r.cursor.retries[`project:${IDS.app}`])).toEqual([1, 2, undefined, undefined]);
    expect(results[MAX_ATTEMPTS - 1]!.report!.warnings.join("\n")).toMatch(/not tried again after failures that may pass: project:100 \(3 attempt\(s\)\)/);
    expect(results[MAX_ATTEMPTS]!.report).toBeUndefined();
    expect(allShares(sim)).toEqual([`p${IDS.app}:${IDS.partners}`]);
  });

  it("a subject GitLab refuses to read (a 403: an IP restriction, say) is reported once and not tried again", async () => {
    await start({ faults: [{ kind: "status", status: 403, method: "GET", path: `/api/v4/projects/${IDS.app}`, times: 1_000 }] });
    const w = await begin("root");
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    const [refused, after] = await polls(w, 2);
    expect(refused!.report!.unreadTargets).toMatchObject([{ target: `project:${IDS.app}`, lasting: true }]);
    expect(refused!.report!.warnings.join("\n")).toMatch(/not tried again: project:100 could not be read \(GET \S+ answered 403/);
    expect(refused!.cursor.retries).toEqual({});
    expect(after!.report).toBeUndefined();
  });

  it("a subject a proxy answers 401 for, while the token reads the rest, fails alone: the rest of its batch is enforced and the cursor moves", async () => {
    // It failed the whole batch as a refused token, before the cursor moved: every later poll met it again.
    await start({ faults: [{ kind: "status", status: 401, method: "GET", path: `/api/v4/projects/${IDS.app}`, times: 1_000 }] });
    const w = await begin("root");
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    await share(sim, "jane", `/projects/${IDS.api}/share`, IDS.partners);
    const [first, second] = await polls(w, 2);
    expect(first!.report!.actions).toMatchObject([{ projectId: IDS.api, status: "done" }]);
    expect(first!.report!.unreadTargets).toMatchObject([{ target: `project:${IDS.app}`, lasting: true }]);
    expect(first!.cursor.sources["instance"]!.id).toBe(sim.auditEvents.at(-1)!.id);
    expect(second!.report).toBeUndefined();
    expect(allShares(sim)).toEqual([`p${IDS.app}:${IDS.partners}`]);
  });

  it("a subject group whose detail a proxy answers 401 for fails its batch, not the watch: the cursor moves on, its subjects spend an attempt", async () => {
    await start({ faults: [{ kind: "status", status: 401, method: "GET", path: `/api/v4/groups/${IDS.team}`, times: 1_000 }] });
    const w = await begin("root");
    await share(sim, "jane", `/groups/${IDS.team}/share`, IDS.partners);
    const failed = await pollOnce({ ...w, apply: true }).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(BatchError);
    expect((failed as BatchError).poll.cursor.sources["instance"]!.id).toBe(sim.auditEvents.at(-1)!.id);
    expect((failed as BatchError).poll.cursor.retries).toEqual({ [`group:${IDS.team}`]: 1 });
  });

  // A subgroup deleted while the watch runs (its events 404), or one whose listing GitLab fails on every time.
  for (const status of [500, 404]) {
    it(`one source whose audit events answer ${status} every time is reported and keeps its place; the other sources' events are enforced`, async () => {
      await start();
      const w = await begin("jane");
      const team = `/api/v4/groups/${IDS.team}/audit_events`;
      sim.addFaults({ kind: "status", status, method: "GET", path: team, times: 1_000 });
      await share(sim, "jane", `/groups/${IDS.acme}/share`, IDS.partners);
      const [first, second] = await polls(w, 2);
      expect(validReport(first!.report!).actions.map((a) => [a.kind, a.groupId, a.status])).toEqual([["group", IDS.partners, "done"]]);
      expect(first!.cursor.sources[`group:${IDS.team}`]).toEqual(w.cursor.sources[`group:${IDS.team}`]);
      expect(first!.cursor.sources[`group:${IDS.acme}`]!.id).toBe(sim.auditEvents.at(-1)!.id);
      const said = new RegExp(`the audit events of acme/team could not be read \\(GET ${team}\\S* answered ${status}.*\\): its events are read at the next poll`);
      expect(first!.report!.warnings.join("\n")).toMatch(said);
      // Nothing new elsewhere: no batch, and the source is still said to fail.
      expect(second!.report).toBeUndefined();
      expect(second!.failedSources.join("\n")).toMatch(said);
      expect(allShares(sim)).toEqual([]);
    });
  }

  it("when every source fails, the poll fails as a whole and moves nothing", async () => {
    await start();
    const w = await begin("jane");
    sim.addFaults({ kind: "status", status: 500, route: "GET /groups/:id/audit_events", times: 1_000 });
    await expect(pollOnce({ ...w, apply: true })).rejects.toThrow(/audit_events\S* answered 500/);
  });

  it("a subject group whose detail answers 500 every time is not examined alone: the rest of its batch is enforced, the cursor moves, and it is tried MAX_ATTEMPTS times in all", async () => {
    const results = await oneSubjectFailing(`/api/v4/groups/${IDS.team}`, `/groups/${IDS.team}/share`);
    const [first] = results;
    expect(first!.report!.unexamined).toMatchObject([{ kind: "group", id: IDS.team, lasting: false }]);
    expect(exitCode(first!.report!)).toBe(1);
    expect(first!.report!.warnings.join("\n")).toMatch(new RegExp(`group ${IDS.team}( \\(\\S+\\))? could not be examined: GET \\S+ answered 500`));
    // Only the group is tried again: the project's removal is done.
    expect(results.map((r) => r.cursor.retries)).toEqual([{ [`group:${IDS.team}`]: 1 }, { [`group:${IDS.team}`]: 2 }, {}, {}]);
    expect(results[MAX_ATTEMPTS - 1]!.report!.warnings.join("\n")).toMatch(new RegExp(`not tried again after failures that may pass: group:${IDS.team} \\(3 attempt\\(s\\)\\)`));
    expect(results[MAX_ATTEMPTS]!.report).toBeUndefined();
  });

  it("a batch cut off after a part of it failed (a group not examined, then the deadline): every subject of it is tried again, not only the part named", async () => {
    // acme/team's detail is refused (a 403, not retried); acme's is slow, and the run's signal ends the
    // run while it is read, a moment after the refusal.
    await start({ faults: [{ kind: "status", status: 403, method: "GET", path: `/api/v4/groups/${IDS.team}`, times: 1_000 }, { kind: "delay", ms: 10_000, method: "GET", path: `/api/v4/groups/${IDS.acme}`, times: 1 }] });
    const w = await begin("root");
    await share(sim, "jane", `/groups/${IDS.team}/share`, IDS.partners);
    await share(sim, "jane", `/groups/${IDS.acme}/share`, IDS.partners);
    const deadline = new AbortController();
    sim.beforeAnswer(({ url }) => {
      if (url.pathname === `/api/v4/groups/${IDS.team}`) setTimeout(() => deadline.abort(new Error("the invocation's deadline")), 300);
    });
    const polled = await pollOnce({ ...w, apply: true, signal: deadline.signal });
    expect(polled.report!.summary).toMatchObject({ complete: false, unexamined: 1, removed: 0 });
    expect(polled.report!.unexamined).toMatchObject([{ kind: "group", id: IDS.team, lasting: true }]);
    // acme was never judged: it waits for the next poll (acme/team's refusal is reported, not tried again).
    expect(polled.cursor.retries).toEqual({ [`group:${IDS.acme}`]: 1 });
  });

  it("a batch whose run fails as a whole (its token check, GET /user, answers 500 every time) moves the cursor on: its subjects are tried MAX_ATTEMPTS times, then passed, and later events are enforced", async () => {
    await start();
    const w = await begin("root");
    const detail = "/api/v4/user";
    sim.addFaults({ kind: "status", status: 500, method: "GET", path: detail, times: 1_000 });
    await share(sim, "jane", `/groups/${IDS.team}/share`, IDS.partners);
    const store = memoryStore(w.cursor);
    const failures: string[] = [];
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      await watchOnce({ ...w, store, apply: true }).then(
        () => failures.push("none"),
        (err: Error) => failures.push(err.message),
      );
    }
    expect(failures[0]).toMatch(new RegExp(`GET ${detail}\\S* answered 500.*tried again at the next poll .*group:${IDS.team} \\(attempt 2 of ${MAX_ATTEMPTS}\\)`));
    expect(failures[MAX_ATTEMPTS - 1]).toMatch(new RegExp(`not tried again after failures that may pass: group:${IDS.team} \\(${MAX_ATTEMPTS} attempt\\(s\\)\\)`));
    expect(store.stored!.cursor.sources["instance"]!.id).toBe(sim.auditEvents.at(-1)!.id);
    expect(store.stored!.cursor.retries).toEqual({});
    // The watch goes on: the next stray is removed at the next poll.
    sim.clearFaults();
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    const next = await watchOnce({ ...w, store, apply: true });
    expect(next.started === false && next.report!.actions).toMatchObject([{ projectId: IDS.app, status: "done" }]);
  });

  it("a policy whose scope group GitLab no longer finds fails the poll and keeps the cursor: a setting to fix, after which the events waiting are enforced", async () => {
    await start();
    const w = await begin("root");
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    const store = memoryStore(w.cursor);
    // Longer than a subject's attempts last: the events must still be there once the scope is found again.
    sim.addFaults({ kind: "status", status: 404, method: "GET", path: "/api/v4/namespaces/acme", times: MAX_ATTEMPTS + 1 });
    for (let i = 0; i <= MAX_ATTEMPTS; i++) await expect(watchOnce({ ...w, store, apply: true })).rejects.toThrow(/^gitlab.scope.groups: group "acme" was not found/);
    expect(store.stored.cursor).toEqual(w.cursor);
    const fixed = await watchOnce({ ...w, store, apply: true });
    expect(fixed.started === false && fixed.report!.events.map((e) => e.subject)).toEqual([`project:${IDS.app}`]);
    expect(fixed.started === false && fixed.report!.actions).toMatchObject([{ projectId: IDS.app, status: "done" }]);
  });
});
