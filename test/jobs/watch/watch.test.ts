/**
 * The watch's poll (lib/jobs/watch) against the simulator's audit events: shares made while it runs
 * are removed at the next poll and attributed; the cursor starts at the newest event (no replay) and
 * moves past handled events only; a subject outside the scope, an instance without audit events, a
 * polling cost above the policy's limit, and the guard per batch.
 */
import { describe, expect, it } from "vitest";
import { exitCode } from "../../../lib/jobs/index.ts";
import { cursorFor, EVENTS_PER_POLL, MAX_ATTEMPTS, pollOnce, secondsToRemoval, watchSources, WatchError, type WatchCursor } from "../../../lib/jobs/watch/index.ts";
import { retriesAfter } from "../../../lib/jobs/watch/retries.ts";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { scriptedServer } from "../../support/server.ts";
import type { GitLabSim } from "../../../sim/gitlab/index.ts";
import { validReport } from "../../support/report.ts";
import { begin, sim, start } from "../../support/watch-sim.ts";
import { allShares, client, IDS, share, WATCH_TOKENS, watchPolicy, watchWorld } from "../../support/watch-world.ts";


const nonGet = () => Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "));

describe("watch: one poll", () => {
  it("an administrator reads the instance's events: shares made after the start are removed and attributed, earlier ones are not replayed, and the cursor moves past them", async () => {
    await start();
    await share(sim, "jane", `/projects/${IDS.api}/share`, IDS.partners); // before the watch starts: the sweep's
    const w = await begin("root");
    expect(w.sources.map((s) => s.key)).toEqual(["instance"]);
    expect(w.statement).toMatch(/GET \/audit_events\) every 60s: at least 60 requests an hour/);
    expect(w.cursor.sources["instance"]).toEqual({ id: sim.auditEvents.at(-1)!.id, at: sim.auditEvents.at(-1)!.created_at });

    await share(sim, "jane", `/groups/${IDS.acme}/share`, IDS.partners);
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.other);
    const made = sim.auditEvents.slice(-3);
    const first = await pollOnce({ ...w, apply: true });
    const report = validReport(first.report!);
    expect(report.events.map((e) => e.id)).toEqual(made.map((e) => e.id));
    expect(report.events.map((e) => e.subject)).toEqual([`group:${IDS.acme}`, `project:${IDS.app}`, `project:${IDS.app}`]);
    expect(report.actions.map((a) => [a.kind, a.groupId, a.status, a.addedBy?.username])).toEqual([
      ["project", IDS.other, "done", "jane"],
      ["project", IDS.partners, "done", "jane"],
      ["group", IDS.partners, "done", "jane"],
    ]);
    // Only the subjects named: the share made before the start is still there.
    expect(allShares(sim)).toEqual([`p${IDS.api}:${IDS.partners}`]);
    expect(first).toMatchObject({ moved: true, cursor: { sources: { instance: { id: made.at(-1)!.id } } } });
    expect(exitCode(report)).toBe(0);
    expect(secondsToRemoval(report)).toHaveLength(3);
    for (const s of secondsToRemoval(report)) expect(s).toBeGreaterThanOrEqual(0);

    // The next poll starts past them: nothing new, nothing run (its own removals' events name no subject).
    sim.resetCounters();
    const second = await pollOnce({ ...w, cursor: first.cursor, apply: true });
    expect(second.report).toBeUndefined();
    expect(sim.counters.byRoute).toEqual({ "GET /audit_events": 1 });
  });

  it("a share outside the scope is left alone without a run; a dry poll sends only GETs and still moves the cursor", async () => {
    await start();
    const w = await begin("root");
    await share(sim, "olga", `/projects/${IDS.tool}/share`, IDS.partners);
    sim.resetCounters();
    const outside = await pollOnce({ ...w });
    expect(outside.report).toBeUndefined();
    expect(outside.ignored).toEqual([`event ${sim.auditEvents.at(-1)!.id} (project_group_link_created) names other/tool, outside the policy's scope: left alone`]);
    expect(outside.moved).toBe(true);
    expect(sim.counters.byRoute).toEqual({ "GET /audit_events": 1 });

    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    sim.resetCounters();
    const dry = await pollOnce({ ...w, cursor: outside.cursor });
    expect(nonGet()).toEqual([]);
    expect(validReport(dry.report!).actions.map((a) => a.status)).toEqual(["planned"]);
    expect(dry.report!.dryRun).toBe(true);
    expect(exitCode(dry.report!)).toBe(2);
    expect(dry.cursor.sources["instance"]!.id).toBe(sim.auditEvents.at(-1)!.id);
    expect(allShares(sim)).toEqual([`p${IDS.app}:${IDS.partners}`, `p${IDS.tool}:${IDS.partners}`]);
  });

  it("a project transferred into the scope keeps its shares: its project_namespace_updated names it, and its stray share is removed at the next poll", async () => {
    await start();
    await share(sim, "olga", `/projects/${IDS.tool}/share`, IDS.partners); // outside the scope: nobody's business yet
    const w = await begin("root");
    sim.moveProject(IDS.tool, IDS.acme, "jane");
    const polled = await pollOnce({ ...w, apply: true });
    expect(polled.report!.events).toMatchObject([{ name: "project_namespace_updated", subject: `project:${IDS.tool}`, path: "acme/tool" }]);
    expect(polled.report!.actions).toMatchObject([{ projectId: IDS.tool, project: "acme/tool", groupId: IDS.partners, status: "done" }]);
    expect(allShares(sim)).toEqual([]);
  });

  it("a group Owner reads each scope group's own events: a group share is enforced; a project share is recorded on the outside group it invites, so the watch does not see it", async () => {
    await start();
    const w = await begin("jane");
    expect(w.sources.map((s) => s.key)).toEqual([`group:${IDS.acme}`, `group:${IDS.team}`]);
    expect(w.statement).toMatch(/the audit events of 2 groups \(each scope group and its subgroups\) every 60s: at least 120 requests an hour/);
    await share(sim, "jane", `/groups/${IDS.team}/share`, IDS.partners);
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    const polled = await pollOnce({ ...w, apply: true });
    expect(polled.report!.actions.map((a) => [a.kind, a.groupId, a.status])).toEqual([["group", IDS.partners, "done"]]);
    expect(allShares(sim)).toEqual([`p${IDS.app}:${IDS.partners}`]);
  });

  it("the guard holds per batch: a batch planning more than maxRemovals removes nothing, says so, and moves on", async () => {
    await start();
    const w = await begin("root", watchPolicy({ maxRemovals: 1 }));
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    await share(sim, "jane", `/projects/${IDS.api}/share`, IDS.partners);
    sim.resetCounters();
    const polled = await pollOnce({ ...w, apply: true });
    expect(polled.report!.summary.guard).toBe("tripped");
    expect(nonGet()).toEqual([]);
    expect(allShares(sim)).toHaveLength(2);
    expect(polled.moved).toBe(true);
    expect(polled.report!.warnings.join("\n")).toMatch(/guard tripped: the subjects of events \d+, \d+ were left as they are/);
    expect(exitCode(polled.report!)).toBe(3);
  });

  it("a stopped batch moves the cursor and keeps its subjects for another try at the next poll", async () => {
    await start();
    const w = await begin("root");
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    const stop = new AbortController();
    // Stopped as the removal goes out: the batch is not handled.
    sim.beforeAnswer((req) => void (req.method === "DELETE" && stop.abort(new Error("SIGTERM"))));
    const stopped = await pollOnce({ ...w, apply: true, signal: stop.signal });
    expect(stopped.moved).toBe(true);
    expect(stopped.cursor.sources["instance"]!.id).toBe(sim.auditEvents.at(-1)!.id);
    expect(stopped.cursor.retries).toEqual({ [`project:${IDS.app}`]: 1 });
    expect(stopped.report!.warnings.join("\n")).toMatch(/tried again at the next poll .*project:100 \(attempt 2 of 3\)/);
    // Enforced again with no new event (the DELETE cut off had reached GitLab: nothing left to remove).
    const again = await pollOnce({ ...w, cursor: stopped.cursor, apply: true });
    expect(again.report!.events).toEqual([]);
    expect(again.report!.summary).toMatchObject({ projects: 1, complete: true });
    expect(again.cursor.retries).toEqual({});
    expect(allShares(sim)).toEqual([]);
  });
});

describe("watch: deduplication", () => {
  it("an event listed twice (pages that shift while read) counts once, and the listing stops at the cursor", async () => {
    const event = (id: number) => ({ id, author_id: 5, entity_id: 1, entity_type: "User", event_name: "user_logged_in", details: {}, created_at: "2026-11-27T05:00:00Z" });
    const server = await scriptedServer((req, res) => {
      const asked = new URL(req.url, "http://x").searchParams;
      const page = asked.get("id_before");
      // GitLab's link keeps the request's parameters, its window's bounds among them.
      asked.set("id_before", "4");
      const link = page ? {} : { link: `<${server.url}/api/v4/audit_events?${asked}>; rel="next"` };
      res.writeHead(200, { "content-type": "application/json", ...link });
      res.end(JSON.stringify(page ? [event(4), event(3), event(2)] : [event(5), event(4)]));
    });
    // (scriptedServer closes it after the test.)
    const gitlab = client({ url: server.url } as GitLabSim, "root");
    const polled = await pollOnce({ gitlab, policy: watchPolicy(), sources: [{ key: "instance", source: { kind: "instance" }, label: "the instance" }], cursor: { version: 2, sources: { instance: { id: 2, at: "2026-11-27T05:00:00Z" } }, retries: {} } });
    expect(polled).toMatchObject({ read: 3, moved: true, cursor: { sources: { instance: { id: 5 } } } });
    expect(polled.report).toBeUndefined();
    expect(server.received.map((r) => new URL(r.url, server.url).searchParams.get("id_before"))).toEqual([null, "4"]);
  });

  it("events naming one subject make one target, each event listed", async () => {
    await start();
    const w = await begin("root");
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.other);
    const polled = await pollOnce({ ...w });
    expect(polled.report!.events.map((e) => e.subject)).toEqual([`project:${IDS.app}`, `project:${IDS.app}`]);
    expect(polled.report!.summary).toMatchObject({ projects: 1, strays: 2 });
  });
});

describe("watch: refusals before anything changes", () => {
  it.each([403, 404] as const)("GitLab Free (audit events answer %i): the watch refuses, naming the tier, and changes nothing", async (status) => {
    await start({ tier: "free", freeAuditStatus: status });
    const gitlab = client(sim, "root");
    const { sources } = await watchSources(gitlab, watchPolicy(), 60_000);
    const refused = cursorFor(gitlab, sources, undefined);
    await expect(refused).rejects.toThrow(WatchError);
    await expect(refused).rejects.toThrow(new RegExp(`answered ${status}.*GitLab Free does not have.*nothing was changed`));
    const cursor: WatchCursor = { version: 2, sources: { instance: { id: 0 } }, retries: {} };
    await expect(pollOnce({ gitlab, policy: watchPolicy(), sources, cursor, apply: true })).rejects.toThrow(/GitLab Free/);
    expect(nonGet()).toEqual([]);
  });

  it("a polling cost above gitlab.watch.maxRequestsPerHour for even one group is refused before any audit event is read", async () => {
    await start();
    await expect(watchSources(client(sim, "jane"), watchPolicy({ maxRequestsPerHour: 50 }), 60_000)).rejects.toThrow(
      /reading even one group's audit events every 60s is more than gitlab.watch.maxRequestsPerHour \(50\) allows; nothing was read or changed/,
    );
    expect(Object.keys(sim.counters.byRoute).filter((r) => r.includes("audit"))).toEqual([]);
  });
});

describe("watch: a scope of very many groups", () => {
  it("a group Owner's watch over hundreds of subgroups watches the oldest the limit allows, the scope group first, and says the rest are left to the sweep, after a page of them", async () => {
    const world = watchWorld();
    const acme = world.groups.find((g) => g.full_path === "acme")!;
    // Named to come first by name: listed by name, they would push the older groups out of the watch.
    for (let i = 0; i < 350; i++) world.groups.push({ ...acme, id: 1_000 + i, name: `aaa-${i}`, path: `aaa-${i}`, full_path: `acme/aaa-${i}`, parent_id: acme.id, owners: [] });
    await start({ dataset: world });
    const subgroups = world.groups.filter((g) => g.parent_id === acme.id).sort((a, b) => a.id - b.id);
    // 180 requests an hour at one a minute: three groups at most.
    const watched = await watchSources(client(sim, "jane"), watchPolicy({ maxRequestsPerHour: 180 }), 60_000);
    expect(watched.sources.map((s) => s.label)).toEqual(["acme", ...subgroups.slice(0, 2).map((g) => g.full_path)]);
    expect(watched.partial).toBe(true);
    expect(watched.statement).toMatch(/^watching the audit events of 3 groups \(each scope group and its subgroups, the oldest\) every 60s: at least 180 requests an hour \(gitlab.watch.maxRequestsPerHour: 180\)\. The scope has more groups than the limit allows: the newer ones are not watched, and their shares are left to the scheduled sweep/);
    expect(sim.counters.byRoute["GET /groups/:id/descendant_groups"]).toBe(1);
    expect(sim.requests.find((r) => r.url.includes("/descendant_groups"))!.url).toContain("order_by=id&sort=asc");
  });

  it("one subgroup more than the limit allows does not turn the watch off: the groups watched before stay watched", async () => {
    await start();
    // As many groups a minute as the scope has: the limit is met exactly.
    const limit = (await watchSources(client(sim, "jane"), watchPolicy(), 60_000)).sources.length * 60;
    const before = await watchSources(client(sim, "jane"), watchPolicy({ maxRequestsPerHour: limit }), 60_000);
    expect(before.partial).toBeUndefined();
    // A Maintainer creates one subgroup more (named to come first by name).
    const world = watchWorld();
    const acme = world.groups.find((g) => g.full_path === "acme")!;
    world.groups.push({ ...acme, id: 9_000, name: "aaa-scratch", path: "aaa-scratch", full_path: "acme/aaa-scratch", parent_id: acme.id, owners: [] });
    await start({ dataset: world });
    const after = await watchSources(client(sim, "jane"), watchPolicy({ maxRequestsPerHour: limit }), 60_000);
    expect(after.partial).toBe(true);
    expect(after.sources).toEqual(before.sources);
  });
});

describe("watch: on a bad day (issue 29)", () => {
  const deleteOf = (project: number, group: number) => `/api/v4/projects/${project}/share/${group}`;
  const polls = async (w: Awaited<ReturnType<typeof begin>>, n: number, opts: Partial<Parameters<typeof pollOnce>[0]> = {}) => {
    const results = [];
    let cursor = w.cursor;
    for (let i = 0; i < n; i++) {
      const polled = await pollOnce({ ...w, cursor, apply: true, ...opts });
      results.push(polled);
      cursor = polled.cursor;
    }
    return results;
  };
  const failedIn = (polled: { report?: { actions: { status: string; kind: string; groupId: number }[] } }) => (polled.report?.actions ?? []).filter((a) => a.status === "failed");

  it("a share whose removal GitLab refuses every time (403) is reported once and passed; the strays made after it are removed at the next poll", async () => {
    await start({ faults: [{ kind: "status", status: 403, method: "DELETE", path: deleteOf(IDS.app, IDS.partners), times: 1_000 }] });
    const w = await begin("root");
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    const [refused] = await polls(w, 1);
    expect(failedIn(refused!)).toMatchObject([{ kind: "project", groupId: IDS.partners, lasting: true }]);
    expect(refused!.report!.warnings.join("\n")).toMatch(/not tried again: the share of project acme\/app with group partners \(DELETE \S+ answered 403/);
    expect(refused!.cursor.retries).toEqual({});
    // Later strays, poll after poll: each removed at the next poll, the refused one never again in a report.
    let cursor = refused!.cursor;
    const later: Array<[string, number]> = [[`/projects/${IDS.api}/share`, IDS.partners], [`/groups/${IDS.team}/share`, IDS.partners], [`/projects/${IDS.api}/share`, IDS.other]];
    for (const [path, group] of later) {
      await share(sim, "jane", path, group);
      const polled = await pollOnce({ ...w, cursor, apply: true });
      expect(polled.report!.actions.map((a) => [a.status, a.kind === "project" ? a.projectId : a.sharedGroupId, a.groupId])).toEqual([["done", path.includes("groups") ? IDS.team : IDS.api, group]]);
      cursor = polled.cursor;
    }
    expect(allShares(sim)).toEqual([`p${IDS.app}:${IDS.partners}`]);
    // And the poll after that reads one page and runs nothing.
    sim.resetCounters();
    expect((await pollOnce({ ...w, cursor, apply: true })).report).toBeUndefined();
    expect(sim.counters.byRoute).toEqual({ "GET /audit_events": 1 });
  });

  it("a group share GitLab keeps (204 without Owner) is a lasting failure too: reported once, not tried again", async () => {
    // An auditor reads every group's events but removes only what it owns: GitLab answers 204 and keeps acme's share.
    await start({ tokens: { ...WATCH_TOKENS, auditor: { admin: false, auditor: true, username: "olga" } } });
    const olga = await begin("auditor");
    await share(sim, "jane", `/groups/${IDS.acme}/share`, IDS.partners);
    const first = await pollOnce({ ...olga, apply: true });
    expect(failedIn(first)).toMatchObject([{ kind: "group", groupId: IDS.partners, lasting: true }]);
    expect(first.cursor.retries).toEqual({});
    expect(first.report!.warnings.join("\n")).toMatch(/not tried again: the share of group acme with group partners \(GitLab answered 204 but kept the share/);
    expect((await pollOnce({ ...olga, cursor: first.cursor, apply: true })).report).toBeUndefined();
  });

  it("a removal that fails for a reason that may pass (a 500) is tried again at the next poll, with no new event", async () => {
    await start({ faults: [{ kind: "status", status: 500, method: "DELETE", path: deleteOf(IDS.app, IDS.partners), times: 1 }] });
    const w = await begin("root");
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    // No retry within the request (lib/http retries a 500 on a DELETE): the poll's own retry is what is tested.
    const gitlab = new GitLabClient({ url: sim.url, token: "root", limiters: new RateLimiterRegistry(), retry: { maxRetries: 0 } });
    const [first, second, third] = await polls({ ...w, gitlab }, 3);
    expect(failedIn(first!)).toHaveLength(1);
    expect(first!.cursor.retries).toEqual({ [`project:${IDS.app}`]: 1 });
    expect(first!.cursor.sources["instance"]!.id).toBe(sim.auditEvents.find((e) => e.event_name === "project_group_link_created")!.id);
    expect(second!.report!.events).toEqual([]);
    expect(second!.report!.actions).toMatchObject([{ projectId: IDS.app, status: "done" }]);
    expect(second!.cursor.retries).toEqual({});
    expect(third!.report).toBeUndefined();
    expect(allShares(sim)).toEqual([]);
  });

  // The server chooses the words of its answers: a removal is judged by what lib/http made of the answer, never by reading its text.
  for (const [what, fault] of [
    ["a 502 whose text says it answered 403", { status: 502, message: "upstream answered 403 Forbidden; answered 403" }],
    ["a 200 whose JSON a proxy cut short (the text says it answered 200)", { status: 200, cutAt: 9 }],
  ] as const) {
    it(`a removal failed by ${what} may pass: it is tried again at the next poll, not passed as a refusal`, async () => {
      await start({ faults: [{ kind: "status", ...fault, method: "DELETE", path: deleteOf(IDS.app, IDS.partners), times: 1 }] });
      const w = await begin("root");
      await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
      const gitlab = new GitLabClient({ url: sim.url, token: "root", limiters: new RateLimiterRegistry(), retry: { maxRetries: 0 } });
      const [first, second] = await polls({ ...w, gitlab }, 2);
      // Recorded where the removal failed (lib/http's own judgement of the error), and what the watch goes by.
      expect(failedIn(first!)).toMatchObject([{ kind: "project", groupId: IDS.partners, lasting: false }]);
      expect(first!.report!.warnings.join("\n")).not.toMatch(/not tried again: the share/);
      expect(first!.cursor.retries).toEqual({ [`project:${IDS.app}`]: 1 });
      expect(second!.report!.actions).toMatchObject([{ projectId: IDS.app, status: "done" }]);
      expect(allShares(sim)).toEqual([]);
    });
  }

  it("a failed removal an earlier Warden recorded (no lasting field) is taken as one that may pass, whatever its text says", async () => {
    await start({ faults: [{ kind: "status", status: 403, method: "DELETE", path: deleteOf(IDS.app, IDS.partners), times: 1 }] });
    const w = await begin("root");
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    const [refused] = await polls(w, 1);
    const [old] = failedIn(refused!) as unknown as { error: string; lasting?: boolean }[];
    expect(old!.error).toMatch(/answered 403/);
    delete old!.lasting;
    const after = retriesAfter(refused!.report!, [`project:${IDS.app}`], {}, false);
    expect(after.retries).toEqual({ [`project:${IDS.app}`]: 1 });
    expect(after.warnings.join("\n")).not.toMatch(/not tried again: the share/);
  });

  it("one that keeps failing so is tried MAX_ATTEMPTS times in all, then reported and passed", async () => {
    await start({ faults: [{ kind: "status", status: 500, method: "DELETE", path: deleteOf(IDS.app, IDS.partners), times: 1_000 }] });
    const w = await begin("root");
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    const results = await polls(w, MAX_ATTEMPTS + 1);
    expect(results.map((r) => failedIn(r).length)).toEqual([...Array(MAX_ATTEMPTS).fill(1), 0]);
    expect(results.map((r) => r.cursor.retries[`project:${IDS.app}`])).toEqual([1, 2, undefined, undefined]);
    expect(results[MAX_ATTEMPTS - 1]!.report!.warnings.join("\n")).toMatch(/not tried again after failures that may pass: project:100 \(3 attempt\(s\)\); the scheduled sweep/);
    expect(results[MAX_ATTEMPTS]!.report).toBeUndefined();
  });

  it("a watch thousands of events behind reads at most the bound a poll, oldest first, and drains: every event once, the share named among them removed on the way", async () => {
    const TOTAL = 2_500;
    const base = Date.now() - 2 * 86_400_000;
    const world = watchWorld();
    world.projects.find((p) => p.id === IDS.app)!.shared_with_groups.push({ group_id: IDS.partners, group_name: "partners", group_full_path: "partners", group_access_level: 30, expires_at: null });
    const shareAt = 1_700;
    world.auditEvents = Array.from({ length: TOTAL }, (_, i) => {
      const id = i + 1;
      const at = new Date(base + id * 15_000).toISOString();
      return id === shareAt
        ? { id, author_id: 5, entity_id: IDS.partners, entity_type: "Group" as const, event_name: "project_group_link_created", details: { add: "project_access", target_id: IDS.app, target_type: "Project", target_details: "acme/app" }, created_at: at }
        : { id, author_id: 5, entity_id: 5, entity_type: "User" as const, event_name: "user_logged_in", details: {}, created_at: at };
    });
    await start({ dataset: world });
    const w = await begin("root");
    let cursor: WatchCursor = { version: 2, sources: { instance: { id: 1, at: world.auditEvents[0]!.created_at } }, retries: {} };
    let read = 0;
    let removedAt: number | undefined;
    for (let poll = 1; cursor.sources["instance"]!.id < TOTAL; poll++) {
      // At least TOTAL / EVENTS_PER_POLL polls; a window found holds from a few events to the bound.
      expect(poll).toBeLessThanOrEqual(40);
      sim.resetCounters();
      const before = cursor.sources["instance"]!.id;
      const polled = await pollOnce({ ...w, cursor, apply: true });
      expect(polled.read).toBeLessThanOrEqual(EVENTS_PER_POLL);
      expect(sim.counters.requests).toBeLessThanOrEqual(30);
      expect(polled.cursor.sources["instance"]!.id).toBeGreaterThanOrEqual(before);
      expect(polled.moved).toBe(true);
      if (polled.report) removedAt = polled.report.events[0]!.id;
      read += polled.read;
      cursor = polled.cursor;
    }
    expect(read).toBe(TOTAL - 1);
    expect(removedAt).toBe(shareAt);
    expect(allShares(sim)).toEqual([]);
  });

  it("more events than the bound within one millisecond are still taken oldest first, the bound at a time", async () => {
    const at = new Date(Date.now() - 3_600_000).toISOString();
    const world = watchWorld();
    world.auditEvents = Array.from({ length: 250 }, (_, i) => ({ id: i + 1, author_id: 5, entity_id: 5, entity_type: "User" as const, event_name: "user_logged_in", details: {}, created_at: at }));
    await start({ dataset: world });
    const w = await begin("root");
    // A bound of 100 (the default is EVENTS_PER_POLL): 250 events are more than it.
    const first = await pollOnce({ ...w, cursor: { version: 2, sources: { instance: { id: 0, at } }, retries: {} }, maxEvents: 100 });
    expect(first.read).toBe(100);
    expect(first.cursor.sources["instance"]!.id).toBe(100);
    const second = await pollOnce({ ...w, cursor: first.cursor, maxEvents: 100 });
    expect(second.cursor.sources["instance"]!.id).toBe(200);
  });
});
