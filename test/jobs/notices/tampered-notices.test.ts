/**
 * A notice's share is named by a label of its own (lib/jobs/notices/marker.ts), not by the marker its
 * description opens with: GitLab lets more people than Warden edit that description (the notices
 * project's Reporters and up, and the assignee even as a Guest), and Warden assigns each notice
 * to the share's adder (assignAdder, default true). These tests play jane, the adder, a Guest of the
 * notices project and assignee of her notices, who may edit descriptions, close and reopen, and
 * nothing else: a Guest sets no label and no due date.
 */
import { describe, expect, it } from "vitest";
import { type GitLabDataset } from "../../../sim/gitlab/index.ts";
import { deletes, gitlabCall, guestWorld, later, NOTICES, noticesOf, run, setClock, sim, start } from "../../support/notices-world.ts";

/** jane only a Guest of the notices project (guestWorld), and a group vendors besides. */
function vendorsWorld(): GitLabDataset {
  const dataset = guestWorld();
  dataset.groups.push({ id: 30, name: "vendors", path: "vendors", full_path: "vendors", parent_id: null, visibility: "internal", shared_with_groups: [], owners: ["root"] });
  return dataset;
}

/** The description without its first line (the marker), or with another first line. */
const withoutMarker = (description: string | null, first = "Noted, thanks.") => [first, ...(description ?? "").split("\n").slice(1)].join("\n");

async function editAs(token: string, iid: number, at: Date, change: Record<string, unknown>): Promise<void> {
  setClock(at);
  await gitlabCall(token, "PUT", `/projects/${NOTICES}/issues/${iid}`, change);
}

describe("a notice's marker edited by its assignee (a Guest): the share is named by its label", () => {
  it("jane closes her notice and edits its marker away: the grace is not restarted", async () => {
    await start(vendorsWorld());
    await run({ apply: true });
    const [first] = noticesOf("project:100:group:20");
    expect(first!.due_date).toBe("2026-12-07");
    expect(first!.assignees.map((a) => a.username)).toEqual(["jane"]);

    // Closing alone: test/jobs/notices/closed-notices.test.ts; here the marker goes in the same PUT.
    await editAs("jane", first!.iid, later(1), { state_event: "close", description: withoutMarker(first!.description) });
    const second = await run({ apply: true, now: later(2) });
    const project = second.actions.find((a) => a.kind === "project")!;
    // As for a plain close: the new notice keeps the first one's date (2026-12-07) and says why.
    expect(project.notice?.dueDate).toBe("2026-12-07");

    const due = await run({ apply: true, now: later(8) });
    expect(due.actions.find((a) => a.kind === "project")!.status).toBe("done");
  });

  it("jane edits the marker out of her open notice the day before it is due: no second notice with a whole new grace, the share removed when due", async () => {
    await start(vendorsWorld());
    await run({ apply: true });
    const [first] = noticesOf("project:100:group:20");
    await editAs("jane", first!.iid, later(7.5), { description: withoutMarker(first!.description) });

    sim.requests.length = 0;
    const report = await run({ apply: true, now: later(8) });
    const project = report.actions.find((a) => a.kind === "project")!;
    // Keyed by the marker, it was no notice any more: a second one opened, due 2026-12-15, the edited one left open for ever.
    expect([project.status, project.notice?.dueDate]).toEqual(["done", "2026-12-07"]);
    expect(deletes()).toHaveLength(2);
  });

  it("jane reopens an old notice of hers that Warden closed and re-keys it to root's new share: root's share keeps its own notice's grace", async () => {
    await start(vendorsWorld());
    await run({ apply: true });
    const [old] = noticesOf("project:100:group:20");
    // Her shares come due and are removed; Warden closes their notices.
    await run({ apply: true, now: later(8) });
    expect(old!.state).toBe("closed");

    // Root shares acme/app with vendors: a new stray, with a notice of its own and a whole grace.
    setClock(later(10));
    await gitlabCall("root", "POST", "/projects/100/share", { group_id: 30, group_access: 30 }, 201);
    const noticed = await run({ apply: true, now: later(10) });
    expect(noticed.actions.map((a) => [a.status, a.notice?.dueDate])).toEqual([["noticed", "2026-12-17"]]);

    // Jane, a Guest, may reopen and edit the old notice assigned to her: its due date (2026-12-07) is long past.
    await editAs("jane", old!.iid, later(11), { state_event: "reopen", description: withoutMarker(old!.description, "<!-- warden-share: project:100:group:30 -->") });
    sim.requests.length = 0;
    const report = await run({ apply: true, now: later(11) });
    // Keyed by the marker, root's share was "done" at once, its own notice closed as a duplicate of jane's.
    expect(report.actions.map((a) => [a.status, a.notice?.dueDate])).toEqual([["pending", "2026-12-17"]]);
    expect(deletes()).toEqual([]);
  });

  it("jane closes her notice and re-keys it to a share not yet made: when root adds that share a week later it gets a notice and the whole grace", async () => {
    await start(vendorsWorld());
    await run({ apply: true });
    const [first] = noticesOf("project:100:group:20");
    // A closed issue is still editable by its assignee; the edit also keeps it inside the closed listing's window.
    await editAs("jane", first!.iid, later(1), { state_event: "close", description: withoutMarker(first!.description, "<!-- warden-share: project:100:group:30 -->") });

    setClock(later(10));
    await gitlabCall("root", "POST", "/projects/100/share", { group_id: 30, group_access: 30 }, 201);
    sim.requests.length = 0;
    const report = await run({ apply: true, now: later(10) });
    const vendors = report.actions.find((a) => a.group === "vendors")!;
    // Keyed by the marker, it was "done" at once: its grace counted from the opening of jane's notice of her own share.
    expect([vendors.status, vendors.notice?.dueDate]).toEqual(["noticed", "2026-12-17"]);
    expect(deletes().filter((d) => d.includes("/share/30"))).toEqual([]);
  });

  it("a notice an earlier Warden opened (a marker, no key label) stands for nothing: closed as replaced, its share given a labelled notice of its own", async () => {
    await start(vendorsWorld());
    await run({ apply: true });
    const [legacy] = noticesOf("project:100:group:20");
    legacy!.labels = legacy!.labels.filter((l) => !l.startsWith("warden-share::"));
    const report = await run({ apply: true, now: later(1) });
    const [, own] = noticesOf("project:100:group:20");
    expect(report.actions.find((a) => a.kind === "project")).toMatchObject({ status: "noticed", notice: { iid: own!.iid, dueDate: "2026-12-08" } });
    expect(own!.labels).toContain("warden-share::project:100:group:20");
    expect([legacy!.state, legacy!.labels.includes("warden-closed::by-warden")]).toEqual(["closed", true]);
    expect(legacy!.notes.map((n) => n.body)).toEqual([expect.stringMatching(/^Closed: an earlier Warden opened this notice without the label that names its share/)]);
    expect(report.notices?.closed).toEqual([expect.objectContaining({ iid: legacy!.iid, why: "opened by an earlier Warden without its share's label: replaced by a labelled notice", status: "done" })]);
  });

  // Keyed by its marker, jane's re-keyed legacy notice (the lower iid) stood for root's vendors share, removed on jane's date.
  it("a legacy notice re-keyed by its Guest assignee does not bring another team's share's removal forward", async () => {
    await start(vendorsWorld());
    await run({ apply: true });
    const [legacy] = noticesOf("project:100:group:20");
    expect(legacy!.due_date).toBe("2026-12-07");
    // As an earlier Warden opened it: the marker names its share, no key label.
    legacy!.labels = legacy!.labels.filter((l) => !l.startsWith("warden-share::"));

    // Root shares acme/app with vendors on day 3: a notice of its own, due 2026-12-10.
    setClock(later(3));
    await gitlabCall("root", "POST", "/projects/100/share", { group_id: 30, group_access: 30 }, 201);
    const noticed = await run({ apply: true, now: later(3) });
    expect(noticed.actions.find((a) => a.group === "vendors")).toMatchObject({ status: "noticed", notice: { dueDate: "2026-12-10" } });

    // Jane, a Guest and the legacy notice's assignee, points its marker at root's vendors share.
    setClock(later(4));
    const description = legacy!.description!.replace("project:100:group:20", "project:100:group:30");
    await gitlabCall("jane", "PUT", `/projects/${NOTICES}/issues/${legacy!.iid}`, { description });

    sim.requests.length = 0;
    const report = await run({ apply: true, now: later(8) });
    const vendors = report.actions.find((a) => a.group === "vendors")!;
    const janes = report.actions.find((a) => a.kind === "project" && a.group === "partners")!;
    // Root's vendors share keeps its own notice's date.
    expect([vendors.status, vendors.notice?.dueDate]).toEqual(["pending", "2026-12-10"]);
    expect(deletes().filter((d) => d.includes("/projects/100/share/30"))).toEqual([]);
    // Jane's share: the labelled notice of its own opened on day 3, when the legacy one was closed as replaced (one grace, once per legacy notice).
    expect([janes.status, janes.notice?.dueDate]).toEqual(["pending", "2026-12-10"]);
  });

  it("jane may not change a notice's labels or its due date: GitLab drops a Guest's metadata, and so does the simulator", async () => {
    await start(vendorsWorld());
    await run({ apply: true });
    const [first] = noticesOf("project:100:group:20");
    const labels = [...first!.labels];
    await editAs("jane", first!.iid, later(1), { add_labels: "warden-share::project:100:group:30", due_date: "2026-12-31", description: withoutMarker(first!.description) });
    expect([first!.labels, first!.due_date]).toEqual([labels, "2026-12-07"]);
  });
});
