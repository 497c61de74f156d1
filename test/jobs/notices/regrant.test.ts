/**
 * A hostile review's finding (lib/jobs/notices/plan.ts). The share's adder (jane, a Guest of the notices project and assignee of her notices) keeps a
 * stray share for ever without ever losing its access. She closes her notice, then makes GitLab record a
 * new "share created or raised" audit event for the same share: a group share's level lowered and raised
 * again (no removal at all), or a project share removed and re-added a second later. plan.ts then treats
 * the share as "made again after a person's last close" (a new episode) and opens a notice with a whole
 * new grace; repeated each week, the share is never removed. Now a share made again within the grace keeps
 * the first notice's date (2026-12-07); one created anew after it gets a new grace (closed-notices.test.ts),
 * and one only raised after it (its due date begun, before the sweep that removes it) keeps the date too:
 * a raise is no creation, so the share never went (lib/jobs/notices/made-again.ts).
 */
import { describe, expect, it } from "vitest";
import { ACCESS } from "../../../sim/gitlab/index.ts";
import { deletes, gitlabCall, guestWorld, later, noticesOf, run, setClock, setIssueState, sim, start } from "../../support/notices-world.ts";

const openNoticeOf = (key: string) => noticesOf(key).find((i) => i.state === "opened")!;

describe("a person's close followed by a re-grant of the same share does not restart the grace", { timeout: 30_000 }, () => {
  it("jane closes the notice of her group share and lowers then raises its level (no removal): removed on the first notice's date all the same", async () => {
    await start(guestWorld());
    await run({ apply: true });
    expect(openNoticeOf("group:10:group:20").due_date).toBe("2026-12-07");

    // Day 6: close, then Developer -> Reporter -> Developer (GitLab's UI; the _updated event of the raise is a "grant").
    await setIssueState("jane", openNoticeOf("group:10:group:20").iid, later(6));
    setClock(new Date(later(6).getTime() + 1_000));
    sim.updateGroupShare(10, 20, ACCESS.reporter, "jane");
    setClock(new Date(later(6).getTime() + 2_000));
    sim.updateGroupShare(10, 20, ACCESS.developer, "jane");

    const next = await run({ apply: true, now: later(6.5) });
    const group = next.actions.find((a) => a.kind === "group")!;
    // The grace counts from the first notice: due 2026-12-07, not a whole new week from day 6.5.
    expect(group.notice?.dueDate).toBe("2026-12-07");

    sim.requests.length = 0;
    const due = await run({ apply: true, now: later(8) });
    expect(due.actions.find((a) => a.kind === "group")!.status).toBe("done");
    expect(deletes()).toContain("DELETE /api/v4/groups/10/share/20");
  });

  it("jane closes the notice of her project share, removes it and adds it again a second later: removed on the first notice's date all the same", async () => {
    await start(guestWorld());
    await run({ apply: true });
    await setIssueState("jane", openNoticeOf("project:100:group:20").iid, later(6));
    setClock(new Date(later(6).getTime() + 1_000));
    await gitlabCall("jane", "DELETE", "/projects/100/share/20", undefined, 204);
    setClock(new Date(later(6).getTime() + 2_000));
    await gitlabCall("jane", "POST", "/projects/100/share", { group_id: 20, group_access: 30 }, 201);

    const next = await run({ apply: true, now: later(6.5) });
    expect(next.actions.find((a) => a.kind === "project")!.notice?.dueDate).toBe("2026-12-07");

    sim.requests.length = 0;
    const due = await run({ apply: true, now: later(8) });
    expect(due.actions.find((a) => a.kind === "project")!.status).toBe("done");
    expect(deletes().some((d) => d.startsWith("DELETE /api/v4/projects/100/share/20"))).toBe(true);
  });

  it("jane closes her group share's notice, then on its due date (00:00:05 UTC, before the sweep) lowers and raises the level: the share is removed all the same", async () => {
    await start(guestWorld());
    await run({ apply: true });
    expect(openNoticeOf("group:10:group:20").due_date).toBe("2026-12-07");

    // Day 1: jane closes her notice (GitLab lets the assignee). The grace still counts from it (closed.ts).
    await setIssueState("jane", openNoticeOf("group:10:group:20").iid, later(1));

    // 2026-12-07 00:00:05 UTC: the due date has begun; the daily sweep comes at 09:00. Developer -> Reporter -> Developer.
    setClock(new Date("2026-12-07T00:00:05Z"));
    sim.updateGroupShare(10, 20, ACCESS.reporter, "jane");
    setClock(new Date("2026-12-07T00:00:06Z"));
    sim.updateGroupShare(10, 20, ACCESS.developer, "jane");

    // The sweep of the due date (2026-12-07 09:00): the share was never gone, never resolved: it is removed.
    sim.requests.length = 0;
    const due = await run({ apply: true, now: later(8) });
    const group = due.actions.find((a) => a.kind === "group")!;
    expect({ status: group.status, dueDate: group.notice?.dueDate }).toEqual({ status: "done", dueDate: "2026-12-07" });
    expect(deletes()).toContain("DELETE /api/v4/groups/10/share/20");
  });

  it("jane closes her group share's notice and removes the share; created again past the date, it is a new one: a notice and a whole grace", async () => {
    await start(guestWorld());
    await run({ apply: true });
    setClock(later(1));
    await gitlabCall("jane", "DELETE", "/groups/10/share/20", undefined, 204);
    await setIssueState("jane", openNoticeOf("group:10:group:20").iid, later(1));
    setClock(later(10));
    await gitlabCall("jane", "POST", "/groups/10/share", { group_id: 20, group_access: 30 }, 201);
    const again = await run({ apply: true, now: later(10) });
    const group = again.actions.find((a) => a.kind === "group")!;
    expect(group).toMatchObject({ status: "noticed", notice: { dueDate: "2026-12-17" } });
    expect(group.notice!.earlier).toBeUndefined();
  });

  it("whether a grant past the date created the share cannot be read: the share is held, neither noticed anew nor removed", async () => {
    await start(guestWorld());
    await run({ apply: true });
    await setIssueState("jane", openNoticeOf("group:10:group:20").iid, later(1));
    setClock(new Date("2026-12-07T00:00:05Z"));
    sim.updateGroupShare(10, 20, ACCESS.reporter, "jane");
    setClock(new Date("2026-12-07T00:00:06Z"));
    sim.updateGroupShare(10, 20, ACCESS.developer, "jane");
    // Only the read of the two seconds around the grant fails (attribution's own reads span whole days).
    sim.beforeAnswer(({ route, url }) => {
      const span = Date.parse(url.searchParams.get("created_before") ?? "") - Date.parse(url.searchParams.get("created_after") ?? "");
      if (route === "GET /audit_events" && span <= 2_000) sim.addFaults({ kind: "status", status: 500, route, times: 1 });
    });
    sim.requests.length = 0;
    const due = await run({ apply: true, now: later(8) });
    expect(due.actions.find((a) => a.kind === "group")!.status).toBe("pending");
    expect(due.warnings.join("\n")).toContain("share group:10:group:20: its audit event could not be read");
    expect(deletes()).not.toContain("DELETE /api/v4/groups/10/share/20");
    expect(noticesOf("group:10:group:20").filter((i) => i.state === "opened")).toEqual([]);
  });
});
