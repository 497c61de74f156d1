/**
 * An applying run under onStray notify that removes due shares and opens a new notice,
 * where GitLab fails the re-read of the open notices that follows the opening (the one read that checks
 * for a second run's duplicate). The removals and the notice are made; the report of them was lost (the
 * run threw), and a durable step was attempted again, opening every notice again.
 */
import { describe, expect, it } from "vitest";
import { markedKey } from "../../../lib/jobs/notices/marker.ts";
import { gitlabCall, issues, later, run, sim, start, world } from "../../support/notices-world.ts";

describe("the re-read of the open notices after opening one fails", () => {
  it("the run still returns its report, naming the removals it made and the notice it opened, with a warning, rather than throwing them away", async () => {
    const dataset = world();
    dataset.projects.push({ id: 101, name: "web", path: "web", path_with_namespace: "acme/web", namespace_id: 10, shared_with_groups: [], default_branch: "main", branches: ["main"], archived: false, previous_paths: [] });
    await start(dataset);
    // Day 0: two notices opened (acme/app's and acme's shares with partners).
    await run({ apply: true });
    expect(issues()).toHaveLength(2);
    // A new stray share: the run 8 days later removes the two due ones and opens one notice.
    await gitlabCall("jane", "POST", "/projects/101/share", { group_id: 20, group_access: 30 }, 201);
    // The first listing of the open notices is answered; every later one (the re-read after opening) fails.
    sim.addFaults(
      { kind: "delay", ms: 0, route: "GET /projects/:id/issues", query: { state: "opened" }, times: 1 },
      { kind: "status", status: 500, route: "GET /projects/:id/issues", query: { state: "opened" }, times: 1_000_000 },
    );
    const lines: Record<string, unknown>[] = [];
    const outcome = await run({ apply: true, now: later(8), audit: { info: (message, fields) => lines.push({ message, ...fields }) } }).then(
      (report) => ({ report }),
      (error: unknown) => ({ error: String(error) }),
    );

    // What GitLab now holds: the two shares removed, a third notice opened.
    expect(issues().filter((i) => markedKey(i.description) === "project:101:group:20")).toHaveLength(1);
    expect(lines.filter((l) => (l["message"] === "remove-share" || l["message"] === "remove-group-share") && !l["confirmation"])).toHaveLength(2);
    // The report of those changes (what `restore` and `restore latest` read) must come back.
    expect("error" in outcome ? outcome.error : "a report", "the run threw away the report of what it changed").toBe("a report");
    const { report } = outcome as { report: Awaited<ReturnType<typeof run>> };
    expect(report.warnings.join("\n")).toMatch(/notice/);
    expect(report.summary.removed).toBe(2);
    expect(report.actions.find((a) => a.kind === "project" && a.projectId === 101)).toMatchObject({ status: "noticed" });
  });
});
