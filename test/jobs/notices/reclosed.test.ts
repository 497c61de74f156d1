/**
 * A notice Warden closed (labelled warden-closed::by-warden) that a person reopens and closes again shows
 * that person as its closer (`closed_by`, `closed_at`): closed.ts read it as a person's close, which keeps
 * the notice's date. Its assignee, a Guest, could so turn Warden's close on removal into "closed by a person
 * before the share was resolved": a share created anew after that removal, owed a notice and a whole grace,
 * was removed at once, without any notice, on the old notice's date. Such a close is Warden's (read.ts
 * likewise lets a notice Warden closed stand for nothing once reopened).
 */
import { describe, expect, it } from "vitest";
import { deletes, gitlabCall, guestWorld, later, noticesOf, run, setClock, setIssueState, sim, start } from "../../support/notices-world.ts";

describe("a notice Warden closed, reopened and closed again by its assignee", { timeout: 30_000 }, () => {
  it("does not date a share created anew after Warden removed the old one: it gets a notice and a whole grace", async () => {
    await start(guestWorld());
    await run({ apply: true });
    const due = await run({ apply: true, now: later(8) });
    expect(due.actions.find((a) => a.kind === "project")!.status).toBe("done");
    const [old] = noticesOf("project:100:group:20");
    expect(old!.state).toBe("closed");

    // Day 10: the share is created anew; a minute later jane reopens the old notice (assigned to her) and closes it.
    setClock(later(10));
    await gitlabCall("jane", "POST", "/projects/100/share", { group_id: 20, group_access: 30 }, 201);
    await setIssueState("jane", old!.iid, new Date(later(10).getTime() + 60_000), "reopen");
    await setIssueState("jane", old!.iid, new Date(later(10).getTime() + 120_000));

    sim.requests.length = 0;
    const next = await run({ apply: true, now: later(10.5) });
    const project = next.actions.find((a) => a.kind === "project")!;
    expect({ status: project.status, dueDate: project.notice?.dueDate }).toEqual({ status: "noticed", dueDate: "2026-12-17" });
    expect(deletes().filter((d) => d.includes("/projects/100/share"))).toEqual([]);
  });

  it("buys no new grace either: closed again after the new share's notices, it still ends the old count where Warden's close did", async () => {
    await start(guestWorld());
    await run({ apply: true });
    await run({ apply: true, now: later(8) });
    const [old] = noticesOf("project:100:group:20");
    // An hour after the removal, the share is made again: a new notice (due 2026-12-15), which jane closes, and the one opened after it too.
    setClock(new Date(later(8).getTime() + 3_600_000));
    await gitlabCall("jane", "POST", "/projects/100/share", { group_id: 20, group_access: 30 }, 201);
    const fresh = await run({ apply: true, now: later(8.5) });
    expect(fresh.actions.find((a) => a.kind === "project")!.notice?.dueDate).toBe("2026-12-15");
    await setIssueState("jane", noticesOf("project:100:group:20").find((i) => i.state === "opened")!.iid, later(9));
    await run({ apply: true, now: later(9.5) });
    await setIssueState("jane", noticesOf("project:100:group:20").find((i) => i.state === "opened")!.iid, later(10));
    // Then the old notice, reopened and closed again: its close (later than hers) must not end the count her closes keep.
    await setIssueState("jane", old!.iid, new Date(later(10).getTime() + 60_000), "reopen");
    await setIssueState("jane", old!.iid, new Date(later(10).getTime() + 120_000));

    const before = await run({ apply: true, now: later(14.5) });
    expect(before.actions.filter((a) => a.kind === "project").map((a) => [a.status, a.notice?.dueDate])).toEqual([["pending", "2026-12-15"]]);
    sim.requests.length = 0;
    const due = await run({ apply: true, now: later(16) });
    expect(due.actions.find((a) => a.kind === "project")!.status).toBe("done");
    expect(deletes().some((d) => d.startsWith("DELETE /api/v4/projects/100/share/20"))).toBe(true);
  });
});
