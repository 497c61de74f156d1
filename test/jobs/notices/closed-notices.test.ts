/**
 * A notice's assignee (the share's adder) may close it, as GitLab lets them: the attack is closing
 * each notice as it comes, so that every run opens a new one with a fresh grace and the stray share
 * stays for ever. Closing must not restart the grace (lib/jobs/notices/closed.ts), while a notice
 * Warden closed itself (its share removed, a duplicate) counts for nothing, and so does a close before
 * the share was made again (its audit event later than the close): that is a new share, owed a notice.
 * Nor does a close make every run open another notice: runs come with each change the adder makes to the
 * share (the watch's, the stream's), so once a person closed the one notice opened after a close, none
 * more is opened until the date.
 */
import { describe, expect, it } from "vitest";
import { deletes, gitlabCall, guestWorld, later, NOTICES, noticesOf, run, setClock, setIssueState, sim, start, T0, world, writes } from "../../support/notices-world.ts";

const HOUR = 3_600_000;

describe("a notice closed by a person (its assignee, the share's adder) does not restart the grace", () => {

  it("jane closes each notice as it comes: the next one keeps the first one's due date, and past it the share is removed", async () => {
    await start(guestWorld());
    await run({ apply: true });
    const [first] = noticesOf("project:100:group:20");
    expect(first!.due_date).toBe("2026-12-07");
    await setIssueState("jane", first!.iid, later(1));

    // A run finds no open notice: it opens one, due on the first one's date, not 7 days from now.
    const second = await run({ apply: true, now: later(2) });
    expect(second.actions.map((a) => [a.kind, a.status, a.notice?.dueDate])).toEqual([["project", "noticed", "2026-12-07"], ["group", "pending", "2026-12-07"]]);
    const [, next] = noticesOf("project:100:group:20");
    expect(next).toMatchObject({ state: "opened", due_date: "2026-12-07" });
    expect(next!.description).toContain(`notice #${first!.iid} was closed before its share was resolved, so the grace was not restarted`);
    await setIssueState("jane", next!.iid, later(3));

    // Past that date a dry run plans the removal, sending only reads, and reopens or writes nothing.
    sim.requests.length = 0;
    const dry = await run({ now: later(8) });
    expect(dry.actions.map((a) => [a.kind, a.status, a.notice])).toEqual([
      ["project", "planned", { dueDate: "2026-12-07", daysLeft: 0, earlier: { iid: first!.iid, url: first!.web_url } }],
      ["group", "planned", expect.objectContaining({ dueDate: "2026-12-07", daysLeft: 0 })],
    ]);
    expect(dry.summary.notices).toMatchObject({ toOpen: 0, due: 2 });
    expect(writes()).toEqual([]);

    const due = await run({ apply: true, now: later(8) });
    expect(due.actions.map((a) => [a.kind, a.status])).toEqual([["project", "done"], ["group", "done"]]);
    expect(deletes()).toHaveLength(2);
    expect(due.summary.notices).toMatchObject({ opened: 0, due: 2, removed: 2 });
    // The notices jane closed stay as she left them: no note, not reopened.
    for (const issue of noticesOf("project:100:group:20")) expect([issue.state, issue.closed_by?.username, issue.notes]).toEqual(["closed", "jane", []]);
    expect(noticesOf("project:100:group:20")).toHaveLength(2);
  });

  it("a notice closed after its share was removed (by Warden) does not shorten a later grace: the share added again gets a full one", async () => {
    await start(guestWorld());
    await run({ apply: true });
    const [first] = noticesOf("project:100:group:20");
    await setIssueState("jane", first!.iid, later(1));
    await run({ apply: true, now: later(2) });
    await run({ apply: true, now: later(8) });
    expect(sim.dataset.projects.find((p) => p.id === 100)!.shared_with_groups).toEqual([]);
    // Jane adds the share again a month later: a new episode, with a notice of its own and the whole grace.
    setClock(later(30));
    await gitlabCall("jane", "POST", "/projects/100/share", { group_id: 20, group_access: 30 }, 201);
    const again = await run({ apply: true, now: later(30) });
    expect(again.actions.map((a) => [a.kind, a.status, a.notice?.dueDate])).toEqual([["project", "noticed", "2027-01-06"]]);
  });

  it("a notice Warden closed as a duplicate, after the standing one was opened, does not end the episode the adder's close began", async () => {
    await start(guestWorld());
    await Promise.all([run({ apply: true }), run({ apply: true })]);
    const standing = noticesOf("project:100:group:20").find((i) => i.state === "opened")!;
    await setIssueState("jane", standing.iid, later(1));
    const next = await run({ apply: true, now: later(2) });
    expect(next.actions.find((a) => a.kind === "project")!.notice?.dueDate).toBe("2026-12-07");
  });

  it("the closed notices are listed as far back as the policy's longest grace and a month: a close found however far apart the runs, not ten years of history", async () => {
    await start(guestWorld());
    await run({ apply: true });
    const [first] = noticesOf("project:100:group:20");
    // Closed within the hour, and the runs a week apart: the first notice is still found when its date has passed.
    await setIssueState("jane", first!.iid, new Date(T0.getTime() + 3_600_000));
    await run({ apply: true, now: later(6) });
    await setIssueState("jane", noticesOf("project:100:group:20")[1]!.iid, later(6.1));
    sim.requests.length = 0;
    const due = await run({ apply: true, now: later(13) });
    expect(due.actions.map((a) => [a.kind, a.status])).toEqual([["project", "done"], ["group", "done"]]);
    const closedListing = sim.requests.find((r) => r.url.includes("state=closed"))!;
    const after = new URL(closedListing.url, sim.url).searchParams.get("updated_after")!;
    // The policy's grace is 7 days: 7 + 31 days back from the run.
    expect(after).toBe(new Date(later(13).getTime() - 38 * 86_400_000).toISOString());
  });

  it("an issue with Warden's marker that jane opened and closed herself is no notice: it anchors nothing", async () => {
    await start(world());
    const fake = (await gitlabCall("jane", "POST", `/projects/${NOTICES}/issues`, { title: "fake", description: "<!-- warden-share: project:100:group:20 -->\nx", labels: "warden::notice" }, 201)) as { iid: number };
    await gitlabCall("jane", "PUT", `/projects/${NOTICES}/issues/${fake.iid}`, { state_event: "close" });
    const report = await run({ apply: true, now: later(5) });
    expect(report.actions.map((a) => [a.kind, a.status, a.notice?.dueDate, a.notice?.earlier])).toEqual([["project", "noticed", "2026-12-12", undefined], ["group", "noticed", "2026-12-12", undefined]]);
  });

  it("a listing of the closed notices that fails is a notices project that cannot be read: no new notice with a fresh grace, nothing written", async () => {
    await start(guestWorld());
    await run({ apply: true });
    await setIssueState("jane", noticesOf("project:100:group:20")[0]!.iid, later(1));
    sim.beforeAnswer(({ url }) => {
      if (url.searchParams.get("state") === "closed") sim.addFaults({ kind: "status", status: 500, route: "GET /projects/:id/issues", times: 1 });
    });
    sim.requests.length = 0;
    const report = await run({ apply: true, now: later(2) });
    expect(report.warnings.join("\n")).toContain("gitlab.shares.notices.project: project security/access-notices could not be listed");
    expect(writes()).toEqual([]);
    expect(noticesOf("project:100:group:20")).toHaveLength(1);
  });

  it("jane closes her notice and removes the share herself; made again days later, the share is a new one: a notice and a whole grace", async () => {
    await start(guestWorld());
    await run({ apply: true });
    const [first] = noticesOf("project:100:group:20");
    setClock(later(1));
    await gitlabCall("jane", "DELETE", "/projects/100/share/20", undefined, 204);
    await setIssueState("jane", first!.iid, later(1));
    // Made again past the first notice's date: its audit event, after her close, says it is new.
    setClock(later(10));
    await gitlabCall("jane", "POST", "/projects/100/share", { group_id: 20, group_access: 30 }, 201);
    sim.requests.length = 0;
    const again = await run({ apply: true, now: later(10) });
    const share = again.actions.find((a) => a.kind === "project" && a.groupId === 20)!;
    expect(share).toMatchObject({ status: "noticed", notice: { dueDate: "2026-12-17" } });
    expect(share.notice!.earlier).toBeUndefined();
    // acme's own share with partners, noticed at T0 and never touched, falls due and goes; acme/app's stays.
    expect(deletes().filter((d) => d.includes("/projects/100/"))).toEqual([]);
  });

  it("jane closing each notice as it comes gets at most one more notice for the share while its first one's date stands, however many runs come", async () => {
    await start(guestWorld());
    await run({ apply: true });
    const key = "project:100:group:20";
    expect(noticesOf(key)).toHaveLength(1);
    // Day 1: twelve targeted runs (the watch's, one per event jane makes on the share), jane closing each notice first.
    for (let i = 0; i < 12; i++) {
      const at = new Date(later(1).getTime() + i * HOUR);
      for (const notice of noticesOf(key).filter((n) => n.state === "opened")) await setIssueState("jane", notice.iid, at);
      const report = await run({ apply: true, now: new Date(at.getTime() + 60_000), targets: [{ kind: "project", path: "acme/app" }] });
      const share = report.actions.find((a) => a.kind === "project")!;
      expect(share.notice?.dueDate).toBe("2026-12-07");
      // The first run after her close opens the one notice; every one after, its date known, waits for it.
      expect(share.status).toBe(i === 0 ? "noticed" : "pending");
    }
    // The first notice, and the one opened after jane closed it: not one per run.
    expect(noticesOf(key)).toHaveLength(2);
    const due = await run({ apply: true, now: later(8) });
    expect(due.actions.find((a) => a.kind === "project")!.status).toBe("done");
  });
});
