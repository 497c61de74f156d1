/** The restore job: a dry run and apply, what it reads first, its guard, GitLab's refusals, lost POSTs settled by reading, its stop and its limits. */
import { describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { exitCode, parseRestoreText, restore } from "../../../lib/jobs/index.ts";
import { MAX_CREATE_ATTEMPTS } from "../../../lib/jobs/restore/create.ts";
import { client, dayFromToday, onlyGets, policy, posts, removeByHand, run, setup, sim, snapshot, TODAY, unsharedOutsideGroup } from "../../support/restore-world.ts";

describe("restore job", () => {
  it("a dry run plans every removal done, sends only GET (one per project or group, one per invited group) and exits 2", async () => {
    await setup();
    const before = snapshot();
    const input = parseRestoreText(removeByHand({ projects: 4, groups: 3 }, (i) => (i === 1 ? "already-gone" : "done")));
    sim.resetCounters();
    const report = await run({ input });
    expect(report).toMatchObject({ job: "restore", dryRun: true, summary: { restores: 6, restored: 0, guard: "ok", complete: true } });
    expect(report.actions.map((a) => [a.type, a.kind, a.status])).toEqual([
      ["restore-share", "project", "planned"],
      ["restore-share", "project", "planned"],
      ["restore-share", "project", "planned"],
      ["restore-group-share", "group", "planned"],
      ["restore-group-share", "group", "planned"],
      ["restore-group-share", "group", "planned"],
    ]);
    expect(report.warnings.join()).toMatch(/1 already-gone: not restored/);
    expect(onlyGets()).toBe(true);
    expect(sim.counters.requests).toBe(6 + new Set(input.removals.map((r) => r.groupId)).size);
    expect(snapshot().size).toBe(before.size - 7);
    expect(exitCode(report)).toBe(2);
  });

  it("apply re-creates each share with its level, expiry and custom role, one audit line each, and exits 0", async () => {
    await setup();
    const before = snapshot();
    const input = parseRestoreText(removeByHand({ projects: 5, groups: 5 }));
    expect(input.removals.some((r) => r.kind === "group" && r.memberRoleId)).toBe(true);
    const lines: Record<string, unknown>[] = [];
    const report = await run({ input, apply: true, audit: { info: (message, fields) => lines.push({ message, ...fields }) } });
    expect(report.summary).toMatchObject({ restores: 10, restored: 10, failed: 0, complete: true });
    expect(snapshot()).toEqual(before);
    expect(posts()).toBe(10);
    expect(lines).toHaveLength(10);
    expect(lines.find((l) => l["kind"] === "group")).toMatchObject({ message: "restore-share", sharedGroup: expect.any(String), sharedGroupId: expect.any(Number), group: expect.any(String), accessLevel: expect.any(Number), outcome: "done" });
    expect(exitCode(report)).toBe(0);

    // Again: everything is there, as it was removed.
    const again = await run({ input, apply: true });
    expect(again.actions.every((a) => a.status === "already-present" && a.note === "present as it was removed")).toBe(true);
    expect(posts()).toBe(10);
    expect(exitCode(again)).toBe(0);
  });

  it("reads first: present is left as it is (a different level noted), past expiry is skipped, a target gone fails", async () => {
    await setup();
    const project = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/") && p.shared_with_groups.length)!;
    const present = Object.assign(project.shared_with_groups[0]!, { group_access_level: 30, expires_at: null });
    const removed = (over: object) => ({ type: "remove-share", kind: "project", projectId: project.id, project: project.path_with_namespace, group: "partners/x", accessLevel: 40, expiresAt: null, reason: "stray", status: "done", ...over });
    const outside = unsharedOutsideGroup(project);
    const text = JSON.stringify({
      job: "enforce",
      dryRun: false,
      actions: [
        removed({ groupId: present.group_id, accessLevel: 40, expiresAt: "2031-06-30" }),
        removed({ groupId: outside.id, expiresAt: dayFromToday(-1) }),
        removed({ groupId: outside.id, projectId: 999_999, project: "acme/deleted" }),
      ],
    });
    const report = await run({ input: parseRestoreText(text), apply: true });
    expect(report.actions.map((a) => [a.status, a.note ?? a.error])).toEqual([
      ["already-present", "present with developer (removed: maintainer), no expiry (removed: expires 2031-06-30); left as it is"],
      ["skipped", "its expiry has passed: GitLab would delete it again that night"],
      ["failed", "project acme/deleted (#999999) not found (deleted, or the token cannot see it): not restored"],
    ]);
    // The share present is named as GitLab names its group, not as the input does ("partners/x").
    expect(report.actions[0]!.group).toBe(present.group_full_path);
    expect(posts()).toBe(0);
    expect(exitCode(report)).toBe(1);
  });

  it("a share expiring today is still restored", async () => {
    await setup();
    const project = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/"))!;
    const outside = unsharedOutsideGroup(project);
    const text = JSON.stringify({ job: "enforce", dryRun: false, actions: [{ type: "remove-share", projectId: project.id, project: project.path_with_namespace, groupId: outside.id, group: outside.full_path, accessLevel: 20, expiresAt: TODAY, reason: "stray", status: "done" }] });
    const report = await run({ input: parseRestoreText(text), apply: true });
    expect(report.actions[0]!.status).toBe("done");
    expect(project.shared_with_groups.find((s) => s.group_id === outside.id)).toMatchObject({ group_access_level: 20, expires_at: TODAY });
  });

  it("the guard: an input of more removals than --max-restores (or the policy's maxRemovals) exits 3, and nothing is read but the token's check", async () => {
    await setup();
    const input = parseRestoreText(removeByHand({ projects: 3, groups: 2 }));
    sim.resetCounters();
    const byOption = await run({ input, apply: true, maxRestores: 4 });
    expect(byOption.summary).toMatchObject({ restores: 5, guard: "tripped", maxRestores: 4, restored: 0 });
    expect(byOption.warnings.join()).toMatch(/guard: the input lists 5 removals, more than --max-restores 4; nothing was read or restored/);
    expect(sim.counters.requests).toBeLessThanOrEqual(1);
    const byPolicy = await restore({ gitlab: client(), policy: policy(2), input, apply: true });
    expect(byPolicy.summary).toMatchObject({ guard: "tripped", maxRestores: 2 });
    expect(byPolicy.warnings.join()).toMatch(/gitlab\.guard\.maxRemovals \(2\)/);
    expect(onlyGets()).toBe(true);
    expect(exitCode(byOption)).toBe(3);
  });

  it("GitLab's refusals fail with its reason: sharing locked (400), the project's own ancestor (409), an unknown group (404)", async () => {
    await setup();
    const platform = sim.dataset.groups.find((g) => g.full_path === "acme/platform")!;
    const locked = sim.dataset.projects.find((p) => p.namespace_id === platform.id)!;
    const web = sim.dataset.groups.find((g) => g.full_path === "acme/Web.Team")!;
    const inWeb = sim.dataset.projects.find((p) => p.namespace_id === web.id)!;
    const acme = sim.dataset.groups.find((g) => g.full_path === "acme")!;
    platform.share_with_group_lock = true;
    const removed = (p: { id: number; path_with_namespace: string }, groupId: number) => ({ type: "remove-share", projectId: p.id, project: p.path_with_namespace, groupId, group: "x", accessLevel: 30, expiresAt: null, reason: "stray", status: "done" });
    const text = JSON.stringify({ job: "enforce", dryRun: false, actions: [removed(locked, unsharedOutsideGroup(locked).id), removed(inWeb, acme.id), removed(inWeb, 123_456)] });
    const report = await run({ input: parseRestoreText(text), apply: true });
    expect(report.actions.map((a) => a.error)).toEqual([
      "GitLab refused (400): The project sharing with group is disabled",
      "GitLab refused (409): Project cannot be shared with the group it is in or one of its ancestors.",
      "the invited group #123456 not found (deleted, or the token cannot see it): not restored",
    ]);
    expect(report.summary.failed).toBe(3);
    expect(posts()).toBe(2);
  });

  it("a POST whose answer is lost (502 after commit, connection dropped) is settled by reading, never sent twice", async () => {
    await setup();
    const before = snapshot();
    const input = parseRestoreText(removeByHand({ projects: 2, groups: 2 }));
    sim.addFaults(
      { kind: "apply-then-status", status: 502, route: "POST /projects/:id/share", times: 1 },
      { kind: "apply-then-drop", route: "POST /groups/:id/share", times: 1 },
    );
    const report = await run({ input, apply: true, concurrency: 1 });
    expect(report.summary).toMatchObject({ restored: 4, failed: 0 });
    expect(report.actions.filter((a) => a.note?.match(/^the answer was lost .*; reading again found the share as asked$/)).map((a) => a.kind).sort()).toEqual(["group", "project"]);
    // One POST each: a share the read finds is never sent again.
    expect(posts()).toBe(4);
    expect(snapshot()).toEqual(before);
  });

  it("a POST lost before it reached GitLab (a proxy's 502, a connection dropped) is read again, found absent, sent again and done", async () => {
    await setup();
    const before = snapshot();
    const input = parseRestoreText(removeByHand({ projects: 1, groups: 1 }));
    sim.addFaults({ kind: "status", status: 502, route: "POST /projects/:id/share", times: 1 }, { kind: "drop", route: "POST /groups/:id/share", times: 1 });
    const report = await run({ input, apply: true, concurrency: 1 });
    expect(report.summary).toMatchObject({ restored: 2, failed: 0, complete: true });
    expect(report.actions.map((a) => a.note)).toEqual([
      expect.stringMatching(/^the answer was lost \(POST .* answered 502.*\); reading again found no such share: sent again and created$/),
      expect.stringMatching(/^the answer was lost \(POST .* failed: .*\); reading again found no such share: sent again and created$/),
    ]);
    expect(posts()).toBe(4);
    expect(snapshot()).toEqual(before);
    expect(exitCode(report)).toBe(0);
  });

  it(`a POST lost every time fails after ${MAX_CREATE_ATTEMPTS} POSTs, each after a read found nothing, with what the proxy answered`, async () => {
    await setup();
    const input = parseRestoreText(removeByHand({ projects: 1, groups: 0 }));
    sim.addFaults({ kind: "status", status: 502, route: "POST /projects/:id/share", times: 100 });
    const report = await run({ input, apply: true });
    expect(report.actions[0]!.error).toMatch(new RegExp(`^may not have been created: the answers were lost \\(.*answered 502.*; .*; .*\\); reading again found no such share, but a POST GitLab was still at may yet land; gave up after ${MAX_CREATE_ATTEMPTS} attempts, the most a share gets: run restore again`));
    expect(posts()).toBe(MAX_CREATE_ATTEMPTS);
    expect(exitCode(report)).toBe(1);
  });

  it("a share found after a lost answer at another level than asked was made by someone else: already-present, left as it is", async () => {
    await setup();
    const project = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/"))!;
    const outside = unsharedOutsideGroup(project);
    const text = JSON.stringify({ job: "enforce", dryRun: false, actions: [{ type: "remove-share", projectId: project.id, project: project.path_with_namespace, groupId: outside.id, group: outside.full_path, accessLevel: 40, expiresAt: null, reason: "stray", status: "done" }] });
    // The share someone else makes at reporter while the POST is lost on its way.
    sim.addFaults({ kind: "status", status: 502, route: "POST /projects/:id/share", times: 1 });
    const report = await run({
      input: parseRestoreText(text),
      apply: true,
      gitlab: new (class extends GitLabClient {
        override async shareProject(...args: Parameters<GitLabClient["shareProject"]>) {
          try {
            return await super.shareProject(...args);
          } finally {
            project.shared_with_groups.push({ group_id: outside.id, group_name: outside.name, group_full_path: outside.full_path, group_access_level: 20, expires_at: null });
          }
        }
      })({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } }),
    });
    expect(report.actions[0]).toMatchObject({ status: "already-present", note: expect.stringMatching(/^present with reporter \(removed: maintainer\) after the answer was lost .*: made by someone else meanwhile; left as it is$/) });
    expect(posts()).toBe(1);
  });

  it("a share made between restore's read and its POST (GitLab's 409) is read back: its level is said, left as it is", async () => {
    await setup();
    const project = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/"))!;
    const outside = unsharedOutsideGroup(project);
    const text = JSON.stringify({ job: "enforce", dryRun: false, actions: [{ type: "remove-share", projectId: project.id, project: project.path_with_namespace, groupId: outside.id, group: outside.full_path, accessLevel: 40, expiresAt: null, reason: "stray", status: "done" }] });
    // Someone shares the project with the group at developer as the POST is on its way: GitLab answers it 409.
    const stop = sim.beforeAnswer(({ method, route }) => {
      if (method !== "POST" || route !== "POST /projects/:id/share") return;
      project.shared_with_groups.push({ group_id: outside.id, group_name: outside.name, group_full_path: outside.full_path, group_access_level: 30, expires_at: null });
      stop();
    });
    const report = await run({ input: parseRestoreText(text), apply: true });
    expect(report.actions[0]).toMatchObject({ status: "already-present", note: "GitLab answered 409, already shared: made meanwhile, present with developer (removed: maintainer); left as it is" });
    expect(posts()).toBe(1);
  });

  it("stops on the signal: what was not started stays planned, the report is incomplete", async () => {
    await setup();
    const input = parseRestoreText(removeByHand({ projects: 6, groups: 0 }));
    const stop = new AbortController();
    const report = await run({ input, apply: true, concurrency: 1, signal: stop.signal, audit: { info: () => stop.abort(new Error("interrupted")) } });
    expect(report.summary).toMatchObject({ restored: 1, complete: false });
    expect(report.actions.filter((a) => a.status === "planned")).toHaveLength(5);
    expect(report.warnings.join()).toMatch(/stopped before 5 of 6 restores \(interrupted\)/);
    expect(posts()).toBe(1);
    expect(exitCode(report)).toBe(1);
  });

  it("a refused token fails the run, before any POST", async () => {
    await setup();
    const input = parseRestoreText(removeByHand({ projects: 2, groups: 1 }));
    const gitlab = new GitLabClient({ url: sim.url, token: "glpat-restore-wrong-token", limiters: new RateLimiterRegistry() });
    await expect(restore({ gitlab, policy: policy(), input, apply: true })).rejects.toThrow(/answered 401/);
    expect(posts()).toBe(0);
  });

  it("stopped while reading, it restores nothing", async () => {
    await setup();
    const input = parseRestoreText(removeByHand({ projects: 3, groups: 3 }));
    const report = await run({ input, apply: true, signal: AbortSignal.abort(new Error("interrupted")) });
    expect(report.summary).toMatchObject({ restored: 0, complete: false });
    expect(report.warnings.join()).toMatch(/stopped while reading after 0 of 6 projects and groups \(interrupted\): nothing was restored/);
    expect(posts()).toBe(0);
    expect(exitCode(report)).toBe(1);
  });

  it("reads and restores at most `concurrency` at once", async () => {
    await setup({ latencyMs: 10 });
    const input = parseRestoreText(removeByHand({ projects: 8, groups: 4 }));
    sim.resetCounters();
    const report = await run({ input, apply: true, concurrency: 3 });
    expect(report.summary.restored).toBe(12);
    expect(sim.counters.maxConcurrency).toBe(3);
  });
});
