/**
 * A hostile review's finding (lib/jobs/notices/closed.ts). Where a rule allows the invited group up to
 * Reporter, jane's group share with partners at Developer is stray. She lowers it to Reporter just before
 * a sweep (partners keep their access), the sweep closes her notice as "now allowed", and she raises it to
 * Developer right after: the next run opened a notice with a whole new grace, so one level change each side
 * of each sweep kept Developer access for ever. A share stray again before the date of the notice Warden
 * closed keeps that date; once the date has passed while it was not stray, it is owed a new grace.
 */
import { describe, expect, it } from "vitest";
import { ACCESS } from "../../../sim/gitlab/index.ts";
import { deletes, guestWorld, later, noticesOf, run, setClock, sim, start } from "../../support/notices-world.ts";
import { notifyPolicy } from "../../support/policies.ts";

/** The notify policy, with partners allowed into acme's groups up to Reporter. */
const POLICY = notifyPolicy({ allow: '{ group: partners, groups: [acme], maxAccess: reporter }' });
const KEY = "group:10:group:20";
const groupShare = (report: Awaited<ReturnType<typeof run>>) => report.actions.find((a) => a.kind === "group")!;

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
