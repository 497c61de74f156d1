/**
 * A hostile review's finding (note12's leftover "a duplicate's closing racing a close", made repeatable
 * by the adder; lib/jobs/notices/closed.ts): jane,
 * a Guest assignee, closes her notice #A; the next run opens #B, due on #A's date. jane reopens #A, so #B
 * is now a newer duplicate the next run closes. Between that run's listing (#A open, standing, pending) and
 * its PUT closing #B, jane closes #A again. closed.ts then sees a Warden close (#B's) after every person's
 * close and takes the share as resolved: the next run opens a notice with a whole new grace. Each cycle
 * jane needs only to reopen one issue and close it during a sweep's write phase (in a durable execution
 * the removal steps, and a pause, lie between the two); the share was never removed. A duplicate's close
 * is labelled warden-closed::duplicate now, and ends no count, whenever it came.
 */
import { describe, expect, it } from "vitest";
import { deletes, guestWorld, later, noticesOf, run, setIssueState, sim, start } from "../../support/notices-world.ts";

const KEY = "project:100:group:20";

describe("a duplicate Warden closes while the adder closes the standing notice", { timeout: 30_000 }, () => {
  it("does not restart the grace: the share is removed on the first notice's date", async () => {
    await start(guestWorld());
    await run({ apply: true });
    const [a] = noticesOf(KEY);
    await setIssueState("jane", a!.iid, later(1), "close");
    await run({ apply: true, now: later(2) });
    const [, b] = noticesOf(KEY);
    expect(b!.due_date).toBe("2026-12-07");
    await setIssueState("jane", a!.iid, later(3), "reopen");

    // jane closes #A right when Warden, having listed #A as standing, closes #B as its duplicate.
    const stop = sim.beforeAnswer(({ method, url }) => {
      if (method === "PUT" && url.pathname.endsWith(`/issues/${b!.iid}`) && a!.state === "opened") {
        Object.assign(a!, { state: "closed", closed_at: sim.work.tick(), closed_by: { id: 5, username: "jane", name: "Jane Doe" } });
      }
    });
    const raced = await run({ apply: true, now: later(4) });
    stop();
    expect(raced.notices?.closed).toEqual([expect.objectContaining({ iid: b!.iid, status: "done" })]);
    expect([a!.state, a!.closed_by?.username, b!.state, b!.closed_by?.username]).toEqual(["closed", "jane", "closed", "root"]);

    const next = await run({ apply: true, now: later(5) });
    expect(next.actions.find((x) => x.kind === "project")!.notice?.dueDate).toBe("2026-12-07");
    sim.requests.length = 0;
    const due = await run({ apply: true, now: later(8) });
    expect(due.actions.find((x) => x.kind === "project")!.status).toBe("done");
    expect(deletes().some((d) => d.startsWith("DELETE /api/v4/projects/100/share/20"))).toBe(true);
  });
});
