/**
 * The watch (lib/jobs/watch) when GitLab hangs on one subject its events name. A poll cut off by its
 * signal (the Watch function's deadline) threw before the cursor was stored, so every later poll read
 * the same events and hung on the same subject: the watch stopped for good, and the strays made after
 * it waited for the sweep. Now the subjects are looked up only until a lookup deadline, one not found by
 * then waiting for the next poll while the others are enforced; and a batch cut off all the same moves
 * the cursor past its events, each subject spending an attempt (BatchError), as a batch that failed does.
 */
import { describe, expect, it } from "vitest";
import { BatchError, pollOnce } from "../../../lib/jobs/watch/index.ts";
import { begin, sim, start } from "../../support/watch-sim.ts";
import { allShares, IDS, share } from "../../support/watch-world.ts";

const hangOn = (id: number) => sim.addFaults({ kind: "delay", ms: 30_000, method: "GET", path: `/api/v4/projects/${id}`, times: 1 });

describe("watch: a subject GitLab hangs on", () => {
  it("is looked up only until the lookup deadline: the others of its batch are enforced, and it is tried again at the next poll", async () => {
    await start();
    const w = await begin("root");
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    await share(sim, "jane", `/projects/${IDS.api}/share`, IDS.partners);
    hangOn(IDS.app);
    const began = Date.now();
    const first = await pollOnce({ ...w, apply: true, lookupDeadline: () => AbortSignal.timeout(500) });
    expect(Date.now() - began).toBeLessThan(5_000);
    expect(first.report!.actions.map((a) => [a.kind === "project" && a.projectId, a.status])).toEqual([[IDS.api, "done"]]);
    expect(first.cursor.retries).toEqual({ [`project:${IDS.app}`]: 1 });
    expect(first.report!.warnings).toContainEqual(expect.stringMatching(/^target project 100: reading it failed \(GitLab did not answer before the read deadline \(.+\)\): not examined$/));

    const second = await pollOnce({ ...w, cursor: first.cursor, apply: true });
    expect(second.report!.actions.map((a) => [a.kind === "project" && a.projectId, a.status])).toEqual([[IDS.app, "done"]]);
    expect(second.cursor.retries).toEqual({});
    expect(allShares(sim)).toEqual([]);
  });

  it("a batch cut off by the poll's signal all the same moves the cursor past its events, each subject spending an attempt", async () => {
    await start();
    const w = await begin("root");
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    hangOn(IDS.app);
    const cut = await pollOnce({ ...w, apply: true, signal: AbortSignal.timeout(500) }).catch((err: unknown) => err);
    expect(cut).toBeInstanceOf(BatchError);
    const { poll, message } = cut as BatchError;
    expect(message).toMatch(/^the batch's run was cut off \(.+\); the watch moves on: tried again at the next poll .*project:100 \(attempt 2 of 3\)$/);
    expect(poll.moved).toBe(true);
    expect(poll.cursor.sources).not.toEqual(w.cursor.sources);
    expect(poll.cursor.retries).toEqual({ [`project:${IDS.app}`]: 1 });
  });
});
