/**
 * The order a share's notices were closed in (lib/jobs/notices/closed.ts): a close by Warden after every
 * person's close ends the count (the share was resolved), as docs/how-enforce-works.md says; but the closes
 * were walked in the order the notices were opened, so Warden's close of an OLDER notice after a person's
 * close of a NEWER one ended nothing, and the share was removed at once, with no notice, on the first
 * notice's long-past date (a hostile review's finding). They are judged in the order they were made now.
 */
import { describe, expect, it } from "vitest";
import { deletes, guestWorld, later, noticesOf, run, setIssueState, sim, start } from "../../support/notices-world.ts";
import { notifyPolicy } from "../../support/policies.ts";

/** The notify policy with acme/app's share with partners exempt through 2026-12-19. */
const EXEMPT = notifyPolicy({ exempt: "{ project: acme/app, sharedWith: partners, until: 2026-12-19, reason: migration }" });

const KEY = "project:100:group:20";
const projectShare = (report: Awaited<ReturnType<typeof run>>) => report.actions.find((a) => a.kind === "project" && a.groupId === 20);

describe("a stray again after an exemption ended", { timeout: 30_000 }, () => {
  it("Warden closed the standing notice as no longer stray after jane's last close: that ends the count, whatever order the notices were created in", async () => {
    await start(guestWorld());
    await run({ apply: true });
    const [first] = noticesOf(KEY);
    await setIssueState("jane", first!.iid, later(1), "close");
    await run({ apply: true, now: later(2) });
    const [, second] = noticesOf(KEY);
    expect(second!.state).toBe("opened");
    // jane reopens the first and closes the second: her last close is on the newer notice.
    await setIssueState("jane", first!.iid, later(3), "reopen");
    await setIssueState("jane", second!.iid, later(3.1), "close");

    // The exemption is merged: the sweep closes the standing notice (#first) as no longer stray, after jane's close.
    const exempted = await run({ apply: true, now: later(4), policy: EXEMPT });
    expect(exempted.notices?.closed).toEqual([expect.objectContaining({ iid: first!.iid, status: "done" })]);
    expect([first!.state, first!.closed_by?.username]).toEqual(["closed", "root"]);

    sim.requests.length = 0;
    const report = await run({ apply: true, now: later(21), policy: EXEMPT });
    // Resolved by Warden's close: a new notice and a whole grace.
    expect(projectShare(report)?.status).toBe("noticed");
    expect(projectShare(report)?.notice?.earlier).toBeUndefined();
    expect(deletes().filter((d) => d.includes("/projects/100/share/20"))).toEqual([]);
  });
});
