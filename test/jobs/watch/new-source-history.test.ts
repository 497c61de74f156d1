/**
 * A source the watch did not read before (a subgroup made since the sources were last listed: the Watch
 * function lists them hourly) was started at its newest event, as a first start is, and so never read the
 * events that came before it was first listed: all of them, for a subgroup made minutes ago. Whoever may
 * create subgroups (Maintainers, by default) made one and shared it with an outside group at once: the
 * share event was the subgroup's newest, and the watch took it as where to start, not as one to enforce;
 * the share stayed until the daily sweep. A source new to a watch already running is read from an hour
 * before it was first seen (the hourly listing's gap), not from its newest event.
 */
import { afterEach, describe, expect, it } from "vitest";
import { watchOnce, watchSources, type CursorStore, type StoredCursor, type WatchCursor } from "../../../lib/jobs/watch/index.ts";
import { startGitLabSim, type GitLabSim } from "../../../sim/gitlab/index.ts";
import { allShares, client, IDS, share, WATCH_TOKENS, watchPolicy, watchWorld } from "../../support/watch-world.ts";

let sim: GitLabSim | undefined;
afterEach(async () => sim?.close());

/** A store in memory, keeping the port's contract (watch-once.test.ts's). */
function memoryStore(initial: WatchCursor): CursorStore & { readonly stored: StoredCursor | undefined } {
  let stored: StoredCursor | undefined = { cursor: initial, revision: 1 };
  return {
    get stored() {
      return stored;
    },
    async read() {
      return stored && structuredClone(stored);
    },
    async write(cursor, read) {
      if ((stored?.revision ?? 0) !== read) return false;
      stored = { cursor: structuredClone(cursor), revision: read + 1 };
      return true;
    },
  };
}

describe("a source new to a running watch", () => {
  it("has the events it recorded before it was first read enforced: a subgroup shared as soon as it was made", async () => {
    sim = await startGitLabSim({ dataset: watchWorld(), tokens: WATCH_TOKENS });
    const gitlab = client(sim, "jane");
    const policy = watchPolicy();
    const { sources } = await watchSources(gitlab, policy, 60_000);
    expect(sources.map((s) => s.key)).toEqual([`group:${IDS.acme}`, `group:${IDS.team}`]);
    // The stored cursor knows acme alone: acme/team is new since the sources were last listed, and shared at once.
    const store = memoryStore({ version: 2, sources: { [`group:${IDS.acme}`]: { id: sim.auditEvents.at(-1)?.id ?? 0, at: new Date().toISOString() } }, retries: {} });
    await share(sim, "jane", `/groups/${IDS.team}/share`, IDS.partners);
    expect(allShares(sim)).toEqual([`g${IDS.team}:${IDS.partners}`]);
    for (let poll = 0; poll < 2; poll++) await watchOnce({ gitlab, policy, sources, store, apply: true });
    expect(allShares(sim), "the share made on the new subgroup before its first poll was taken as where to start, never enforced").toEqual([]);
  });
});
