/**
 * A hostile review's finding (lib/jobs/notices/read.ts, write.ts): a person got someone else's share removed at once. jane, a Guest of the notices project,
 * is the assignee of an old notice Warden closed when it removed her share (project:100:group:20). Weeks
 * later root shares acme/app with partners again: the same share key, a new share, noticed with a whole
 * grace. jane reopens her old notice (GitLab lets an assignee reopen; she changes nothing else, not the
 * marker, not a label): being the lower iid it stands, its due date is long past, and the next run removes
 * root's share at once, closing root's own notice as a "duplicate". Warden labels a notice as it closes it
 * now (warden-closed::by-warden, which a Guest cannot remove), and one so labelled never stands again.
 */
import { describe, expect, it } from "vitest";
import { deletes, gitlabCall, guestWorld, later, NOTICES, noticesOf, run, setClock, sim, start } from "../../support/notices-world.ts";

describe("a notice Warden closed, reopened by its assignee", { timeout: 30_000 }, () => {
  it("does not stand for a later share with the same key: root's new share keeps its own notice and grace", async () => {
    await start(guestWorld());
    await run({ apply: true });
    const old = noticesOf("project:100:group:20")[0]!;
    // jane's shares come due and are removed; Warden closes their notices.
    await run({ apply: true, now: later(8) });
    expect(old.state).toBe("closed");
    expect(old.closed_by?.username).toBe("root");

    // Root shares acme/app with partners again: a new stray, a notice of its own and a whole grace.
    setClock(later(10));
    await gitlabCall("root", "POST", "/projects/100/share", { group_id: 20, group_access: 30 }, 201);
    const noticed = await run({ apply: true, now: later(10) });
    expect(noticed.actions.map((a) => [a.kind, a.status, a.notice?.dueDate])).toEqual([["project", "noticed", "2026-12-17"]]);

    // jane reopens her old notice (due 2026-12-07), and nothing else.
    setClock(later(11));
    await gitlabCall("jane", "PUT", `/projects/${NOTICES}/issues/${old.iid}`, { state_event: "reopen" });

    sim.requests.length = 0;
    const report = await run({ apply: true, now: later(11) });
    expect(report.actions.map((a) => [a.kind, a.status, a.notice?.dueDate])).toEqual([["project", "pending", "2026-12-17"]]);
    expect(deletes()).toEqual([]);
  });
});
