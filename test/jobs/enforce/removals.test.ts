/** The enforce job as it removes: apply and its guard, idempotence, faults, an old plan judged again, and the errors that stop a run before it changes anything. */
import { describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, ScopeError, exitCode } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { standardPolicy } from "../../support/policies.ts";
import { planned, projectActions, run, setup, shareCount, sim } from "../../support/enforce-world.ts";

describe("enforce job", () => {
  it("apply removes exactly the planned shares, and the next dry run finds nothing", async () => {
    const { strays } = await setup({ recordRequests: true });
    const before = shareCount(sim);
    const applied = await run({ apply: true });
    expect(applied.actions.every((a) => a.status === "done")).toBe(true);
    expect(applied.summary.removed).toBe(strays.length);
    expect(shareCount(sim)).toBe(before - strays.length);
    const deleted = sim.requests.filter((r) => r.method === "DELETE").map((r) => r.url.match(/projects\/(\d+)\/share\/(\d+)/)!.slice(1).join(":"));
    expect(deleted.sort()).toEqual(strays);
    expect(exitCode(applied)).toBe(0);

    const again = await run();
    expect(again.actions).toEqual([]);
    expect(exitCode(again)).toBe(0);
  });

  it("the guard refuses a plan larger than maxRemovals and removes nothing", async () => {
    const { strays } = await setup();
    const before = shareCount(sim);
    const report = await run({ apply: true, maxRemovals: strays.length - 1 });
    expect(report.summary.guard).toBe("tripped");
    expect(report.actions.every((a) => a.status === "planned")).toBe(true);
    expect(report.warnings.join()).toMatch(/guard/);
    expect(shareCount(sim)).toBe(before);
    expect(exitCode(report)).toBe(3);
  });

  it("removals are idempotent: a share already gone is a success, reported as such", async () => {
    const { dataset, strays } = await setup();
    const inScope = dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/")).length;
    const [projectId, groupId] = strays[0]!.split(":").map(Number);
    const project = sim.dataset.projects.find((p) => p.id === projectId)!;
    // Someone removes one share by hand between our examination and our removal.
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry() });
    const report = await enforce({
      gitlab,
      policy: parsePolicy(standardPolicy(), "test.yaml"),
      apply: true,
      onProgress: (p) => {
        if (p.phase === "examining" && p.projects === inScope) project.shared_with_groups = project.shared_with_groups.filter((s) => s.group_id !== groupId);
      },
    });
    const gone = projectActions(report).filter((a) => a.status === "already-gone");
    expect(gone.map((a) => `${a.projectId}:${a.groupId}`)).toEqual([strays[0]]);
    expect(report.summary.alreadyGone).toBe(1);
    expect(exitCode(report)).toBe(0);
  });

  it("converges under faults: 429s, 5xx, dropped connections; a DELETE that succeeds but answers 502 is reported done", async () => {
    const { strays } = await setup();
    sim.addFaults(
      { kind: "429", headers: "retry-after", seconds: 0, route: "GET /groups/:id/projects", times: 2 },
      { kind: "429", headers: "none", route: "DELETE /projects/:id/share/:group_id", times: 1 },
      { kind: "status", status: 503, route: "GET /groups/:id/projects", times: 1 },
      { kind: "drop", route: "GET /groups/:id/projects", times: 1 },
      { kind: "apply-then-status", status: 502, route: "DELETE /projects/:id/share/:group_id", times: 3 },
    );
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5, rateLimitedBaseMs: 50 } });
    const report = await enforce({ gitlab, policy: parsePolicy(standardPolicy(), "test.yaml"), apply: true });
    expect(planned(report)).toEqual(strays);
    expect(report.actions.filter((a) => a.status === "failed")).toEqual([]);
    // The three DELETEs answered 502 after removing: their retry finds the share gone, which this run removed.
    expect(report.summary).toMatchObject({ removed: strays.length, alreadyGone: 0 });
    expect(report.stats.rateLimited).toBe(3);
    expect(report.stats.retries).toBeGreaterThanOrEqual(8);
    expect((await run()).actions).toEqual([]);
  });

  it("a plan grown old is judged again before removal: what changed meanwhile is skipped or found gone, not removed", async () => {
    const { dataset, strays } = await setup({ recordRequests: true });
    const inScope = dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/")).length;
    const share = (key: string) => {
      const [projectId, groupId] = key.split(":").map(Number);
      const project = dataset.projects.find((p) => p.id === projectId)!;
      return { project, share: project.shared_with_groups.find((g) => g.group_id === groupId)! };
    };
    // A contractor share above maxAccess on a mobile project, and any other stray.
    const tooHigh = strays.find((k) => { const { share: g, project } = share(k); return g.group_full_path === "partners/contractor-x" && project.path_with_namespace.startsWith("acme/mobile/"); })!;
    const other = strays.find((k) => k !== tooHigh)!;
    const report = await run({
      apply: true,
      maxPlanAgeMs: 0,
      onProgress: (p) => {
        if (p.phase !== "examining" || p.projects < inScope) return;
        // After the last page, before the first removal: an owner fixes one share and removes another.
        share(tooHigh).share.group_access_level = 30;
        const { project } = share(other);
        project.shared_with_groups = project.shared_with_groups.filter((g) => `${project.id}:${g.group_id}` !== other);
      },
    });
    const status = (key: string) => projectActions(report).find((a) => `${a.projectId}:${a.groupId}` === key)!;
    expect(status(tooHigh)).toMatchObject({ status: "skipped", error: expect.stringMatching(/^changed since it was planned \(now allowed by allow\[1\]/) });
    expect(status(other).status).toBe("already-gone");
    expect(report.summary).toMatchObject({ skipped: 1, alreadyGone: 1, removed: strays.length - 2, failed: 0 });
    const deleted = sim.requests.filter((r) => r.method === "DELETE").map((r) => r.url.match(/projects\/(\d+)\/share\/(\d+)/)!.slice(1).join(":"));
    expect(deleted).not.toContain(tooHigh);
    expect(deleted).not.toContain(other);
    // One fresh read per project with strays, however many strays it has.
    expect(sim.counters.byRoute["GET /projects/:id"]).toBe(new Set(strays.map((k) => k.split(":")[0])).size);
    expect(exitCode(report)).toBe(0);
  });

  it("the re-reads of an old plan go out ahead of its removals, alongside them, once per project", async () => {
    const { strays } = await setup({ latencyMs: 10 });
    const report = await run({ apply: true, maxPlanAgeMs: 0, concurrency: 2, listConcurrency: 1 });
    expect(report.summary.removed).toBe(strays.length);
    expect(sim.counters.byRoute["GET /projects/:id"]).toBe(new Set(strays.map((k) => k.split(":")[0])).size);
    // One request at a time while listing; while removing, two reads ahead beside two removals.
    expect(sim.counters.maxConcurrency).toBe(4);
  });

  it("a fresh plan is removed without reading projects again", async () => {
    await setup();
    await run({ apply: true });
    expect(sim.counters.byRoute["GET /projects/:id"]).toBeUndefined();
  });

  it("a 404 that is not GitLab's 'Group Link Not Found' (the project gone from the token's sight) is a failure, not success", async () => {
    await setup();
    sim.addFaults({ kind: "status", status: 404, route: "DELETE /projects/:id/share/:group_id", times: 1 });
    const report = await run({ apply: true, concurrency: 1 });
    expect(report.actions.filter((a) => a.status === "failed").map((a) => a.error)).toEqual([expect.stringMatching(/answered 404: 404 Not Found/)]);
  });

  // A group's detail or project listing failing otherwise is that part's alone (examine/unexamined.ts; test/jobs/enforce/unexamined*.test.ts).
  it.each([
    ["listing refusing the token", "GET /groups/:id/projects", false, 401],
    ["group's detail refusing the token", "GET /groups/:id", true, 401],
  ] as const)("when one %s fails, the others stop too", async (_what, route, detailProjects, status) => {
    await setup({ projects: 3_000, latencyMs: 10, detailProjects });
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry() });
    let seen = 0;
    // Partitions (or detail reads) are running by the third answer; the next request of that route is refused.
    const failing = enforce({ gitlab, policy: parsePolicy(standardPolicy(), "test.yaml"), onProgress: () => seen++ === 3 && sim.addFaults({ kind: "status", status, route, times: 1 }) });
    await expect(failing).rejects.toThrow(`answered ${status}`);
    // Counted by the client as each request goes out (lib/http's innermost layer): a request sent before
    // the failure may still reach a loaded simulator after it, so the server's count is no measure of that.
    const sent = gitlab.requestCounts().requests;
    await new Promise((r) => setTimeout(r, 300));
    expect(gitlab.requestCounts().requests).toBe(sent);
    expect(sim.counters.requests).toBeLessThanOrEqual(sent);
  });

  it("a group's detail that is not one (JSON without its fields) is never read as a group without shares or projects: that group is not examined, named, and the run is incomplete", async () => {
    await setup();
    sim.addFaults({ kind: "status", status: 200, route: "GET /groups/:id", times: 1 });
    const report = await run();
    expect(report.unexamined).toEqual([expect.objectContaining({ kind: "group", error: expect.stringMatching(/^GET \/groups\/\d+ answered with JSON that is not a group's detail/), lasting: false })]);
    expect(report.summary.complete).toBe(false);
    expect(exitCode(report)).toBe(1);
    expect(Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "))).toEqual([]);
  });

  it("a failed removal is reported with its error and the others go on", async () => {
    const { strays } = await setup();
    sim.addFaults({ kind: "status", status: 403, route: "DELETE /projects/:id/share/:group_id", times: 1 });
    const report = await run({ apply: true, concurrency: 1 });
    const failed = report.actions.filter((a) => a.status === "failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]!.error).toMatch(/403/);
    expect(report.summary.removed).toBe(strays.length - 1);
    expect(exitCode(report)).toBe(1);
  });

  it("warns that shares with invisible groups were not checked when the token is not an administrator", async () => {
    await setup({ tokens: { "glpat-sim-admin": { admin: true }, "glpat-sim-member": { admin: false, username: "member" } } });
    const report = await run({ token: "glpat-sim-member" });
    expect(report.warnings.join()).toMatch(/not an administrator or auditor/);
    // Private groups' shares are hidden from this token, so fewer strays are seen.
    expect(report.summary.strays).toBeLessThan((await run()).summary.strays);
  });

  it("a scope group that does not exist stops the run before anything changes", async () => {
    await setup();
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry() });
    const policy = parsePolicy(standardPolicy().replace("groups: [acme]", "groups: [acme, nope]"), "test.yaml");
    await expect(enforce({ gitlab, policy, apply: true })).rejects.toThrow(ScopeError);
    await expect(enforce({ gitlab, policy, apply: true })).rejects.toThrow(/gitlab.scope.groups: group "nope" was not found/);
    expect(sim.counters.byRoute["DELETE /projects/:id/share/:group_id"]).toBeUndefined();
  });

  it("a policy without a gitlab section is an error naming the section, before any request", async () => {
    await setup();
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry() });
    const policy = parsePolicy("version: 1\n", "test.yaml");
    await expect(enforce({ gitlab, policy })).rejects.toThrow(/^the policy has no gitlab section/);
    await expect(enforce({ gitlab, policy, apply: true })).rejects.toThrow(ScopeError);
    expect(sim.counters.requests).toBe(0);
  });

  it("a group named twice in the scope (any case), or inside another scope group, is listed once", async () => {
    const { strays } = await setup();
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry() });
    const policy = parsePolicy(standardPolicy().replace("groups: [acme]", "groups: [acme, ACME, acme/mobile]"), "test.yaml");
    const report = await enforce({ gitlab, policy });
    expect(planned(report)).toEqual(strays);
    expect(sim.counters.byRoute["GET /namespaces/:id"]).toBe(1);
  });

  it("an apply interrupted mid-removal reports the removals in flight as failed, saying they may be done", async () => {
    await setup({ latencyMs: 30 });
    const stop = new AbortController();
    const audit: Record<string, unknown>[] = [];
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry() });
    const running = enforce({ gitlab, policy: parsePolicy(standardPolicy(), "test.yaml"), apply: true, concurrency: 2, signal: stop.signal, audit: { info: (_m, f) => audit.push(f) } });
    const interval = setInterval(() => (sim.counters.byRoute["DELETE /projects/:id/share/:group_id"] ?? 0) >= 3 && stop.abort(new Error("deadline")), 5);
    const report = await running;
    clearInterval(interval);
    const interrupted = report.actions.filter((a) => a.error?.startsWith("stopped while removing the share (deadline): it may or may not have happened"));
    expect(interrupted.length).toBeGreaterThan(0);
    expect(interrupted.every((a) => a.status === "failed")).toBe(true);
    expect(report.actions.filter((a) => a.status === "planned").length).toBeGreaterThan(0);
    expect(report.warnings.join()).toMatch(/stopped before \d+ of \d+ removals \(deadline\)/);
    expect(report.summary.complete).toBe(false);
    expect(audit.length).toBe(report.actions.filter((a) => a.status !== "planned").length);
    expect(exitCode(report)).toBe(1);
  });

});
