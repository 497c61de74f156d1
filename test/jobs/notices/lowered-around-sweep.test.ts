/**
 * A hostile review's finding (lib/jobs/notices/closed.ts). Where a rule allows the invited group up to
 * Reporter, jane's group share with partners at Developer is stray. She lowers it to Reporter just before
 * a sweep (partners keep their access), the sweep closes her notice as "now allowed", and she raises it to
 * Developer right after: the next run opened a notice with a whole new grace, so one level change each side
 * of each sweep kept Developer access for ever. A share stray again before the date of the notice Warden
 * closed keeps that date; once the date has passed while it was not stray, it is owed a new grace. Whether
 * it had is judged by when the share was stray again (its raise, addedBy.at), not by the run's time: with
 * only a daily sweep, a share lowered (or removed) before the last sweep before the date and raised (or
 * added back) right after it is first seen again on the date itself.
 */
import { describe, expect, it } from "vitest";
import { ACCESS } from "../../../sim/gitlab/index.ts";
import { deletes, gitlabCall, guestWorld, later, noticesOf, run, setClock, setIssueState, sim, start } from "../../support/notices-world.ts";
import { notifyPolicy } from "../../support/policies.ts";

/** The notify policy, with partners allowed into acme's groups up to Reporter. */
const POLICY = notifyPolicy({ allow: '{ group: partners, groups: [acme], maxAccess: reporter }' });
const KEY = "group:10:group:20";
const groupShare = (report: Awaited<ReturnType<typeof run>>) => report.actions.find((a) => a.kind === "group")!;
const projectShare = (report: Awaited<ReturnType<typeof run>>) => report.actions.find((a) => a.kind === "project")!;

/** The first notice opened, then on `day` the share lowered to Reporter, a sweep, and the share raised again. */
async function lowerAroundSweep(day: number) {
  await start(guestWorld());
  const first = await run({ apply: true, policy: POLICY });
  expect(groupShare(first)).toMatchObject({ status: "noticed", notice: { dueDate: "2026-12-07" } });
  setClock(later(day));
  sim.updateGroupShare(10, 20, ACCESS.reporter, "jane");
  await run({ apply: true, now: later(day + 0.1), policy: POLICY });
  expect(noticesOf(KEY).map((i) => [i.state, i.closed_by?.username])).toEqual([["closed", "root"]]);
  setClock(later(day + 0.2));
  sim.updateGroupShare(10, 20, ACCESS.developer, "jane");
  return run({ apply: true, now: later(day + 0.3), policy: POLICY });
}

describe("a share lowered to what a rule allows over a sweep, and raised again after", { timeout: 30_000 }, () => {
  it("within the notice's grace: the new notice keeps the first one's date, and the share is removed on it", async () => {
    const next = await lowerAroundSweep(6);
    expect(groupShare(next)).toMatchObject({ status: "noticed", notice: { dueDate: "2026-12-07", earlier: { iid: noticesOf(KEY)[0]!.iid } } });
    sim.requests.length = 0;
    const due = await run({ apply: true, now: later(8), policy: POLICY });
    expect(groupShare(due).status).toBe("done");
    expect(deletes()).toContain("DELETE /api/v4/groups/10/share/20");
  });

  it("after the notice's date, which passed while the share was allowed: a new notice with a whole grace", async () => {
    const next = await lowerAroundSweep(9);
    expect(groupShare(next).status).toBe("noticed");
    expect(groupShare(next).notice?.dueDate).toBe("2026-12-16");
    expect(groupShare(next).notice?.earlier).toBeUndefined();
  });
});

describe("a share resolved only around the last sweep before its date, no run between it and the date", { timeout: 30_000 }, () => {
  it("lowered before the daily sweep on the day before the date and raised right after it: removed on the first notice's date, not given a new grace", async () => {
    await start(guestWorld());
    const first = await run({ apply: true, policy: POLICY });
    expect(groupShare(first)).toMatchObject({ status: "noticed", notice: { dueDate: "2026-12-07" } });
    // Daily sweeps at 09:00; the last one before the date is 2026-12-06 (later(7)).
    setClock(later(6.99));
    sim.updateGroupShare(10, 20, ACCESS.reporter, "jane");
    await run({ apply: true, now: later(7), policy: POLICY });
    expect(noticesOf(KEY).map((i) => [i.state, i.closed_by?.username])).toEqual([["closed", "root"]]);
    setClock(later(7.01));
    sim.updateGroupShare(10, 20, ACCESS.developer, "jane");

    // The next daily sweep, on the date: the share was stray again a whole day before it.
    sim.requests.length = 0;
    const due = await run({ apply: true, now: later(8), policy: POLICY });
    expect(groupShare(due).notice?.dueDate).toBe("2026-12-07");
    expect(groupShare(due).status).toBe("done");
    expect(deletes()).toContain("DELETE /api/v4/groups/10/share/20");
  });

  it("stray again, its follow-up notice opened and closed by jane, then raised once more on the date: still removed on the first notice's date", async () => {
    const next = await lowerAroundSweep(6);
    expect(groupShare(next).notice?.dueDate).toBe("2026-12-07");
    await setIssueState("jane", noticesOf(KEY)[1]!.iid, later(6.5));
    // A later grant is no later time the share was stray again: the follow-up notice's opening says it was before the date.
    setClock(later(7.7));
    sim.updateGroupShare(10, 20, ACCESS.maintainer, "jane");
    const due = await run({ apply: true, now: later(8), policy: POLICY });
    expect([groupShare(due).status, groupShare(due).notice?.dueDate]).toEqual(["done", "2026-12-07"]);
  });

  it("a project share removed before that sweep and added back right after it: removed on the first notice's date", async () => {
    await start(guestWorld());
    const first = await run({ apply: true });
    expect(projectShare(first)).toMatchObject({ status: "noticed", notice: { dueDate: "2026-12-07" } });
    setClock(later(6.99));
    await gitlabCall("jane", "DELETE", "/projects/100/share/20", undefined, 204);
    await run({ apply: true, now: later(7) });
    expect(noticesOf("project:100:group:20").map((i) => [i.state, i.closed_by?.username])).toEqual([["closed", "root"]]);
    setClock(later(7.01));
    await gitlabCall("jane", "POST", "/projects/100/share", { group_id: 20, group_access: 30 }, 201);

    const due = await run({ apply: true, now: later(8) });
    expect(projectShare(due).notice?.dueDate).toBe("2026-12-07");
    expect(projectShare(due).status).toBe("done");
  });
});
