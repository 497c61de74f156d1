/**
 * A watch cursor past every event GitLab has: the instance restored from a backup older than the cursor.
 * read.ts stopped at the first event whose id was at or below the cursor's, so every new event was
 * passed, poll after poll, until GitLab's ids climbed past the old cursor (months on a quiet instance),
 * and nothing said so: no failed source, no warning, `behindSeconds` 0 (a review of what may stay stuck).
 * GitLab's answer shows it: the newest event is dated after the cursor's time, its id below the
 * cursor's. The source is read again from the cursor's time then, saying why.
 */
import { expect, it } from "vitest";
import { pollOnce, type PollResult, type WatchCursor } from "../../../lib/jobs/watch/index.ts";
import { allShares, IDS, share } from "../../support/watch-world.ts";
import { begin, sim, start } from "../../support/watch-sim.ts";

it("a cursor whose id is above every event GitLab now has does not silently pass the shares made after it", async () => {
  await start();
  const w = await begin("root");
  // The cursor as stored before GitLab was restored from an older backup: id far above what GitLab now writes, time a minute ago.
  const cursor: WatchCursor = { version: 2, sources: { instance: { id: 1_000_000, at: new Date(Date.now() - 60_000).toISOString() } }, retries: {} };
  await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
  expect(sim.auditEvents.at(-1)!.id).toBeLessThan(1_000_000);

  const polls: PollResult[] = [];
  for (let i = 0; i < 3; i++) polls.push(await pollOnce({ ...w, cursor: polls.at(-1)?.cursor ?? cursor, apply: true }));

  expect(allShares(sim)).toEqual([]);
  expect(polls.flatMap((p) => [...p.failedSources, ...(p.report?.warnings ?? [])])).toContainEqual(expect.stringMatching(/^the audit events of .*: the newest \(id \d+\) is dated after the cursor yet its id is below the cursor's \(1000000\): GitLab's ids went back/));
});

it("an event dated ahead, which the cursor stands on (its time kept no later than the read's), is no sign of ids gone back", async () => {
  await start();
  const w = await begin("root");
  await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
  // A node's clock a day ahead: the event stays so dated, the newest, poll after poll.
  sim.auditEvents.at(-1)!.created_at = new Date(Date.now() + 86_400_000).toISOString();
  const polls: PollResult[] = [];
  for (let i = 0; i < 3; i++) polls.push(await pollOnce({ ...w, cursor: polls.at(-1)?.cursor ?? w.cursor, apply: true }));
  expect(polls.map((p) => p.read)).toEqual([1, 0, 0]);
  expect(polls.flatMap((p) => [...p.failedSources, ...(p.report?.warnings ?? [])]).join("\n")).not.toMatch(/ids went back/);
});
