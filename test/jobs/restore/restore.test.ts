import { afterEach, describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, exitCode, parseRestoreText, restore, restoreInputFrom, type RestoreOptions, type RestoreReport } from "../../../lib/jobs/index.ts";
import { MAX_CREATE_ATTEMPTS } from "../../../lib/jobs/restore/create.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { registerSecret } from "../../../lib/redact/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim, type GitLabSimOptions } from "../../../sim/gitlab/index.ts";
import type { SimGroup, SimGroupShare } from "../../../sim/gitlab/dataset.ts";
import { EVERYTHING_STRAY, standardPolicy } from "../../support/policies.ts";
import { validated } from "../../support/report.ts";

let sim: GitLabSim;
afterEach(() => sim?.close());

const TODAY = new Date().toISOString().slice(0, 10);
const dayFromToday = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

async function setup(opts: GitLabSimOptions = {}) {
  const { dataset } = generateOrganisation({ projects: 200, seed: 5, groupShares: true });
  sim = await startGitLabSim({ dataset, ...opts });
}

const client = () => new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
/** Every share allowed, everywhere: for the tests of restore's mechanics, which the policy check does not concern. */
const allowAll = (maxRemovals = 1000) => `version: 1\ngitlab:\n  shares:\n    allow:\n      - group: "**"\n  guard:\n    maxRemovals: ${maxRemovals}\n`;
const policy = (maxRemovals?: number) => parsePolicy(allowAll(maxRemovals), "test.yaml");
const standard = () => parsePolicy(standardPolicy(), "standard.yaml");

function run(opts: Partial<RestoreOptions> & Pick<RestoreOptions, "input">) {
  return validated(restore({ gitlab: client(), policy: policy(), ...opts }));
}

/** Every share in the simulator, of both kinds, with what a restore must bring back. */
function snapshot(): Map<string, string> {
  const out = new Map<string, string>();
  const add = (key: string, s: { group_access_level: number; expires_at: string | null; member_role_id?: number | null }) =>
    out.set(key, JSON.stringify([s.group_access_level, s.expires_at, s.member_role_id ?? null]));
  for (const p of sim.dataset.projects) for (const s of p.shared_with_groups) add(`project:${p.id}:${s.group_id}`, s);
  for (const g of sim.dataset.groups) for (const s of g.shared_with_groups) add(`group:${g.id}:${s.group_id}`, s);
  return out;
}

const posts = () => (sim.counters.byRoute["POST /projects/:id/share"] ?? 0) + (sim.counters.byRoute["POST /groups/:id/share"] ?? 0);
const onlyGets = () => Object.keys(sim.counters.byRoute).every((route) => route.startsWith("GET "));

/**
 * Removes a few shares of each kind from the simulator by hand (levels, expiry and a custom role
 * set) and returns the report of an applying enforce run that would have removed them, as JSON text.
 */
function removeByHand(count: { projects: number; groups: number }, status: (i: number) => string = () => "done"): string {
  const actions: object[] = [];
  const projects = sim.dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/") && p.shared_with_groups.length).slice(0, count.projects);
  for (const p of projects) {
    const s = p.shared_with_groups.shift()!;
    actions.push({ type: "remove-share", kind: "project", projectId: p.id, project: p.path_with_namespace, groupId: s.group_id, group: s.group_full_path, accessLevel: s.group_access_level, expiresAt: s.expires_at, reason: "stray", status: status(actions.length) });
  }
  // Shares with a custom role first, so that even a few removals include one.
  const current = (s: SimGroupShare) => s.expires_at === null || s.expires_at >= TODAY;
  const withRole = (g: SimGroup) => g.shared_with_groups.some((s) => current(s) && s.member_role_id);
  const groups = sim.dataset.groups.filter((g) => g.shared_with_groups.some(current)).sort((a, b) => Number(withRole(b)) - Number(withRole(a))).slice(0, count.groups);
  for (const g of groups) {
    const i = g.shared_with_groups.findIndex((s) => current(s) && (s.member_role_id || !withRole(g)));
    const [s] = g.shared_with_groups.splice(i, 1);
    actions.push({ type: "remove-group-share", kind: "group", sharedGroupId: g.id, sharedGroup: g.full_path, groupId: s!.group_id, group: s!.group_full_path, accessLevel: s!.group_access_level, expiresAt: s!.expires_at, ...(s!.member_role_id ? { memberRoleId: s!.member_role_id } : {}), reason: "stray", status: status(actions.length) });
  }
  return JSON.stringify({ job: "enforce", dryRun: false, summary: {}, actions, stats: {}, warnings: [] });
}

/** A group outside acme the project is not shared with. */
function unsharedOutsideGroup(project: { shared_with_groups: { group_id: number }[] }) {
  return sim.dataset.groups.find((g) => !g.full_path.startsWith("acme") && !project.shared_with_groups.some((s) => s.group_id === g.id))!;
}

describe("restore input", () => {
  const report = (over: object) => JSON.stringify({ job: "enforce", dryRun: false, summary: {}, actions: [], stats: {}, warnings: [], ...over });
  const action = { type: "remove-share", kind: "project", projectId: 4, project: "acme/api", groupId: 9, group: "partners/x", accessLevel: 30, expiresAt: null, reason: "stray", status: "done" };
  const line = (fields: object) => JSON.stringify({ level: "INFO", message: "remove-share", kind: "project", project: "acme/api", projectId: 4, group: "partners/x", groupId: 9, accessLevel: 30, expiresAt: "2031-06-30", rule: "stray", outcome: "done", timestamp: "2026-01-01T00:00:00Z", ...fields });

  it.each([
    ["a dry run's report", report({ dryRun: true }), /report of a dry run, which removed nothing/],
    ["a workflows report", report({ job: "workflows", dryRun: false }), /report of a workflows run: restore reads the report of an enforce or apply run/],
    ["a field of the wrong type", report({ actions: [{ ...action, accessLevel: "30" }] }), /^not a usable enforce report: actions\[0\]\.accessLevel: .*expected (int|number)/],
    ["an expiry that is not a date", report({ actions: [{ ...action, expiresAt: "soon" }] }), /actions\[0\]\.expiresAt/],
    ["a report without dryRun", report({ dryRun: undefined }), /dryRun/],
    ["a report from before expiry was recorded", report({ actions: [{ ...action, kind: undefined, expiresAt: undefined }] }), /actions\[0\]\.expiresAt: missing: written by a Warden before share expiry was recorded/],
    ["an audit line from before expiry was recorded", `${line({ kind: undefined, expiresAt: undefined })}\n`, /^line 1 \(remove-share\): kind: missing: written by a Warden before share expiry was recorded/],
    ["a JSON array", "[1, 2]", /got a JSON array/],
    ["an audit line missing its level", `${line({ accessLevel: undefined })}\n`, /^line 1 \(remove-share\): accessLevel: /],
    ["a removal line cut short", `{"message":"job started"}\n${line({}).slice(0, 80)}\n`, /^line 2 names a removal but is not a complete JSON object/],
    ["a text with no audit line", "hello\nworld\n", /no remove-share or remove-group-share audit line found, and not an enforce report \(3 lines read; it starts "hello"\)/],
  ])("refuses %s, naming what is wrong", (_, text, message) => {
    expect(() => parseRestoreText(text)).toThrow(message);
  });

  it("never echoes a credential from the file", () => {
    registerSecret("glpat-restore-input-secret");
    expect(() => parseRestoreText("glpat-restore-input-secret is not a report\n")).toThrow(/it starts "\[REDACTED\]/);
    const leaked = JSON.stringify({ job: "glpat-restore-input-secret" });
    expect(() => parseRestoreText(leaked)).toThrow(/report of a \[REDACTED\]/);
  });

  it("reads CLI and Powertools audit lines, skipping other lines, restoring only what was done, each share once", () => {
    const powertools = JSON.stringify({ level: "INFO", message: "remove-group-share", service: "warden", cold_start: true, function_name: "warden-Enforce", xray_trace_id: "1-abc", kind: "group", sharedGroup: "acme/platform", sharedGroupId: 3, group: "auditors", groupId: 40, accessLevel: 20, expiresAt: null, memberRoleId: 7, rule: "stray", outcome: "done", timestamp: "2026-01-01T00:00:00Z" });
    const input = parseRestoreText(
      [
        "warden enforce: starting",
        line({}),
        JSON.stringify({ level: "INFO", message: "job finished", summary: {} }),
        `2026-01-01T00:00:00.000Z warden-Enforce/[$LATEST]abc ${powertools}`,
        line({ projectId: 5, outcome: "already-gone" }),
        line({ accessLevel: 40 }),
        "",
      ].join("\n"),
    );
    expect(input.removals).toEqual([
      { kind: "project", projectId: 4, project: "acme/api", groupId: 9, group: "partners/x", accessLevel: 40, expiresAt: "2031-06-30" },
      { kind: "group", sharedGroupId: 3, sharedGroup: "acme/platform", groupId: 40, group: "auditors", accessLevel: 20, expiresAt: null, memberRoleId: 7 },
    ]);
    expect(input.notes.join("\n")).toMatch(/2 lines of the input are not removal audit lines[\s\S]*1 already-gone: not restored[\s\S]*1 removal appears more than once/);
  });

  it("an audit line without expiresAt or memberRoleId has none: Powertools Logger drops null fields", () => {
    const input = parseRestoreText(line({ expiresAt: undefined, memberRoleId: undefined }));
    expect(input.removals).toEqual([{ kind: "project", projectId: 4, project: "acme/api", groupId: 9, group: "partners/x", accessLevel: 30, expiresAt: null }]);
  });

  it("the Lambda's forms: a report object, { lines } of strings or objects, or one string", () => {
    const fromReport = restoreInputFrom(JSON.parse(report({ actions: [action] })));
    const fromObjects = restoreInputFrom({ lines: [JSON.parse(line({ expiresAt: null }))] });
    const fromStrings = restoreInputFrom({ lines: [line({ expiresAt: null })] });
    const fromString = restoreInputFrom(`${line({ expiresAt: null })}\n`);
    for (const input of [fromObjects, fromStrings, fromString]) expect(input.removals).toEqual(fromReport.removals);
    expect(() => restoreInputFrom({ lines: "x" })).toThrow(/lines: /);
    expect(() => restoreInputFrom(42)).toThrow(/expected the JSON report of an applying enforce run/);
  });
});

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

  it("the guard: more restores than --max-restores (or the policy's maxRemovals) exits 3 and sends only GET", async () => {
    await setup();
    const input = parseRestoreText(removeByHand({ projects: 3, groups: 2 }));
    const byOption = await run({ input, apply: true, maxRestores: 4 });
    expect(byOption.summary).toMatchObject({ restores: 5, guard: "tripped", maxRestores: 4, restored: 0 });
    expect(byOption.warnings.join()).toMatch(/guard: 5 restores, more than --max-restores 4; nothing was restored/);
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
    expect(report.actions[0]!.error).toMatch(new RegExp(`^not created: the answers were lost \\(.*answered 502.*; .*; .*\\); reading again found no such share; gave up after ${MAX_CREATE_ATTEMPTS} attempts, the most a share gets$`));
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

describe("restore asks the current policy", () => {
  /**
   * Whoever wrote the input chose every share in it: an allowed one (an acme group on an acme project),
   * an outside group at owner, the same outside group under an allowed group's name, and a project
   * outside the policy's scope.
   */
  function attackerFile() {
    const project = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/") && !p.path_with_namespace.startsWith("acme/legacy/"))!;
    const acmeGroup = sim.dataset.groups.find((g) => g.full_path.startsWith("acme/") && !project.shared_with_groups.some((s) => s.group_id === g.id))!;
    const outside = unsharedOutsideGroup(project);
    const other = sim.dataset.projects.find((p) => !p.path_with_namespace.startsWith("acme/") && !p.shared_with_groups.some((s) => s.group_id === acmeGroup.id))!;
    const share = (p: typeof project, groupId: number, group: string, accessLevel: number) => ({ type: "remove-share", projectId: p.id, project: p.path_with_namespace, groupId, group, accessLevel, expiresAt: null, reason: "stray", status: "done" });
    const text = JSON.stringify({
      job: "enforce",
      dryRun: false,
      actions: [share(project, acmeGroup.id, acmeGroup.full_path, 30), share(project, outside.id, outside.full_path, 50), share(project, outside.id, "acme/disguised", 50), share(other, acmeGroup.id, acmeGroup.full_path, 30)],
    });
    return { text, project, acmeGroup, outside, other };
  }

  it("a share the policy does not allow is skipped, judged by GitLab's paths for its ids, and nothing of it is created", async () => {
    await setup();
    const { text, outside } = attackerFile();
    const input = parseRestoreText(text);
    // Two lines for one share (the same ids): the last one is what the input asks for.
    expect(input.removals).toHaveLength(3);
    const report = await validated(restore({ gitlab: client(), policy: standard(), input, apply: true }));
    expect(report.actions.map((a) => [a.status, a.policy?.verdict])).toEqual([
      ["done", "allowed"],
      ["skipped", "stray"],
      ["skipped", "out-of-scope"],
    ]);
    // The disguised name is not what the report shows, nor what the policy was asked about.
    expect(report.actions[1]).toMatchObject({ group: outside.full_path, note: expect.stringMatching(/^the policy does not allow it \(no allow rule matches group .*\): not restored; change the policy first, or ask for it anyway with --include-stray/) });
    expect(report.summary).toMatchObject({ restores: 1, restored: 1, skipped: 2, notAllowed: 2, includeStray: false });
    expect(report.warnings.join("\n")).toMatch(/2 shares the current policy does not allow: not restored \(skipped\)\. Change the policy first/);
    expect(posts()).toBe(1);
  });

  it("a dry run shows, for each share, whether the policy allows it, and sends only GET", async () => {
    await setup();
    const { text } = attackerFile();
    sim.resetCounters();
    const report = await validated(restore({ gitlab: client(), policy: standard(), input: parseRestoreText(text) }));
    expect(report.actions.map((a) => [a.status, a.policy])).toEqual([
      ["planned", { verdict: "allowed", rule: "allow[0] acme/**" }],
      ["skipped", { verdict: "stray", reason: expect.stringMatching(/^no allow rule matches group /) }],
      ["skipped", { verdict: "out-of-scope", reason: expect.stringMatching(/^its scope does not include /) }],
    ]);
    expect(onlyGets()).toBe(true);
  });

  it("with includeStray every share is created, and the run warns that the next sweep removes them again", async () => {
    await setup();
    const { text, project, outside } = attackerFile();
    const report = await validated(restore({ gitlab: client(), policy: standard(), input: parseRestoreText(text), apply: true, includeStray: true }));
    expect(report.actions.map((a) => a.status)).toEqual(["done", "done", "done"]);
    expect(report.actions[1]!.note).toMatch(/^the policy does not allow it \(.*\): included as includeStray asks; the next sweep removes it again unless the policy changes first$/);
    expect(report.summary).toMatchObject({ restored: 3, notAllowed: 2, includeStray: true });
    expect(report.warnings.join("\n")).toMatch(/includeStray: 2 shares the current policy does not allow re-created; the next sweep or watch poll removes them again/);
    expect(project.shared_with_groups.find((s) => s.group_id === outside.id)).toMatchObject({ group_access_level: 50 });
    expect(posts()).toBe(3);
  });
});

describe("round trip: enforce --apply, then restore --apply", () => {
  async function removeStrays() {
    await setup();
    const before = snapshot();
    const lines: string[] = [];
    const audit = { info: (message: string, fields: Record<string, unknown>) => lines.push(JSON.stringify({ level: "INFO", message, ...fields })) };
    // A bad policy (no rule matches) removed every share in scope; the fixed one allows most of them back.
    const removal = await enforce({ gitlab: client(), policy: parsePolicy(EVERYTHING_STRAY, "bad.yaml"), apply: true, audit });
    const kinds = new Set(removal.actions.map((a) => a.kind));
    expect(kinds).toEqual(new Set(["project", "group"]));
    expect(snapshot().size).toBeLessThan(before.size);
    // A removed share whose expiry has passed is not brought back: GitLab would delete it that night.
    const expired = new Set(removal.actions.filter((a) => a.expiresAt !== null && a.expiresAt < TODAY).map((a) => (a.kind === "project" ? `project:${a.projectId}:${a.groupId}` : `group:${a.sharedGroupId}:${a.groupId}`)));
    const expected = new Map([...before].filter(([key]) => !expired.has(key)));
    return { report: JSON.stringify(removal), lines: lines.join("\n"), expected, expired: expired.size, removed: removal.summary.removed };
  }

  /**
   * What a restore under the fixed policy leaves out: the shares it skipped as not allowed, and those
   * GitLab refuses to create (the simulator's dataset holds projects shared with their own ancestor
   * group, which GitLab would never have let anyone make).
   */
  const withoutNotAllowed = (expected: Map<string, string>, report: RestoreReport) => {
    const refused = report.actions.filter((a) => a.status === "failed");
    expect(refused.every((a) => a.error === "GitLab refused (409): Project cannot be shared with the group it is in or one of its ancestors.")).toBe(true);
    const left = new Set([...refused, ...report.actions.filter((a) => a.policy?.verdict === "stray" || a.policy?.verdict === "out-of-scope")].map((a) => (a.kind === "project" ? `project:${a.projectId}:${a.groupId}` : `group:${a.sharedGroupId}:${a.groupId}`)));
    return new Map([...expected].filter(([key]) => !left.has(key)));
  };

  it("from the report: every share the fixed policy allows is back with its level, expiry and custom role, the strays are not", async () => {
    const { report, expected, expired, removed } = await removeStrays();
    const restored = await run({ input: parseRestoreText(report), apply: true, policy: standard() });
    const { notAllowed } = restored.summary;
    expect(notAllowed).toBeGreaterThan(0);
    const { failed } = restored.summary;
    expect(restored.summary).toMatchObject({ restored: removed - expired - notAllowed - failed, skipped: expired + notAllowed });
    expect(snapshot()).toEqual(withoutNotAllowed(expected, restored));
  });

  it("from the audit lines: the same", async () => {
    const { lines, expected, expired, removed } = await removeStrays();
    const restored = await run({ input: parseRestoreText(lines), apply: true, policy: standard() });
    expect(restored.summary).toMatchObject({ restored: removed - expired - restored.summary.notAllowed - restored.summary.failed });
    expect(snapshot()).toEqual(withoutNotAllowed(expected, restored));
  });
});
