/**
 * Enforce limited to targets (lib/jobs/enforce/examine/targets.ts): a group with its subtree, a group
 * by itself, a project. The examination reads only the targets, the plan and removals hold only their
 * strays, the guard counts that plan; a target outside the scope or not on GitLab changes nothing.
 */
import { afterEach, describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, exitCode, ScopeError, type EnforceOptions, type EnforceReport } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim, type GitLabSimOptions, type ShareIntent } from "../../../sim/gitlab/index.ts";
import { groupSharesPolicy } from "../../support/policies.ts";
import { outcome, recordingSteps } from "../../support/steps.ts";
import { actionKey, actionKeys } from "../../support/share-keys.ts";

const NOW = new Date("2026-03-10T12:00:00Z");
const sims: GitLabSim[] = [];
let sim: GitLabSim;
afterEach(async () => {
  await Promise.all(sims.map((s) => s.close()));
  sims.length = 0;
});

/** The organisation (600 projects, groups acme, acme/mobile with ios and android, …) and its strays with their subjects' paths. */
async function setup(opts: GitLabSimOptions = {}) {
  const { dataset, intents } = generateOrganisation({ projects: 600, seed: 7, groupShares: true, now: NOW });
  sim = await startGitLabSim({ dataset, ...opts });
  sims.push(sim);
  const pathOf = (i: ShareIntent) =>
    i.kind === "project" ? dataset.projects.find((p) => p.id === i.projectId)!.path_with_namespace : dataset.groups.find((g) => g.id === i.sharedGroupId)!.full_path;
  const strays = intents.filter((i) => i.intent === "stray").map((i) => ({ key: i.kind === "project" ? `p${i.projectId}:${i.groupId}` : `g${i.sharedGroupId}:${i.groupId}`, kind: i.kind, path: pathOf(i) }));
  /** The strays whose subject (the project, or the sharing group) passes `where`. */
  const straysWhere = (where: (path: string, kind: "project" | "group") => boolean) => strays.filter((s) => where(s.path, s.kind)).map((s) => s.key).sort();
  return { dataset, all: strays.map((s) => s.key).sort(), straysWhere };
}

const under = (group: string) => (path: string) => path === group || path.startsWith(`${group}/`);

function run(opts: Omit<Partial<EnforceOptions>, "policy"> & { maxRemovals?: number; policyText?: string } = {}): Promise<EnforceReport> {
  const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  return enforce({ gitlab, now: NOW, ...opts, policy: parsePolicy(opts.policyText ?? groupSharesPolicy(opts.maxRemovals), "test.yaml") });
}

/** Every share in the simulator, of both kinds. */
function allShares(): string[] {
  const { projects, groups } = sim.dataset;
  return [...projects.flatMap((p) => p.shared_with_groups.map((s) => `p${p.id}:${s.group_id}`)), ...groups.flatMap((g) => g.shared_with_groups.map((s) => `g${g.id}:${s.group_id}`))].sort();
}

const nonGet = () => Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "));
/** The group ids (or paths) of every request under /groups/…, as sent. */
const groupsAsked = () => [...new Set(sim.requests.flatMap((r) => /^\/api\/v4\/groups\/([^/?]+)/.exec(r.url)?.[1] ?? []).map(decodeURIComponent))].sort();

describe("enforce --target", () => {
  it.each([true, false])("a group target (details carry projects: %s) examines only its subtree, plans only its strays, and sends only GET", async (detailProjects) => {
    const { dataset, straysWhere } = await setup({ recordRequests: true, detailProjects });
    const full = await run();
    const fullRequests = sim.counters.requests;
    sim.resetCounters();
    const report = await run({ targets: ["acme/mobile"] });
    const subtree = dataset.groups.filter((g) => under("acme/mobile")(g.full_path));
    expect(subtree.map((g) => g.full_path).sort()).toEqual(["acme/mobile", "acme/mobile/android", "acme/mobile/ios"]);
    expect(actionKeys(report.actions)).toEqual(straysWhere(under("acme/mobile")));
    expect(report.actions.length).toBeGreaterThan(3);
    expect(report.actions.length).toBeLessThan(full.actions.length);
    expect(report.summary).toMatchObject({
      projects: dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/mobile/")).length,
      groups: subtree.length,
      groupReads: subtree.length,
      guard: "ok",
      complete: true,
    });
    // Nothing outside the target is read: the scope group is looked up by path (its namespace), never read.
    expect(groupsAsked()).toEqual(subtree.map((g) => String(g.id)).sort());
    expect(nonGet()).toEqual([]);
    expect(sim.counters.requests).toBeLessThan(fullRequests / 2);
    expect(report.warnings).toContain("targeted run: only acme/mobile (group and its subgroups) examined; the rest of the scope was neither judged nor changed, and a rule that matched nothing here is reported only when it names a path the instance does not have (only a run over the whole scope shows the rest)");
    expect(exitCode(report)).toBe(2);
  });

  it("--apply on a group target removes exactly its strays; a rule that matches nothing in that part neither trips the guard nor is reported", async () => {
    const { all, straysWhere } = await setup({ recordRequests: true });
    const before = allShares();
    const audit: string[] = [];
    let confirmations = 0;
    // One line as each DELETE is answered; a group share's confirming read adds a line of its own.
    const info = (_message: string, fields: Record<string, unknown>) => void (fields["confirmation"] === true ? confirmations++ : audit.push(String(fields["project"] ?? fields["sharedGroup"])));
    const report = await run({ apply: true, targets: ["acme/platform"], audit: { info } });
    const target = straysWhere(under("acme/platform"));
    expect(actionKeys(report.actions)).toEqual(target);
    // The contractor rule allows shares on acme/mobile/** only: in acme/platform it matches nothing, which a full run would report.
    expect(report.summary.matched?.allow[1]).toBe(0);
    expect(report.warnings).toEqual([expect.stringMatching(/^targeted run: only acme\/platform \(group and its subgroups\) examined/)]);
    expect(report.summary).toMatchObject({ guard: "ok", removed: target.length, failed: 0 });
    const removed = new Set(target);
    expect(allShares()).toEqual(before.filter((share) => !removed.has(share)));
    expect(audit.every(under("acme/platform"))).toBe(true);
    expect(audit).toHaveLength(target.length);
    expect(confirmations).toBe(report.actions.filter((a) => a.kind === "group").length);
    expect(exitCode(report)).toBe(0);
    // A full run afterwards finds the rest, untouched.
    expect(actionKeys((await run()).actions)).toEqual(all.filter((key) => !removed.has(key)));
  });

  it("a project target is read with one GET (its look-up, whose answer the examination takes), and only its shares are judged and removed", async () => {
    const { dataset, straysWhere } = await setup({ recordRequests: true });
    const path = ["acme/mobile", "acme/platform", "acme/security"].flatMap((g) => dataset.projects.filter((p) => p.path_with_namespace.startsWith(`${g}/`))).map((p) => p.path_with_namespace).find((p) => straysWhere((s) => s === p).length > 0)!;
    const project = dataset.projects.find((p) => p.path_with_namespace === path)!;
    const report = await run({ targets: [path] });
    expect(actionKeys(report.actions)).toEqual(straysWhere((s) => s === path));
    expect(report.summary).toMatchObject({ projects: 1, shares: project.shared_with_groups.length, groups: 0, groupShares: 0, groupReads: 0 });
    // The token (and whether it acts as an administrator), the scope group's namespace, the target's (not a group), the project's look-up, which is its read;
    // then who added its strays: the administrator's instance listing of the invited group, 90 days in 30-day windows;
    // and the literal groups of the rules that matched nothing here (auditors, acme), once each: allow[1] (partners/contractor-x)
    // covers the target's stray, a share above its maxAccess, and so matched it.
    expect(report.actions.map((a) => a.reason)).toEqual(["partners/contractor-x at maintainer exceeds maxAccess developer of allow[1]"]);
    expect(sim.counters.byRoute).toEqual({ "GET /user": 1, "GET /application/statistics": 1, "GET /namespaces/:id": 2 + 2, "GET /projects/:id": 1, "GET /audit_events": 3 });
    expect(report.warnings).toContain(`targeted run: only ${path} (project) examined; the rest of the scope was neither judged nor changed, and a rule that matched nothing here is reported only when it names a path the instance does not have (only a run over the whole scope shows the rest)`);

    const applied = await run({ apply: true, targets: [{ kind: "project", path }] });
    expect(applied.summary).toMatchObject({ removed: report.actions.length, guard: "ok" });
    expect(dataset.projects.find((p) => p.id === project.id)!.shared_with_groups.map((s) => `p${project.id}:${s.group_id}`).filter((k) => report.actions.some((a) => actionKey(a) === k))).toEqual([]);
    expect(exitCode(applied)).toBe(0);
  });

  it("a group by itself (subtree: false) judges its own shares and its own projects', not its subgroups'", async () => {
    const { dataset, straysWhere } = await setup({ recordRequests: true });
    const own = (path: string, kind: "project" | "group") => (kind === "group" ? path === "acme/mobile" : path.split("/").slice(0, -1).join("/") === "acme/mobile");
    const report = await run({ targets: [{ kind: "group", path: "acme/mobile", subtree: false }] });
    expect(actionKeys(report.actions)).toEqual(straysWhere(own));
    expect(report.actions.some((a) => a.kind === "group") && report.actions.some((a) => a.kind === "project")).toBe(true);
    const mobile = dataset.groups.find((g) => g.full_path === "acme/mobile")!;
    expect(report.summary).toMatchObject({ projects: dataset.projects.filter((p) => own(p.path_with_namespace, "project")).length, groups: 1, groupReads: 1 });
    expect(groupsAsked()).toEqual([String(mobile.id)]);
    expect(report.warnings[0]).toMatch(/^targeted run: only acme\/mobile \(group by itself\) examined/);
  });

  it("a group by itself listed in pages is swept for moves over its own projects only: a project moved between its subgroups meanwhile is not judged", async () => {
    sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 2_000, seed: 3, tree: { groups: 30, maxDepth: 3, root: 0.7 } }).dataset, latencyMs: 2, detailProjects: false });
    sims.push(sim);
    const acme = sim.dataset.groups.find((g) => g.full_path === "acme")!;
    const subgroups = sim.dataset.groups.filter((g) => g.parent_id === acme.id);
    const own = () => sim.dataset.projects.filter((p) => p.namespace_id === acme.id).length;
    expect(own()).toBeGreaterThan(300);
    const moved = sim.dataset.projects.find((p) => p.namespace_id === subgroups[0]!.id)!;
    // While acme's own projects are listed, a project moves between two of its subgroups (its updated_at moves on).
    sim.beforeAnswer(({ route, url }) => {
      if (route === "GET /groups/:id/projects" && url.searchParams.get("page") === "2" && moved.namespace_id === subgroups[0]!.id) sim.moveProject(moved.id, subgroups[1]!.id);
    });
    const report = await run({ targets: [{ kind: "group", path: "acme", subtree: false }], listConcurrency: 4 });
    expect(moved.namespace_id).toBe(subgroups[1]!.id);
    expect(report.summary.projects).toBe(own());
    expect(report.actions.some((a) => a.kind === "project" && a.projectId === moved.id)).toBe(false);
  });

  it("repeated targets: one inside another is examined once, and a path in another case or with slashes names the same group", async () => {
    const { dataset, straysWhere } = await setup({ recordRequests: true });
    const ios = dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/mobile/ios/"))!.path_with_namespace;
    const report = await run({ targets: ["acme/mobile/ios", "ACME/Mobile/", ios, "/acme/security", "acme/mobile", { kind: "group", path: "acme/mobile", subtree: false }] });
    const inTargets = (path: string) => under("acme/mobile")(path) || under("acme/security")(path);
    expect(actionKeys(report.actions)).toEqual(straysWhere(inTargets));
    const groups = dataset.groups.filter((g) => inTargets(g.full_path));
    expect(report.summary).toMatchObject({ projects: dataset.projects.filter((p) => inTargets(p.path_with_namespace)).length, groups: groups.length, groupReads: groups.length });
    expect(groupsAsked()).toEqual(groups.map((g) => String(g.id)).sort());
    expect(report.warnings[0]).toMatch(/^targeted run: only acme\/mobile \(group and its subgroups\), acme\/security \(group and its subgroups\) examined;/);
  });

  it("without a scope (the whole instance), any path GitLab has is a target", async () => {
    const { straysWhere } = await setup();
    const policyText = groupSharesPolicy().replace("  scope: { groups: [acme] }\n", "");
    const report = await run({ targets: ["acme/mobile"], policyText });
    expect(actionKeys(report.actions)).toEqual(straysWhere(under("acme/mobile")));
    expect(report.warnings).toHaveLength(1);
  });

  it("a target outside the scope is refused before any request, naming the path and the scope", async () => {
    await setup();
    for (const targets of [["acme/mobile", "partners/contractor-x"], ["acme-ext"], [""], ["acme//mobile"]]) {
      const refused = run({ apply: true, targets });
      await expect(refused).rejects.toThrow(ScopeError);
      await expect(refused).rejects.toThrow(targets[0] === "acme/mobile" ? 'target "partners/contractor-x" is outside the policy\'s scope (gitlab.scope.groups: acme)' : `target "${targets[0]}"`);
    }
    await expect(run({ targets: [] })).rejects.toThrow(/targets: none given/);
    expect(sim.counters.requests).toBe(0);
  });

  it("a target GitLab does not have is refused, naming each, and nothing is changed", async () => {
    const { dataset } = await setup();
    const before = allShares();
    const project = dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/mobile/"))!.path_with_namespace;
    await expect(run({ apply: true, targets: ["acme/mobile", "acme/nope", { kind: "group", path: project, subtree: true }] })).rejects.toThrow(
      `target "acme/nope": GitLab has no group or project at this path (or the token cannot see it); target "${project}": GitLab has no group at this path (or the token cannot see it); nothing was examined or changed`,
    );
    await expect(run({ apply: true, targets: [{ kind: "project", path: "acme/mobile" }] })).rejects.toThrow('target "acme/mobile": GitLab has no project at this path');
    expect(nonGet()).toEqual([]);
    expect(allShares()).toEqual(before);
  });

  it("targets by id (as events name them): found on GitLab, checked against the scope then; one outside it or gone is left alone with a warning, not refused", async () => {
    const { dataset, straysWhere } = await setup();
    const mobile = dataset.groups.find((g) => g.full_path === "acme/mobile")!;
    const outside = dataset.groups.find((g) => g.full_path === "partners/contractor-x")!;
    const own = (path: string, kind: "project" | "group") => (kind === "group" ? path === "acme/mobile" : path.split("/").slice(0, -1).join("/") === "acme/mobile");
    const report = await run({ targets: [{ kind: "group", id: mobile.id, subtree: false }, { kind: "group", id: outside.id, subtree: false }, { kind: "project", id: 999_999 }] });
    expect(actionKeys(report.actions)).toEqual(straysWhere(own));
    expect(report.warnings).toEqual(expect.arrayContaining([
      `target group ${outside.id} is outside the policy's scope on GitLab: left alone`,
      "target project 999999: GitLab has no project at this path (or the token cannot see it): left alone",
      expect.stringMatching(/^targeted run: only acme\/mobile \(group by itself\) examined/),
    ]));
    // Not where it is: the report's readers may not see it in GitLab.
    expect(JSON.stringify(report.warnings)).not.toContain("contractor-x");
    const none = await run({ apply: true, targets: [{ kind: "group", id: outside.id, subtree: false }] });
    expect(none.actions).toEqual([]);
    expect(none.warnings).toContain("targeted run: no target was found in the policy's scope, so nothing was examined or changed");
    expect(nonGet()).toEqual([]);
  });

  it("a project target by id (an event's subject) is read once; its plan's age counts from that read, so one older than maxPlanAgeMs is read again before removal", async () => {
    const { dataset, straysWhere } = await setup({ recordRequests: true });
    const strayed = (p: (typeof dataset.projects)[number]) => straysWhere((s, kind) => kind === "project" && s === p.path_with_namespace).length > 0;
    const [fresh, late] = dataset.projects.filter(strayed);
    const reads = (id: number) => sim.requests.filter((r) => r.method === "GET" && r.url.split("?")[0] === `/api/v4/projects/${id}`).length;
    // A plan younger than 30 s is removed as read, however slow the machine.
    const quick = await run({ apply: true, maxPlanAgeMs: 30_000, targets: [{ kind: "project", id: fresh!.id }] });
    expect(quick.summary).toMatchObject({ projects: 1, removed: straysWhere((s, kind) => kind === "project" && s === fresh!.path_with_namespace).length, guard: "ok" });
    expect(reads(fresh!.id)).toBe(1);
    // The look-up's answer takes 1.5 s: judged as it arrives, the plan is still that read's, older than a second when removed.
    sim.addFaults({ kind: "delay", ms: 1_500, method: "GET", path: `/api/v4/projects/${late!.id}`, times: 1 });
    const slow = await run({ apply: true, maxPlanAgeMs: 1_000, targets: [{ kind: "project", id: late!.id }] });
    expect(slow.summary.removed).toBeGreaterThan(0);
    expect(reads(late!.id)).toBe(2);
  });

  it("a targeted run whose begin step is replayed from its record (a durable execution's next invocation) reads its project target in the examination", async () => {
    const { dataset, straysWhere } = await setup({ recordRequests: true });
    const project = dataset.projects.find((p) => straysWhere((s, kind) => kind === "project" && s === p.path_with_namespace).length > 0)!;
    const targets = [{ kind: "project" as const, id: project.id }];
    // The first run records its begin step as a checkpoint does (JSON); the second replays it, running every other step.
    let begun: unknown;
    const steps = (replay: boolean) => ({ ...recordingSteps({ sliceMs: 60_000, perStep: 1_000 }), step: async <T,>(name: string, work: (attempt: number) => Promise<T>): Promise<T> => {
      if (replay && name === "begin") return begun as T;
      const result = JSON.parse(JSON.stringify(await work(1))) as T;
      if (name === "begin") begun = result;
      return result;
    } });
    const gitlab = () => new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
    const go = (replay: boolean) => enforce({ gitlab: gitlab(), policy: parsePolicy(groupSharesPolicy(), "test.yaml"), now: NOW, targets }, steps(replay));
    const first = await go(false);
    sim.resetCounters();
    const replayed = await go(true);
    expect(actionKeys(replayed.actions)).toEqual(actionKeys(first.actions));
    expect(actionKeys(first.actions).length).toBeGreaterThan(0);
    // Begin replayed (no token check, no look-up); the examination read the project itself.
    expect(sim.counters.byRoute["GET /user"]).toBeUndefined();
    expect(sim.counters.byRoute["GET /projects/:id"]).toBe(1);
  });

  it("the guard counts what the targeted run plans: within maxRemovals it applies (a full run would trip), above it nothing is removed", async () => {
    const { all, straysWhere } = await setup();
    const target = straysWhere(under("acme/mobile"));
    expect(all.length).toBeGreaterThan(target.length);
    const before = allShares();
    const over = await run({ apply: true, targets: ["acme/mobile"], maxRemovals: target.length - 1 });
    expect(over.summary).toMatchObject({ guard: "tripped", strays: target.length, removed: 0 });
    expect(over.warnings.join("\n")).toContain(`guard: ${target.length} removals planned (project and group shares together), more than gitlab.guard.maxRemovals (${target.length - 1})`);
    expect(exitCode(over)).toBe(3);
    expect(allShares()).toEqual(before);
    expect((await run({ maxRemovals: target.length, apply: false })).summary.guard).toBe("tripped");
    const within = await run({ apply: true, targets: ["acme/mobile"], maxRemovals: target.length });
    expect(within.summary).toMatchObject({ guard: "ok", removed: target.length });
  });

  it("shares made above the scope group that holds a target are warned of as in a full run, never governed", async () => {
    const { dataset } = await setup({ recordRequests: true });
    const acme = dataset.groups.find((g) => g.full_path === "acme")!;
    expect(acme.shared_with_groups.length).toBeGreaterThan(0);
    const report = await run({ targets: ["acme/mobile/ios"], policyText: groupSharesPolicy().replace("groups: [acme]", "groups: [acme/platform, acme/mobile]") });
    for (const s of acme.shared_with_groups) {
      expect(report.warnings).toContainEqual(expect.stringMatching(new RegExp(`^acme, above scope group acme/mobile and outside the scope, is shared with ${s.group_full_path} as \\w+`)));
    }
    expect(report.summary.groups).toBe(1);
    expect(report.actions.every((a) => (a.kind === "group" ? a.sharedGroup : a.project).startsWith("acme/mobile/ios"))).toBe(true);
  });

  it("in steps, as a durable execution runs it, a targeted run plans what it plans in one go", async () => {
    const world = () => generateOrganisation({ projects: 3_000, seed: 3, tree: { groups: 60, maxDepth: 4, heavy: 0.6 }, groupShares: true, now: NOW }).dataset;
    const [whole, stepped] = await Promise.all([startGitLabSim({ dataset: world(), latencyMs: 2 }), startGitLabSim({ dataset: world(), latencyMs: 2 })]);
    sims.push(whole, stepped);
    const subgroups = whole.dataset.groups.filter((g) => g.full_path.split("/").length === 2 && g.full_path.startsWith("acme/"));
    const project = whole.dataset.projects.find((p) => !p.path_with_namespace.startsWith(`${subgroups[0]!.full_path}/`) && !p.path_with_namespace.startsWith(`${subgroups[1]!.full_path}/`))!;
    const targets = [subgroups[0]!.full_path, { kind: "group" as const, path: subgroups[1]!.full_path, subtree: false }, project.path_with_namespace];
    const go = (s: GitLabSim, listConcurrency: number, steps?: ReturnType<typeof recordingSteps>) => {
      const gitlab = new GitLabClient({ url: s.url, token: s.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
      return enforce({ gitlab, policy: parsePolicy(groupSharesPolicy(), "test.yaml"), now: NOW, targets, listConcurrency }, steps);
    };
    const direct = await go(whole, 8);
    // One request at a time, and a slice ends at its first stray: each answer carrying strays ends one.
    const steps = recordingSteps({ sliceMs: 5, perStep: 1 });
    const sliced = await go(stepped, 1, steps);
    expect(outcome(sliced)).toEqual(outcome(direct));
    expect(direct.summary.projects).toBeGreaterThan(100);
    expect(direct.summary.strays).toBeGreaterThan(5);
    expect(steps.names.filter((n) => n.startsWith("examine")).length).toBeGreaterThan(5);
  });
});
