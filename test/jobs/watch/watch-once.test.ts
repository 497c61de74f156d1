/**
 * watchOnce, the one poll both front ends run (lib/jobs/watch), over an in-memory cursor store: the
 * port's contract as the CLI's state file and the function's claims-table item each keep it. A first
 * start stores the newest events and polls nothing; a poll writes only a cursor that moved, naming the
 * revision it read; a write refused (another poller came first) is said, not retried; a source the
 * stored cursor lacks is stored at once, so its events are not skipped while none arrives.
 */
import { afterEach, describe, expect, it } from "vitest";
import { watchOnce, watchSources, type CursorStore, type StoredCursor, type WatchCursor } from "../../../lib/jobs/watch/index.ts";
import { startGitLabSim, type GitLabSim } from "../../../sim/gitlab/index.ts";
import { allShares, client, IDS, share, WATCH_TOKENS, watchPolicy, watchWorld } from "../../support/watch-world.ts";

let sim: GitLabSim | undefined;
afterEach(async () => sim?.close());

/** A store in memory, keeping the port's contract: a write names the revision read, and only the current one is taken. */
function memoryStore(initial?: WatchCursor) {
  let stored: StoredCursor | undefined = initial && { cursor: initial, revision: 1 };
  const writes: number[] = [];
  const store: CursorStore & { readonly stored: StoredCursor | undefined; writes: number[]; beforeWrite?: () => void } = {
    get stored() {
      return stored;
    },
    writes,
    async read() {
      return stored && structuredClone(stored);
    },
    async write(cursor, read) {
      store.beforeWrite?.();
      writes.push(read);
      if ((stored?.revision ?? 0) !== read) return false;
      stored = { cursor: structuredClone(cursor), revision: read + 1 };
      return true;
    },
  };
  return store;
}

async function watcher(token: string) {
  sim = await startGitLabSim({ dataset: watchWorld(), tokens: WATCH_TOKENS, recordRequests: true });
  const gitlab = client(sim, token);
  const policy = watchPolicy();
  const { sources } = await watchSources(gitlab, policy, 60_000);
  return { gitlab, policy, sources, apply: true };
}

describe("watchOnce over a cursor store", () => {
  it("a first start stores the newest event and polls nothing; the next poll removes what was shared since and writes on the revision it read; nothing new writes nothing", async () => {
    const w = await watcher("root");
    await share(sim!, "jane", `/projects/${IDS.api}/share`, IDS.partners); // before the start: the sweep's
    const store = memoryStore();
    const first = await watchOnce({ ...w, store });
    const newest = sim!.auditEvents.at(-1)!;
    expect(first).toEqual({ started: true, cursor: { version: 2, sources: { instance: { id: newest.id, at: newest.created_at } }, retries: {} } });
    expect(store.stored).toEqual({ cursor: first.cursor, revision: 1 });
    expect(allShares(sim!)).toEqual([`p${IDS.api}:${IDS.partners}`]);

    await share(sim!, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    const second = await watchOnce({ ...w, store });
    if (second.started) throw new Error("a second poll is no start");
    expect(second.report!.actions).toMatchObject([{ projectId: IDS.app, status: "done" }]);
    expect(second).toMatchObject({ moved: true, lost: false });
    expect(store.writes).toEqual([0, 1]);
    expect(store.stored).toEqual({ cursor: second.cursor, revision: 2 });

    const third = await watchOnce({ ...w, store });
    expect(third).toMatchObject({ started: false, moved: false, lost: false });
    expect(store.writes).toEqual([0, 1]);
  });

  it("another poller writes first: this poll's cursor is refused and said lost, the other's kept", async () => {
    const w = await watcher("root");
    const store = memoryStore();
    await watchOnce({ ...w, store });
    await share(sim!, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    const theirs: WatchCursor = { version: 2, sources: { instance: { id: 999_999, at: new Date().toISOString() } }, retries: {} };
    store.beforeWrite = () => {
      store.beforeWrite = undefined;
      void store.write(theirs, 1);
    };
    const polled = await watchOnce({ ...w, store });
    expect(polled).toMatchObject({ started: false, moved: true, lost: true });
    expect(store.stored).toEqual({ cursor: theirs, revision: 2 });
  });

  it("a source the stored cursor lacks (a subgroup new since) is read from an hour back and stored where that read ends, so its next event is enforced, not skipped", async () => {
    const w = await watcher("jane");
    expect(w.sources.map((s) => s.key)).toEqual([`group:${IDS.acme}`, `group:${IDS.team}`]);
    const at = new Date().toISOString();
    const store = memoryStore({ version: 2, sources: { [`group:${IDS.acme}`]: { id: sim!.auditEvents.at(-1)?.id ?? 0, at } }, retries: {} });
    const quiet = await watchOnce({ ...w, store });
    expect(quiet).toMatchObject({ started: false, moved: true, lost: false });
    expect(Object.keys(store.stored!.cursor.sources)).toEqual([`group:${IDS.acme}`, `group:${IDS.team}`]);

    await share(sim!, "jane", `/groups/${IDS.team}/share`, IDS.partners);
    const polled = await watchOnce({ ...w, store });
    if (polled.started) throw new Error("no start: a cursor is stored");
    expect(polled.report?.actions).toMatchObject([{ kind: "group", sharedGroupId: IDS.team, groupId: IDS.partners, status: "done" }]);
    expect(allShares(sim!)).toEqual([]);
  });

  it("a source new since whose newest event GitLab fails to give (a 500 every time) is left out and said; the stored sources are polled and their events enforced", async () => {
    const w = await watcher("jane");
    const at = new Date().toISOString();
    const store = memoryStore({ version: 2, sources: { [`group:${IDS.acme}`]: { id: sim!.auditEvents.at(-1)?.id ?? 0, at } }, retries: {} });
    sim!.addFaults({ kind: "status", status: 500, method: "GET", path: `/api/v4/groups/${IDS.team}/audit_events`, times: 1_000 });
    await share(sim!, "jane", `/groups/${IDS.acme}/share`, IDS.partners);
    const polled = await watchOnce({ ...w, store });
    if (polled.started) throw new Error("no start: a cursor is stored");
    expect(polled.report?.actions).toMatchObject([{ kind: "group", sharedGroupId: IDS.acme, groupId: IDS.partners, status: "done" }]);
    expect(polled.report?.warnings.join("\n")).toMatch(/the audit events of acme\/team could not be read \(GET \S+ answered 500.*\): its events are read at the next poll/);
    // Not stored at all: it starts at its newest event once GitLab gives it, rather than from nothing (30 days back).
    expect(Object.keys(store.stored!.cursor.sources)).toEqual([`group:${IDS.acme}`]);
  });

  it("a first start with one source GitLab fails on stores the others and is said started; the failing one is started at a later poll", async () => {
    const w = await watcher("jane");
    sim!.addFaults({ kind: "status", status: 500, method: "GET", path: `/api/v4/groups/${IDS.team}/audit_events`, times: 1_000 });
    const store = memoryStore();
    expect(await watchOnce({ ...w, store })).toMatchObject({ started: true });
    expect(Object.keys(store.stored!.cursor.sources)).toEqual([`group:${IDS.acme}`]);
    const polled = await watchOnce({ ...w, store });
    if (polled.started) throw new Error("no start: a cursor is stored");
    expect(polled.failedSources.join("\n")).toMatch(/the audit events of acme\/team could not be read \(GET \S+ answered 500/);
  });
});
