import { afterEach, describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, exitCode, restoreInputFrom, type EnforceOptions, type EnforceReport } from "../../../lib/jobs/index.ts";
import { shareKey } from "../../../lib/jobs/shares/plan.ts";
import { parsePolicy, policySha256 } from "../../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim, type GitLabSimOptions } from "../../../sim/gitlab/index.ts";
import { groupSharesPolicy } from "../../support/policies.ts";
import { validated } from "../../support/report.ts";
import { actionKey, actionKeys, intentKey } from "../../support/share-keys.ts";

const NOW = new Date("2026-03-10T12:00:00Z");
let sim: GitLabSim;
afterEach(() => sim?.close());

async function setup(opts: GitLabSimOptions = {}) {
  const { dataset, intents } = generateOrganisation({ projects: 600, seed: 7, groupShares: true, now: NOW });
  sim = await startGitLabSim({ dataset, ...opts });
  const strays = intents.filter((i) => i.intent === "stray");
  return { dataset, intents, strays: strays.map(intentKey).sort(), groupStrays: strays.filter((i) => i.kind === "group").map(intentKey).sort() };
}

function run(opts: Omit<Partial<EnforceOptions>, "policy"> & { token?: string; maxRemovals?: number; policyText?: string } = {}): Promise<EnforceReport> {
  const gitlab = new GitLabClient({ url: sim.url, token: opts.token ?? sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  return validated(enforce({ gitlab, now: NOW, ...opts, policy: parsePolicy(opts.policyText ?? groupSharesPolicy(opts.maxRemovals), "test.yaml") }));
}

/** Every share in the simulator, of both kinds, with its level, expiry and role. */
function allShares(): string[] {
  const { projects, groups } = sim.dataset;
  return [
    ...projects.flatMap((p) => p.shared_with_groups.map((s) => `p${p.id}:${s.group_id} ${s.group_access_level} ${s.expires_at}`)),
    ...groups.flatMap((g) => g.shared_with_groups.map((s) => `g${g.id}:${s.group_id} ${s.group_access_level} ${s.expires_at} ${s.member_role_id ?? ""}`)),
  ].sort();
}

const nonGet = () => Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "));

describe("enforce: group shares", () => {
  it("a dry run plans exactly the strays of both kinds, reading each group in scope once with its own projects, and sends only GET", async () => {
    const { dataset, strays, groupStrays } = await setup({ recordRequests: true });
    const before = allShares();
    const report = await run();
    expect(groupStrays.length).toBeGreaterThan(5);
    expect(actionKeys(report.actions)).toEqual(strays);
    const inScope = dataset.groups.filter((g) => g.full_path === "acme" || g.full_path.startsWith("acme/"));
    expect(report.summary).toMatchObject({
      groups: inScope.length,
      groupShares: inScope.reduce((n, g) => n + g.shared_with_groups.length, 0),
      groupReads: inScope.length,
      strays: strays.length,
      guard: "ok",
      complete: true,
    });
    expect(sim.counters.byRoute["GET /groups/:id"]).toBe(inScope.length);
    const details = sim.requests.filter((r) => /^\/api\/v4\/groups\/[^/]+(\?|$)/.test(r.url));
    // The details carry the groups' own projects, which are judged from them (lib/jobs/enforce/examine/groups/detail-projects.ts).
    expect(details.every((r) => new URL(r.url, sim.url).searchParams.get("with_projects") === "true")).toBe(true);
    expect(report.summary.projects).toBe(dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/")).length);
    expect(nonGet()).toEqual([]);
    expect(allShares()).toEqual(before);
    expect(exitCode(report)).toBe(2);

    const group = report.actions.find((a) => a.kind === "group" && a.memberRoleId !== undefined)!;
    expect(group).toEqual({
      type: "remove-group-share",
      kind: "group",
      sharedGroupId: expect.any(Number),
      sharedGroup: expect.stringMatching(/^acme(\/|$)/),
      groupId: expect.any(Number),
      group: expect.any(String),
      accessLevel: expect.any(Number),
      accessLevelName: expect.any(String),
      expiresAt: expect.toBeOneOf([null, expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/)]),
      memberRoleId: 7,
      reason: expect.any(String),
      status: "planned",
      // The generated world records no audit events.
      addedBy: null,
      attribution: "not recorded",
    });
    expect(report.actions.find((a) => a.kind === "project")).toMatchObject({ type: "remove-share", kind: "project", expiresAt: expect.toBeOneOf([null, expect.any(String)]) });
  });

  it("apply removes exactly the strays of both kinds and nothing else, reads each touched group again, and writes one audit line each as answered, a group share's confirmation after", async () => {
    const { dataset, strays } = await setup({ recordRequests: true });
    const before = allShares();
    const audit: Record<string, unknown>[] = [];
    const report = await run({ apply: true, audit: { info: (message, fields) => audit.push({ message, ...fields }) } });
    expect(report.actions.every((a) => a.status === "done")).toBe(true);
    expect(report.summary).toMatchObject({ removed: strays.length, alreadyGone: 0, failed: 0, complete: true });
    const removed = new Set(strays);
    expect(allShares()).toEqual(before.filter((share) => !removed.has(share.split(" ")[0]!)));
    const deleted = sim.requests.filter((r) => r.method === "DELETE").map((r) => {
      const [, kind, id, groupId] = r.url.match(/(projects|groups)\/(\d+)\/share\/(\d+)/)!;
      return `${kind![0]}${id}:${groupId}`;
    });
    expect(deleted.sort()).toEqual(strays);
    // One detail per group in scope, then one per group whose shares were removed, to confirm: an
    // administrator's token too (with Admin Mode on, one without the admin_mode scope is a plain user's).
    const inScope = dataset.groups.filter((g) => g.full_path === "acme" || g.full_path.startsWith("acme/")).length;
    const touched = new Set(report.actions.flatMap((a) => (a.kind === "group" ? [a.sharedGroupId] : []))).size;
    expect(sim.counters.byRoute["GET /groups/:id"]).toBe(inScope + touched);
    expect(report.summary.groupReads).toBe(inScope + touched);

    // Each removal's line as its DELETE was answered; a group share's second line once its group was read again.
    const groupShares = report.actions.filter((a) => a.kind === "group").length;
    expect(audit.filter((line) => !line["confirmation"])).toHaveLength(strays.length);
    expect(audit.filter((line) => line["confirmation"] === true)).toHaveLength(groupShares);
    const group = report.actions.find((a) => a.kind === "group")!;
    const answered = audit.findIndex((line) => line["groupId"] === group.groupId && line["sharedGroupId"] === group.sharedGroupId && !line["confirmation"]);
    const confirmed = audit.findIndex((line) => line["groupId"] === group.groupId && line["sharedGroupId"] === group.sharedGroupId && line["confirmation"] === true);
    expect(answered).toBeGreaterThanOrEqual(0);
    expect(confirmed).toBeGreaterThan(answered);
    expect(audit[confirmed]).toMatchObject({ message: "remove-group-share", outcome: "done" });
    expect(audit).toContainEqual({
      message: "remove-group-share",
      kind: "group",
      sharedGroup: group.sharedGroup,
      sharedGroupId: group.sharedGroupId,
      group: group.group,
      groupId: group.groupId,
      accessLevel: group.accessLevel,
      expiresAt: group.expiresAt,
      memberRoleId: group.memberRoleId,
      addedBy: null,
      attribution: "not recorded",
      rule: group.reason,
      outcome: "done",
      error: undefined,
      // The GitLab it was written on: restore refuses another's lines.
      gitlabUrl: new URL(sim.url).origin,
      // The policy the change was judged by.
      policy: { source: "file", path: "test.yaml", sha256: policySha256(groupSharesPolicy()) },
    });
    expect(audit.filter((line) => line["message"] === "remove-share").every((line) => line["kind"] === "project" && "projectId" in line)).toBe(true);
    expect(exitCode(report)).toBe(0);
    expect((await run()).actions).toEqual([]);
  });

  it("a share its level keeps within maxAccess but whose custom role adds permissions is removed, unless the rule names the role in memberRoles", async () => {
    const { dataset, intents } = await setup();
    // One share `auditors` may hold (reporter or less, expiring within 90 days) given a custom role,
    // as a group Owner can on GitLab Ultimate: a Guest with admin_cicd_variables reads the CI secrets.
    const auditors = dataset.groups.find((g) => g.full_path === "auditors")!;
    const allowed = intents.find((i) => i.kind === "group" && i.groupId === auditors.id && i.intent === "allowed")!;
    const sharing = dataset.groups.find((g) => g.id === allowed.sharedGroupId)!;
    const link = sharing.shared_with_groups.find((s) => s.group_id === auditors.id)!;
    link.member_role_id = 9;
    const key = `g${sharing.id}:${auditors.id}`;

    const report = await run({ apply: true });
    const action = report.actions.find((a) => actionKey(a) === key);
    expect(action).toMatchObject({ memberRoleId: 9, status: "done", reason: expect.stringMatching(/^auditors at \w+ with custom role 9 exceeds maxAccess reporter of allow\[\d\] \(a custom role adds permissions/) });
    expect(sharing.shared_with_groups.some((s) => s.group_id === auditors.id)).toBe(false);

    // Named in the rule, the role is allowed: the same share is kept.
    sharing.shared_with_groups.push(link);
    const named = groupSharesPolicy().replace("        maxAccess: reporter\n", "        maxAccess: reporter\n        memberRoles: [9]\n");
    const again = await run({ apply: true, policyText: named });
    expect(again.actions.find((a) => actionKey(a) === key)).toBeUndefined();
    expect(sharing.shared_with_groups).toContain(link);
  });

  it("one guard over both kinds: a plan above maxRemovals, though each kind alone is within it, removes nothing and sends only GET", async () => {
    const { strays, groupStrays } = await setup();
    const limit = strays.length - 1;
    expect(Math.max(groupStrays.length, strays.length - groupStrays.length)).toBeLessThanOrEqual(limit);
    const before = allShares();
    const report = await run({ apply: true, maxRemovals: limit });
    expect(report.summary).toMatchObject({ guard: "tripped", strays: strays.length, removed: 0 });
    expect(report.actions.every((a) => a.status === "planned")).toBe(true);
    expect(report.warnings.join()).toMatch(/guard: \d+ removals planned \(project and group shares together\)/);
    expect(nonGet()).toEqual([]);
    expect(allShares()).toEqual(before);
    expect(exitCode(report)).toBe(3);
  });

  it("a 204 that kept the share (token without Owner on the sharing group) is reported failed, naming the group; shares it may change are removed", async () => {
    const { dataset } = await setup({ tokens: { "glpat-sim-admin": { admin: true }, "glpat-sim-auditor": { admin: false, auditor: true, username: "audra" } } });
    // Owner is inherited: audra may change the shares of acme/platform and every group below it.
    dataset.groups.find((g) => g.full_path === "acme/platform")!.owners = ["audra"];
    const owned = (path: string) => path === "acme/platform" || path.startsWith("acme/platform/");
    const audit: Record<string, unknown>[] = [];
    const report = await run({ token: "glpat-sim-auditor", apply: true, audit: { info: (message, fields) => audit.push({ message, ...fields }) } });
    const groups = report.actions.filter((a) => a.kind === "group");
    const kept = groups.filter((a) => !owned(a.sharedGroup));
    expect(kept.length).toBeGreaterThan(0);
    expect(groups.filter((a) => owned(a.sharedGroup)).length).toBeGreaterThan(0);
    for (const a of groups) {
      expect(a).toMatchObject(owned(a.sharedGroup) ? { status: "done" } : { status: "failed", error: `GitLab answered 204 but kept the share: the token needs Owner on ${a.sharedGroup}, or administrator` });
    }
    expect(report.actions.filter((a) => a.kind === "project").every((a) => a.status === "done")).toBe(true);
    expect(report.summary.failed).toBe(kept.length);
    // Each removal's line says what GitLab answered (204: "done"), as soon as it did; the confirmation lines the final outcome.
    const confirmations = audit.filter((line) => line["confirmation"] === true);
    expect(confirmations.filter((line) => line["outcome"] === "failed").map((line) => `${line["sharedGroupId"]}:${line["groupId"]}`).sort()).toEqual(kept.map((a) => `${a.sharedGroupId}:${a.groupId}`).sort());
    expect(audit.filter((line) => !line["confirmation"]).every((line) => line["outcome"] === "done")).toBe(true);
    // So restore from the lines re-creates what was removed, and not a share GitLab kept.
    const restorable = restoreInputFrom({ lines: audit });
    expect(restorable.removals.map(shareKey).sort()).toEqual(report.actions.filter((a) => a.status === "done").map(shareKey).sort());
    expect(restorable.notes).toContain(`only removals with status "done" are restored; the input also holds ${kept.length} kept by GitLab though it answered success: not restored`);
    expect(exitCode(report)).toBe(1);
    // The shares GitLab kept are the next run's whole plan.
    expect(actionKeys((await run({ token: "glpat-sim-auditor" })).actions)).toEqual(actionKeys(kept));
  });

  it("warns a token that is neither administrator nor auditor about both kinds of share", async () => {
    await setup({ tokens: { "glpat-sim-admin": { admin: true }, "glpat-sim-member": { admin: false, username: "member" } } });
    const report = await run({ token: "glpat-sim-member" });
    expect(report.warnings[0]).toMatch(/^the token \(member\) is not an administrator or auditor: GitLab lists only the shares \(of projects and of groups\) with groups it can see/);
    expect(report.warnings[0]).toMatch(/Owner on that group/);
  });

  it("a group-share removal whose first answer was lost (5xx after applying, dropped connection) is reported done, not already-gone", async () => {
    const { groupStrays } = await setup();
    // Each lost answer's retry (the delay of 0 lets it through) finds the link gone: 404 Group Link Not Found.
    const route = "DELETE /groups/:id/share/:group_id";
    sim.addFaults(
      { kind: "apply-then-status", status: 500, route, times: 1 },
      { kind: "delay", ms: 0, route, times: 1 },
      { kind: "apply-then-drop", route, times: 1 },
      { kind: "delay", ms: 0, route, times: 1 },
    );
    const report = await run({ apply: true, concurrency: 1 });
    const groups = report.actions.filter((a) => a.kind === "group");
    expect(actionKeys(groups)).toEqual(groupStrays);
    expect(groups.map((a) => a.status)).toEqual(groups.map(() => "done"));
    expect(report.summary.alreadyGone).toBe(0);
    expect(sim.counters.status).toMatchObject({ "404": 2, "500": 1, dropped: 1 });
    expect(sim.counters.byRoute[route]).toBe(groupStrays.length + 2);
  });

  it("a plan grown old is judged again on the group's current shares: changed shares are skipped or found gone, and a still-stray one is removed as it now is", async () => {
    const { dataset, groupStrays } = await setup({ recordRequests: true });
    const share = (key: string) => {
      const [sharedGroupId, groupId] = key.slice(1).split(":").map(Number);
      const group = dataset.groups.find((g) => g.id === sharedGroupId)!;
      return { group, share: group.shared_with_groups.find((s) => s.group_id === groupId)! };
    };
    // A share with auditors above maxAccess (allowed once lowered), one removed by hand, one raised to maintainer.
    const tooHigh = groupStrays.find((k) => share(k).share.group_full_path === "auditors" && share(k).share.group_access_level === 30)!;
    const [gone, raised] = groupStrays.filter((k) => k !== tooHigh && share(k).share.group_full_path !== "auditors");
    const inScope = { projects: dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/")).length, groups: dataset.groups.filter((g) => g.full_path === "acme" || g.full_path.startsWith("acme/")).length };
    let changed = false;
    const report = await run({
      apply: true,
      maxPlanAgeMs: 0,
      onProgress: (p) => {
        if (p.phase !== "examining") return;
        const { projects, groups } = p;
        if (changed || projects < inScope.projects || groups < inScope.groups) return;
        changed = true;
        share(tooHigh).share.group_access_level = 20;
        const { group } = share(gone!);
        group.shared_with_groups = group.shared_with_groups.filter((s) => `g${group.id}:${s.group_id}` !== gone);
        share(raised!).share.group_access_level = 40;
      },
    });
    const action = (key: string) => report.actions.find((a) => actionKey(a) === key)!;
    expect(action(tooHigh)).toMatchObject({ status: "skipped", error: expect.stringMatching(/^changed since it was planned \(now allowed by allow\[2\]/) });
    expect(action(gone!).status).toBe("already-gone");
    expect(action(raised!)).toMatchObject({ status: "done", accessLevel: 40 });
    const deleted = sim.requests.filter((r) => r.method === "DELETE").map((r) => r.url);
    expect(deleted.some((url) => url.includes(`/groups/${share(tooHigh).group.id}/share/${share(tooHigh).share.group_id}`))).toBe(false);
    // Once per sharing group to judge again, once per group touched to confirm.
    const sharing = new Set(groupStrays.map((k) => k.split(":")[0])).size;
    const touched = new Set(report.actions.flatMap((a) => (a.kind === "group" && a.status === "done" ? [a.sharedGroupId] : []))).size;
    expect(sim.counters.byRoute["GET /groups/:id"]).toBe(inScope.groups + sharing + touched);
  });

  it("a page of the group listing, asked for ahead while the groups before it are read, that fails is reported with its error: the subgroups not listed are not examined", async () => {
    const { dataset } = generateOrganisation({ projects: 10_000, seed: 7, groupShares: true, now: NOW });
    sim = await startGitLabSim({ dataset, latencyMs: 2 });
    expect(dataset.groups.filter((g) => g.full_path.startsWith("acme/")).length).toBeGreaterThan(100);
    // The second page is refused (a 400 is not retried) while the first page's groups are still being read.
    sim.beforeAnswer(({ route, url }) => {
      if (route === "GET /groups/:id/descendant_groups" && url.searchParams.get("page") === "2") sim.addFaults({ kind: "status", status: 400, route, times: 1 });
    });
    const report = await run();
    const acme = dataset.groups.find((g) => g.full_path === "acme")!;
    expect(report.unexamined).toEqual([{ kind: "subgroups", id: acme.id, error: expect.stringMatching(/descendant_groups.*answered 400/), lasting: true }]);
    expect(report.summary).toMatchObject({ complete: false, unexamined: 1 });
  });

  it("shares made by a scope group's ancestor, outside the scope, are listed as warnings and never governed; the ancestor is read once", async () => {
    const { dataset } = await setup({ recordRequests: true });
    const acme = dataset.groups.find((g) => g.full_path === "acme")!;
    expect(acme.shared_with_groups.length).toBeGreaterThan(0);
    const report = await run({ apply: true, policyText: groupSharesPolicy().replace("groups: [acme]", "groups: [acme/platform, acme/mobile]") });
    for (const s of acme.shared_with_groups) {
      expect(report.warnings).toContainEqual(expect.stringMatching(new RegExp(`^acme, above scope group acme/(platform|mobile) and outside the scope, is shared with ${s.group_full_path} as \\w+`)));
    }
    expect(report.actions.some((a) => a.kind === "group" && a.sharedGroup === "acme")).toBe(false);
    expect(acme.shared_with_groups.length).toBeGreaterThan(0);
    const inScope = dataset.groups.filter((g) => /^acme\/(platform|mobile)(\/|$)/.test(g.full_path)).length;
    expect(report.summary.groups).toBe(inScope);
    const reads = sim.requests.filter((r) => /^\/api\/v4\/groups\/[^/?]+\?/.test(r.url) && r.method === "GET").map((r) => decodeURIComponent(r.url.split("?")[0]!.split("/").pop()!));
    expect(reads.filter((id) => id === "acme" || id === String(acme.id))).toEqual(["acme"]);
  });

  it("an ancestor of the scope that GitLab fails on every time is reported as unknown, and the scope below it is enforced", async () => {
    const { dataset } = await setup({ faults: [{ kind: "status", status: 500, path: "/api/v4/groups/acme", times: 1_000_000 }] });
    const policyText = groupSharesPolicy().replace("groups: [acme]", "groups: [acme/platform]");
    const report = await run({ policyText });
    expect(report.warnings).toContainEqual(expect.stringMatching(/^acme, above scope group acme\/platform, could not be read \(.*answered 500.*\): the shares it makes reach into the scope and are unknown; the next run reads it again$/));
    expect(report.summary.complete).toBe(true);
    // The same run where acme answers: the same plan.
    sim.clearFaults();
    const answered = await run({ policyText });
    expect(report.actions).toEqual(answered.actions);
    expect(report.actions.length).toBeGreaterThan(0);
    expect(dataset.groups.some((g) => g.full_path.startsWith("acme/platform"))).toBe(true);
  });

  it("stopped while reading groups: complete is false, the warning says where, and nothing is removed", async () => {
    await setup({ latencyMs: 10 });
    const stop = new AbortController();
    const report = await run({ apply: true, signal: stop.signal, onProgress: (p) => p.phase === "examining" && p.groups >= 4 && stop.abort(new Error("deadline")) });
    expect(report.summary.complete).toBe(false);
    expect(report.warnings.join()).toMatch(/stopped while listing after \d+ projects \(deadline\), with \d+ groups read/);
    expect(nonGet()).toEqual([]);
    expect(exitCode(report)).toBe(1);
  });

  it("stopped between group-share removals: complete is false, what was removed is audited, the rest stays planned", async () => {
    await setup({ latencyMs: 5 });
    const stop = new AbortController();
    const audit: Record<string, unknown>[] = [];
    const report = await run({
      apply: true,
      concurrency: 1,
      signal: stop.signal,
      audit: { info: (message, fields) => (audit.push({ message, ...fields }), message === "remove-group-share" && stop.abort(new Error("deadline"))) },
    });
    expect(report.summary.complete).toBe(false);
    expect(audit.some((line) => line["message"] === "remove-group-share" && line["outcome"] === "done")).toBe(true);
    expect(report.actions.filter((a) => a.status === "planned").length).toBeGreaterThan(0);
    expect(audit).toHaveLength(report.actions.filter((a) => a.status !== "planned").length);
    expect(exitCode(report)).toBe(1);
  });

  it("without a scope, reads every group the token sees, by GET /groups", async () => {
    const { dataset } = await setup();
    const report = await run({ policyText: groupSharesPolicy().replace("  scope: { groups: [acme] }\n", "") });
    expect(report.summary.groups).toBe(dataset.groups.length);
    expect(sim.counters.byRoute["GET /groups"]).toBe(Math.ceil(dataset.groups.length / 100));
    expect(sim.counters.byRoute["GET /groups/:id"]).toBe(dataset.groups.length);
  });
});
