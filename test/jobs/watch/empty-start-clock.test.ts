/**
 * A source with no audit event yet was started at the watch's own clock (cursor.ts newestEvent), while
 * every later window is in GitLab's (events' created_at): with GitLab's clock more than the 5-minute
 * margin behind Lambda's, the events of the first minutes after the start were dated before every
 * window and never listed, their shares passed silently (a review of what may stay stuck). Such a
 * source starts an hour back now: it had no event, so nothing before its start is read twice.
 */
import { expect, it } from "vitest";
import { pollOnce } from "../../../lib/jobs/watch/index.ts";
import { allShares, IDS, share } from "../../support/watch-world.ts";
import { begin, sim, start } from "../../support/watch-sim.ts";

it("a watch started on a source with no events yet sees the first share made after it, GitLab's clock 15 minutes behind", async () => {
  await start({ clock: () => Date.now() - 15 * 60_000 });
  const w = await begin("root");
  expect(w.cursor.sources["instance"]!.id).toBe(0);
  await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);

  const polled = await pollOnce({ ...w, apply: true });
  expect(polled.read).toBe(1);
  expect(allShares(sim)).toEqual([]);
});
