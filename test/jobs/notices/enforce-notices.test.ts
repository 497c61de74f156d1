/**
 * onStray notify against the simulator (lib/jobs/notices/): a dry run plans notices and sends only
 * reads; an applying run opens one issue per stray share, the next finds it pending, a run past its due
 * date removes the share and closes the issue; a share removed by hand, a due date a person moved, two
 * runs at once, and hostile names.
 */
import { describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, exitCode, renderText, type AuditSink } from "../../../lib/jobs/index.ts";
import { markedKey } from "../../../lib/jobs/notices/marker.ts";
import { escapeMarkdown, renderMarkdown, renderSlack } from "../../../lib/jobs/render/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { deletes, gitlabCall, issues, later, NOTICES, open, POLICY, run, sim, start, T0, world, writes } from "../../support/notices-world.ts";
import { validated } from "../../support/report.ts";
import { outcome, recordingSteps } from "../../support/steps.ts";

describe("enforce with onStray notify", () => {
  it("a dry run plans one notice per stray share, due after the grace, and sends only GETs", async () => {
    await start();
    sim.requests.length = 0;
    const report = await run();
    expect(report.actions.map((a) => [a.kind, a.status, a.notice])).toEqual([
      ["project", "notify", { dueDate: "2026-12-07", daysLeft: 8 }],
      ["group", "notify", { dueDate: "2026-12-07", daysLeft: 8 }],
    ]);
    expect(report.summary.notices).toMatchObject({ toOpen: 2, opened: 0, pending: 0, due: 0 });
    expect(report.summary.guard).toBe("ok");
    expect(writes()).toEqual([]);
    expect(issues()).toEqual([]);
    expect(exitCode(report)).toBe(2);
    expect(renderText(report, { color: false })).toContain("Notices: 2 to open, 0 pending, 0 due (to remove).");
  });

  it("an applying run opens exactly one notice per stray share, assigned to the adder; the next opens none (pending); past the due date the share is removed and its notice closed", async () => {
    await start();
    const lines: [string, Record<string, unknown>][] = [];
    const audit: AuditSink = { info: (message, fields) => lines.push([message, fields]) };
    const first = await run({ apply: true, audit });
    expect(first.actions.map((a) => a.status)).toEqual(["noticed", "noticed"]);
    // Whose issues are Warden's is the token check's answer: the listings (before and after opening) ask no second time.
    expect(sim.requests.filter((r) => r.method === "GET" && r.url.split("?")[0]!.endsWith("/api/v4/user"))).toHaveLength(1);
    expect(deletes()).toEqual([]);
    expect(open()).toHaveLength(2);
    for (const issue of open()) {
      // The share in a label of its own: only Reporters and above change labels, not its assignee (marker.ts).
      expect(issue.labels).toEqual(["warden::notice", `warden-share::${markedKey(issue.description)}`, "access-review"]);
      expect(issue.due_date).toBe("2026-12-07");
      expect(issue.assignees.map((a) => a.username)).toEqual(["jane"]);
      expect(issue.confidential).toBe(true);
    }
    expect(open().map((i) => markedKey(i.description)).sort()).toEqual(["group:10:group:20", "project:100:group:20"]);
    expect(exitCode(first)).toBe(0);
    // In the order the answers came.
    expect(lines.map(([message, fields]) => `${message} ${fields["share"]} ${fields["outcome"]}`).sort()).toEqual(["open-notice group:10:group:20 done", "open-notice project:100:group:20 done"]);

    sim.requests.length = 0;
    const second = await run({ apply: true, now: later(3) });
    expect(second.actions.map((a) => [a.status, a.notice?.daysLeft])).toEqual([["pending", 5], ["pending", 5]]);
    expect(writes()).toEqual([]);
    expect(renderText(second, { color: false })).toContain("Notices: 0 opened, 2 pending (next due in 5 days), 0 due and removed.");

    sim.requests.length = 0;
    lines.length = 0;
    const due = await run({ apply: true, now: later(8), audit });
    expect(lines.map(([message]) => message).sort()).toEqual(["close-notice", "close-notice", "remove-group-share", "remove-group-share", "remove-share"]);
    expect(due.actions.map((a) => [a.status, a.notice?.closed])).toEqual([["done", true], ["done", true]]);
    expect(deletes()).toHaveLength(2);
    expect(open()).toEqual([]);
    for (const issue of issues()) expect(issue.notes.map((n) => n.body).join()).toMatch(/^Warden removed this share: the notice was due/);
    expect(due.summary.notices).toMatchObject({ due: 2, removed: 2 });
    expect(renderText(due, { color: false })).toContain("2 due and removed");
  });

  it("a share removed by hand: the next sweep closes its notice, the report saying why (the note does not: it would name what the token read)", async () => {
    await start();
    await run({ apply: true });
    await gitlabCall("jane", "DELETE", "/projects/100/share/20", undefined, 204);
    sim.requests.length = 0;
    const report = await run({ apply: true, now: later(1) });
    expect(report.actions.map((a) => [a.kind, a.status])).toEqual([["group", "pending"]]);
    expect(report.notices?.closed).toEqual([expect.objectContaining({ share: "project:100:group:20", status: "done", why: expect.stringMatching(/share of project acme\/app with group id 20 is gone/) })]);
    const closed = issues().find((i) => markedKey(i.description) === "project:100:group:20")!;
    expect(closed.state).toBe("closed");
    expect(closed.notes.at(-1)!.body).toBe("Closed: Warden no longer finds this share stray (the run's report says why). Nothing was removed.");
    expect(deletes()).toEqual([]);
  });

  it("a due date a person moved is read from the issue: the share stays until the new date", async () => {
    await start();
    await run({ apply: true });
    for (const issue of open()) await gitlabCall("jane", "PUT", `/projects/${NOTICES}/issues/${issue.iid}`, { due_date: "2026-12-31" });
    sim.requests.length = 0;
    const report = await run({ apply: true, now: later(10) });
    expect(report.actions.map((a) => [a.status, a.notice?.dueDate, a.notice?.daysLeft])).toEqual([["pending", "2026-12-31", 22], ["pending", "2026-12-31", 22]]);
    expect(writes()).toEqual([]);
  });

  it("a due date that is no calendar day (a hostile or broken server) is no due date: pending, never removed, never in the report", async () => {
    await start();
    await run({ apply: true });
    // GitLab refuses such a date on write; a server in between may still answer one.
    for (const issue of open()) issue.due_date = "2026-12-01<script>";
    sim.requests.length = 0;
    const report = await run({ apply: true, now: later(30) });
    expect(report.actions.map((a) => [a.status, a.notice?.dueDate, a.notice?.daysLeft])).toEqual([["pending", null, null], ["pending", null, null]]);
    expect(writes()).toEqual([]);
  });

  it("two applying runs at once leave exactly one open notice per share", async () => {
    await start();
    await Promise.all([run({ apply: true }), run({ apply: true })]);
    const keys = open().map((i) => markedKey(i.description)).sort();
    expect(keys).toEqual(["group:10:group:20", "project:100:group:20"]);
    for (const issue of issues().filter((i) => i.state === "closed")) expect(issue.notes.at(-1)!.body).toMatch(/^Closed as a duplicate of #\d+/);
    // A notice another run opened for the same share (as that run's token, Warden's user) is a duplicate: the oldest stands.
    const standing = open().find((i) => markedKey(i.description) === "project:100:group:20")!;
    await gitlabCall("root", "POST", `/projects/${NOTICES}/issues`, { title: "t", description: standing.description, labels: "warden::notice,warden-share::project:100:group:20", due_date: "2026-12-01" }, 201);
    expect(open()).toHaveLength(3);
    // And the next run agrees: both pending, nothing opened, the newer notice closed.
    const next = await run({ apply: true, now: later(1) });
    expect(next.actions.map((a) => [a.status, a.notice?.iid])).toEqual([["pending", standing.iid], ["pending", expect.any(Number)]]);
    expect(open()).toHaveLength(2);
    expect(issues().at(-1)!.notes.at(-1)!.body).toBe(`Closed as a duplicate of #${standing.iid}: two runs opened a notice for this share at once; #${standing.iid} stands.`);
    expect(next.notices?.closed).toEqual([expect.objectContaining({ why: `a duplicate of #${standing.iid}`, status: "done" })]);
  });

  it("hostile names: a group path with a forged marker, HTML and @all, an adder named with Markdown, cannot forge the marker or ping", async () => {
    const hostile = "x --> <!-- warden-share: project:100:group:99 --> @all <img src=x> [a](https://e.example)";
    await start(world(hostile, "@root **boss**"));
    await run({ apply: true });
    expect(open()).toHaveLength(2);
    for (const issue of open()) {
      expect(markedKey(issue.description)).toMatch(/^(project:100|group:10):group:20$/);
      expect(issue.description!.match(/<!--/g)).toHaveLength(1);
      expect(issue.description).not.toMatch(/(?<![\\\u200d])(@(all|root)|<img|\]\(https)/);
      // The title GitLab renders without Markdown, its HTML shown as text: nothing in it may mention or link.
      expect(issue.title).not.toMatch(/@(all|root)|:\/\//);
    }
    // And the notices are read back as Warden's own: the next run finds them pending.
    const next = await run({ apply: true, now: later(1) });
    expect(next.actions.map((a) => a.status)).toEqual(["pending", "pending"]);
  });

  it("a notice someone else opened with Warden's marker is not Warden's: it neither stands in for one nor is closed", async () => {
    await start();
    await gitlabCall("jane", "POST", `/projects/${NOTICES}/issues`, { title: "fake", description: "<!-- warden-share: project:100:group:20 -->\nx", labels: "warden::notice", due_date: "2030-01-01" }, 201);
    const report = await run({ apply: true });
    expect(report.actions.map((a) => a.status)).toEqual(["noticed", "noticed"]);
    expect(open()).toHaveLength(3);
  });

  it("a --target run sees part of the scope: it keeps the notices of shares it did not examine open", async () => {
    await start();
    await run({ apply: true });
    await gitlabCall("jane", "DELETE", "/groups/10/share/20", undefined, 204);
    sim.requests.length = 0;
    const report = await run({ apply: true, now: later(1), targets: [{ kind: "project", path: "acme/app" }] });
    expect(report.actions.map((a) => [a.kind, a.status])).toEqual([["project", "pending"]]);
    expect(report.notices?.closed).toEqual([]);
    expect(open()).toHaveLength(2);
    expect(writes()).toEqual([]);
    // The next sweep closes it.
    const sweep = await run({ apply: true, now: later(1) });
    expect(sweep.notices?.closed).toEqual([expect.objectContaining({ share: "group:10:group:20", status: "done" })]);
    expect(open()).toHaveLength(1);
  });

  it("a group GitLab fails to answer for (its detail a 500 every time) is not examined: it closes no notice, though a share went by hand", async () => {
    await start().then(() => run({ apply: true }));
    await gitlabCall("jane", "DELETE", "/projects/100/share/20", undefined, 204);
    sim.addFaults({ kind: "status", status: 500, method: "GET", path: "/api/v4/groups/10", times: 1_000_000 });
    const report = await run({ apply: true, now: later(1) });
    expect(report.unexamined).toMatchObject([{ kind: "group", id: 10, projects: "not examined" }]);
    expect([report.notices?.closed, open().length]).toEqual([[], 2]);
  });

  it("the guard bounds the notices a run opens: more than gitlab.guard.maxRemovals opens none", async () => {
    await start();
    const report = await run({ apply: true, policy: POLICY.replace("maxRemovals: 100", "maxRemovals: 1") });
    expect(report.summary.guard).toBe("tripped");
    expect(report.warnings.join("\n")).toContain("guard: 2 notices to open, more than gitlab.guard.maxRemovals (1)");
    expect(issues()).toEqual([]);
    expect(exitCode(report)).toBe(3);
  });

  it("a notices project that does not exist: a warning, the strays held (no notice to open), nothing removed or written", async () => {
    await start();
    sim.requests.length = 0;
    const report = await run({ apply: true, policy: POLICY.replace("security/access-notices", "security/no-such-project") });
    expect(report.actions.map((a) => [a.status, a.notice])).toEqual([["pending", undefined], ["pending", undefined]]);
    expect(report.warnings.join("\n")).toContain("gitlab.shares.notices.project: project security/no-such-project was not found, or the token cannot read it");
    expect(writes()).toEqual([]);
    expect(exitCode(report)).toBe(1);
  });

  it("onStray turned to report closes the notices (no removal follows); turned to remove, the share is removed and its notice closed", async () => {
    await start();
    await run({ apply: true });
    const reportOnly = POLICY.replace("  scope: { groups: [acme] }", "  scope:\n    groups: [acme]\n    overrides: [{ group: acme/app, onStray: report }]");
    const reported = await run({ apply: true, now: later(1), policy: reportOnly });
    expect(reported.actions.map((a) => [a.kind, a.status])).toEqual([["project", "reported"], ["group", "pending"]]);
    expect(reported.notices?.closed).toEqual([expect.objectContaining({ share: "project:100:group:20", why: expect.stringContaining("onStray is now report"), status: "done" })]);
    expect(deletes()).toEqual([]);
    const removeNow = await run({ apply: true, now: later(1), policy: POLICY.replace("onStray: notify", "onStray: remove") });
    expect(removeNow.actions.map((a) => [a.kind, a.status, a.notice?.closed])).toEqual([["project", "done", undefined], ["group", "done", true]]);
    expect(open()).toEqual([]);
  });

  // The attempt again reads what the crashed one opened: no POST that may have arrived is sent again (it opened
  // every notice a second time, each assigned and notifying the adder, and then closed the copies).
  it("durable steps: a \"write notices\" step whose invocation died after opening its notices is attempted again, opens none again, and one notice per share stands", async () => {
    await start();
    const steps = recordingSteps({ sliceMs: 10_000, perStep: 100, crash: ["write notices"] });
    const gitlab = new GitLabClient({ url: sim.url, token: "root", limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
    const report = await validated(enforce({ gitlab, policy: parsePolicy(POLICY, "warden.yaml"), apply: true, now: T0 }, steps));
    expect(steps.names.filter((n) => n.includes("notices"))).toEqual(["notices", "write notices"]);
    expect(steps.crashed).toEqual(["write notices"]);
    expect(open().map((i) => markedKey(i.description)).sort()).toEqual(["group:10:group:20", "project:100:group:20"]);
    expect(issues()).toHaveLength(2);
    // The notices that stand are the first attempt's, which the report names.
    expect(report.actions.map((a) => a.notice?.iid).sort()).toEqual(open().map((i) => i.iid).sort());
  });

  it("durable steps: the strays' notice states are recorded perStep strays a step (\"notices\", \"notices 2\"), and the plan is that of a run in one go", async () => {
    await start();
    const whole = await run();
    const steps = recordingSteps({ sliceMs: 10_000, perStep: 1 });
    const recorded = new Map<string, unknown>();
    const step = steps.step.bind(steps);
    steps.step = async (name, work, opts) => {
      const result = await step(name, work, opts);
      recorded.set(name, result);
      return result;
    };
    const gitlab = new GitLabClient({ url: sim.url, token: "root", limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
    const stepped = await validated(enforce({ gitlab, policy: parsePolicy(POLICY, "warden.yaml"), now: T0 }, steps));
    const parts = [...recorded].filter(([name]) => name.startsWith("notices")).map(([name, result]) => [name, Object.keys((result as { states?: object }).states ?? {}).length + ((result as { part?: unknown[] }).part?.length ?? 0)]);
    expect(parts).toEqual([["notices", 1], ["notices 2", 1]]);
    expect(stepped.actions.map((a) => [a.status, a.notice])).toEqual(whole.actions.map((a) => [a.status, a.notice]));
    expect(stepped.actions.map((a) => a.status)).toEqual(["notify", "notify"]);
  });

  it("durable steps: a duplicate notice to close in a later part, found again by an earlier part's read, is closed once", async () => {
    await start();
    await run({ apply: true });
    const standing = open().find((i) => markedKey(i.description) === "project:100:group:20")!;
    await gitlabCall("root", "POST", `/projects/${NOTICES}/issues`, { title: "t", description: standing.description, labels: "warden::notice,warden-share::project:100:group:20", due_date: "2026-12-01" }, 201);
    // A third stray: the first part opens its notice, then reads the notices again and finds the duplicate, the second part's to close.
    await gitlabCall("jane", "POST", "/projects/100/share", { group_id: 40, group_access: 30 }, 201);
    const steps = recordingSteps({ sliceMs: 10_000, perStep: 1 });
    const gitlab = new GitLabClient({ url: sim.url, token: "root", limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
    const report = await validated(enforce({ gitlab, policy: parsePolicy(POLICY, "warden.yaml"), apply: true, now: later(1) }, steps));
    expect(steps.names.filter((n) => n.startsWith("write notices"))).toEqual(["write notices", "write notices 2"]);
    expect(report.notices?.closed).toEqual([expect.objectContaining({ why: `a duplicate of #${standing.iid}`, status: "done" })]);
    const duplicate = issues().at(-2)!;
    expect(duplicate.state).toBe("closed");
    expect(duplicate.notes.map((n) => n.body)).toEqual([`Closed as a duplicate of #${standing.iid}: two runs opened a notice for this share at once; #${standing.iid} stands.`]);
  });

  it("durable steps: the notices to close are recorded in the parts of \"notices\" too, perStep entries a step whatever their kind", async () => {
    await start();
    await run({ apply: true });
    // Both strays now only reported: two states, and two notices to close.
    const reportAll = POLICY.replace("onStray: notify", "onStray: report");
    const whole = await run({ now: later(1), policy: reportAll });
    expect(whole.notices?.closed).toHaveLength(2);
    const steps = recordingSteps({ sliceMs: 10_000, perStep: 1 });
    const recorded: [string, number][] = [];
    const step = steps.step.bind(steps);
    steps.step = async (name, work, opts) => {
      const result = await step(name, work, opts);
      const r = result as { states?: object; closures?: unknown[]; part?: unknown[] };
      if (/^notices( \d+)?$/.test(name)) recorded.push([name, Object.keys(r.states ?? {}).length + (r.closures?.length ?? 0) + (r.part?.length ?? 0)]);
      return result;
    };
    const gitlab = new GitLabClient({ url: sim.url, token: "root", limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
    const stepped = await validated(enforce({ gitlab, policy: parsePolicy(reportAll, "warden.yaml"), now: later(1) }, steps));
    expect(recorded).toEqual([["notices", 1], ["notices 2", 1], ["notices 3", 1], ["notices 4", 1]]);
    expect(outcome(stepped)).toEqual(outcome(whole));
    expect(stepped.notices).toEqual(whole.notices);
  });

  it("durable steps: the notices opened and closed are recorded perStep a step (\"write notices\", \"write notices 2\", …), each step opening only its own", async () => {
    await start();
    const gitlab = new GitLabClient({ url: sim.url, token: "root", limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
    /** Runs enforce in steps of one stray each; the sizes of the "write notices" steps' records, and the pauses between them. */
    const stepped = async (policy: string, now: Date, sliceMs: number) => {
      const steps = recordingSteps({ sliceMs, perStep: 1 });
      const written: [string, number][] = [];
      const step = steps.step.bind(steps);
      steps.step = async (name, work, opts) => {
        const result = await step(name, work, opts);
        const r = result as { states?: object; closures?: unknown[] };
        if (name.startsWith("write notices")) written.push([name, Object.keys(r.states ?? {}).length + (r.closures?.length ?? 0)]);
        return result;
      };
      const report = await validated(enforce({ gitlab, policy: parsePolicy(policy, "warden.yaml"), apply: true, now }, steps));
      return { report, written, paused: steps.paused.filter((name) => name.includes("notices")) };
    };
    const first = await stepped(POLICY, T0, 10_000);
    expect(first.report.actions.map((a) => a.status)).toEqual(["noticed", "noticed"]);
    expect(first.written).toEqual([["write notices", 1], ["write notices 2", 1]]);
    expect(first.paused).toEqual([]);
    expect(open()).toHaveLength(2);
    expect(issues()).toHaveLength(2);

    // The project's stray now only reported (its notice closed as a closure), the group's removed at once (its notice closed with the removal).
    const reportProject = POLICY.replace("  scope: { groups: [acme] }", "  scope:\n    groups: [acme]\n    overrides: [{ group: acme/app, onStray: report }]").replace("onStray: notify", "onStray: remove");
    const second = await stepped(reportProject, later(1), 0);
    expect(second.report.actions.map((a) => [a.kind, a.status, a.notice?.closed])).toEqual([["project", "reported", undefined], ["group", "done", true]]);
    expect(second.report.notices?.closed).toEqual([expect.objectContaining({ share: "project:100:group:20", status: "done" })]);
    expect(second.written).toEqual([["write notices", 1], ["write notices 2", 1]]);
    // A part that spent its slice ends the invocation before the next (recorded with the part, so a replay pauses there too).
    expect(second.paused).toEqual(["wrote notices 1"]);
    expect(open()).toEqual([]);
  });

  it("the reports: Markdown closes with the notices line, Slack names the shares due within a day", async () => {
    await start();
    await run({ apply: true });
    const report = await run({ apply: true, now: later(7) });
    expect(report.actions.map((a) => [a.status, a.notice?.daysLeft])).toEqual([["pending", 1], ["pending", 1]]);
    expect(renderMarkdown(report)).toContain(escapeMarkdown("Notices: 0 opened, 2 pending (next due tomorrow), 0 due and removed."));
    const slack = JSON.stringify(renderSlack(report).blocks);
    expect(slack).toContain("Notices: 0 opened, 2 pending (next due tomorrow), 0 due and removed. Due within a day: 2 shares");
    expect(slack).toContain(`project acme/app shared with partners: notice #${report.actions[0]!.notice!.iid}, due 2026-12-07`);
    const earlier = JSON.stringify(renderSlack(await run({ now: later(1) })).blocks);
    expect(earlier).toContain("Notices: 0 to open, 2 pending (next due in 7 days), 0 due (to remove).");
    expect(earlier).not.toContain("Due within a day");
  });

  it("a notice whose POST arrived but whose answer was lost is not sent again: the run reports it failed, and the next finds it pending", async () => {
    await start();
    sim.addFaults({ kind: "apply-then-drop", route: "POST /projects/:id/issues", times: 1 });
    const first = await run({ apply: true });
    expect(first.actions.map((a) => a.status).sort()).toEqual(["failed", "noticed"]);
    expect(first.actions.find((a) => a.status === "failed")!.error).toMatch(/^opening its notice: /);
    expect(exitCode(first)).toBe(1);
    expect(issues()).toHaveLength(2);
    const next = await run({ apply: true, now: later(1) });
    expect(next.actions.map((a) => a.status)).toEqual(["pending", "pending"]);
    expect(issues()).toHaveLength(2);
  });

  it("a notices listing that fails: a warning, and no share under notify removed, even one whose notice is due", async () => {
    await start();
    await run({ apply: true });
    sim.addFaults({ kind: "status", status: 500, route: "GET /projects/:id/issues", times: 100 });
    sim.requests.length = 0;
    const report = await run({ apply: true, now: later(30) });
    expect(report.warnings.join("\n")).toContain("gitlab.shares.notices.project: project security/access-notices could not be listed");
    expect(deletes()).toEqual([]);
    expect(writes()).toEqual([]);
    expect(open()).toHaveLength(2);
  });
});
