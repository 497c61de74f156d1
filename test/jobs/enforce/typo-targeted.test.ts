/**
 * Issue 28 point 3: a targeted run (--target, the watch, the Events stream) must not enforce a policy
 * whose literal rule names nothing. The daily full run refuses a typo'd group (`partner/contractor-x`
 * for `partners/contractor-x`); before this, a run limited to acme/mobile removed that group's shares
 * there, share by share, each run under maxRemovals.
 *
 * A literal path GitLab fails on for ever (a partner's group outside the scope, which the run never
 * examines) is named with GitLab's answer, and the run goes on to its report, asking again next time: it
 * must not fail every watch batch and stream run. It holds the run's removals as a typo's would, unless the
 * last full run under the same policy found the rule matching (then it is no typo).
 */
import { afterEach, describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, exitCode, sweepOf, type EnforceOptions, type EnforceReport } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type Fault, type GitLabSim } from "../../../sim/gitlab/index.ts";
import { groupSharesPolicy } from "../../support/policies.ts";
import { actionKey, intentKey } from "../../support/share-keys.ts";

const NOW = new Date("2026-03-10T12:00:00Z");
let sim: GitLabSim;
afterEach(() => sim?.close());

/** The contractor rule with its group mistyped: the instance has partners/contractor-x, not partner/contractor-x. */
const TYPO = groupSharesPolicy().replace('group: "partners/contractor-x"', 'group: "partner/contractor-x"');
const NAMED = 'allow[1] (group "partner/contractor-x", projects "acme/mobile/**") names group partner/contractor-x, which the instance does not have';

async function start(faults: Fault[] = []) {
  const generated = generateOrganisation({ projects: 600, seed: 7, groupShares: true, now: NOW });
  sim = await startGitLabSim({ dataset: generated.dataset, recordRequests: true, faults });
  return generated;
}

function run(policy: string, opts: Partial<EnforceOptions>): Promise<EnforceReport> {
  const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  return enforce({ gitlab, now: NOW, ...opts, policy: parsePolicy(policy, "typo.yaml") });
}

const contractorShares = () => {
  const contractor = sim.dataset.groups.find((g) => g.full_path === "partners/contractor-x")!;
  return sim.dataset.projects.filter((p) => p.shared_with_groups.some((s) => s.group_id === contractor.id)).length;
};
const changes = () => Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "));
const namespaceLookUps = (path: string) => sim.requests.filter((r) => decodeURIComponent(r.url.split("?")[0]!).endsWith(`/namespaces/${path}`)).length;

describe("a literal rule naming nothing, in a targeted run", () => {
  it.each([
    ["a group path with its subtree (warden enforce --target)", () => ["acme/mobile"]],
    ["a group by id by itself (the watch)", () => [{ kind: "group" as const, id: sim.dataset.groups.find((g) => g.full_path === "acme/mobile/ios")!.id, subtree: false }]],
    ["a project by id (the Events stream)", () => {
      const contractor = sim.dataset.groups.find((g) => g.full_path === "partners/contractor-x")!;
      return [{ kind: "project" as const, id: sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/mobile/") && p.shared_with_groups.some((s) => s.group_id === contractor.id))!.id }];
    }],
  ])("trips the guard for %s, naming the rule, and removes nothing", async (_, targets) => {
    await start();
    const before = contractorShares();
    expect(before).toBeGreaterThan(0);
    sim.resetCounters();
    const report = await run(TYPO, { apply: true, targets: targets() });
    // The contractor's shares on acme/mobile are stray under the typo: the plan lists them, the guard holds.
    expect(report.actions.some((a) => a.group === "partners/contractor-x")).toBe(true);
    expect(report.warnings).toContainEqual(expect.stringContaining(NAMED));
    expect(report.warnings).toContainEqual(expect.stringMatching(/^guard: 1 rule matched nothing \(allow\[1\]\), and gitlab\.guard\.unmatchedRules is refuse; nothing was removed/));
    expect(report.summary).toMatchObject({ guard: "tripped", removed: 0 });
    expect(exitCode(report)).toBe(3);
    expect(changes()).toEqual([]);
    expect(contractorShares()).toBe(before);
  });

  it("a dry run says an applying run would remove nothing", async () => {
    await start();
    const report = await run(TYPO, { targets: ["acme/mobile"] });
    expect(report.warnings).toContainEqual(expect.stringMatching(/^guard: 1 rule matched nothing \(allow\[1\]\).*an applying run would remove nothing/));
    expect(report.summary.guard).toBe("ok");
  });

  it("the correct rule passes: the same targeted apply removes the strays", async () => {
    await start();
    const report = await run(groupSharesPolicy(), { apply: true, targets: ["acme/mobile"] });
    expect(report.summary).toMatchObject({ guard: "ok", failed: 0 });
    expect(report.summary.removed).toBe(report.actions.length);
    expect(report.actions.length).toBeGreaterThan(0);
    expect(report.warnings.filter((w) => w.startsWith("guard:"))).toEqual([]);
  });

  it("costs one look-up per literal path a run needs; a path found is not asked again by the next runs of the process, a missing one is", async () => {
    await start();
    // acme/platform: neither the contractor rule (acme/mobile only) nor, here, the auditors rule need match anything.
    sim.resetCounters();
    await run(groupSharesPolicy(), { targets: ["acme/platform"] });
    const first = { contractor: namespaceLookUps("partners/contractor-x"), auditors: namespaceLookUps("auditors") };
    expect(first.contractor).toBe(1);
    expect(first.auditors).toBeLessThanOrEqual(1);
    for (let i = 0; i < 3; i++) await run(groupSharesPolicy(), { targets: ["acme/platform"] });
    expect({ contractor: namespaceLookUps("partners/contractor-x"), auditors: namespaceLookUps("auditors") }).toEqual(first);
    // A path the instance does not have is asked each run (once, however many rules name it): the fix takes effect at once.
    const typos = TYPO.replace('      - group: "auditors"', '      - group: "partner/contractor-x"\n        groups: ["acme"]\n      - group: "auditors"');
    for (let i = 1; i <= 2; i++) {
      const report = await run(typos, { apply: true, targets: ["acme/platform"] });
      expect(report.summary.guard).toBe("tripped");
      expect(namespaceLookUps("partner/contractor-x")).toBe(i);
    }
    expect(changes()).toEqual([]);
  });
});

describe("a literal rule's path GitLab fails on for ever, in a targeted run", () => {
  it("is named with GitLab's answer and held as a typo would be, unless the last full run found its rule matching; the next run asks again", async () => {
    const { dataset, intents } = await start([{ kind: "status", status: 500, method: "GET", path: "/api/v4/namespaces/partners%2Fcontractor-x", times: 1_000_000 }]);
    // A stray outside acme/mobile/**, where the contractor rule matches nothing in a run of one project (so its path is looked up).
    const stray = intents.find((i) => i.intent === "stray" && i.kind === "project" && !dataset.projects.find((p) => p.id === i.projectId)!.path_with_namespace.startsWith("acme/mobile/"))!;
    const target = { kind: "project" as const, id: stray.kind === "project" ? stray.projectId : 0 };
    const lookUps = () => sim.requests.filter((r) => r.url.split("?")[0]!.endsWith("/namespaces/partners%2Fcontractor-x")).length;
    const named = 'allow[1] (group "partners/contractor-x", projects "acme/mobile/**") names group partners/contractor-x, which could not be looked up: GET /api/v4/namespaces/partners%2Fcontractor-x answered 500';
    // No full run under this policy yet: a typo cannot be told from GitLab failing, so nothing is removed, and the report says why.
    const held = await run(groupSharesPolicy(), { apply: true, targets: [target] });
    const first = lookUps();
    expect(first).toBeGreaterThan(0);
    expect(held.warnings).toContainEqual(expect.stringContaining(named));
    expect(held.summary).toMatchObject({ guard: "tripped", removed: 0 });
    expect(held.warnings).toContainEqual(expect.stringMatching(/^guard: 1 rule named a path that could not be looked up \(allow\[1\]\).*nothing was removed \(the next run asks again/));
    // The daily sweep under this same policy found the rule matching: no typo, whatever the look-up meets. The subject's strays are removed.
    const sweep = sweepOf(await run(groupSharesPolicy(), {}))!;
    expect(sweep.unmatched).toEqual([]);
    const report = await run(groupSharesPolicy(), { apply: true, targets: [target], lastSweep: sweep });
    expect(report.warnings).toContainEqual(expect.stringContaining(named));
    expect(report.summary.guard).toBe("ok");
    expect(report.actions.filter((a) => a.status === "done").map(actionKey)).toContain(intentKey(stray));
    // Not remembered as found: each targeted run asks again (lib/http's tries each time).
    expect(lookUps()).toBe(2 * first);
  });
});

/** The contractor rule with its projects' glob mistyped: it matches nothing anywhere, and names no literal path to look up. */
const GLOB_TYPO = groupSharesPolicy().replace('projects: ["acme/mobile/**"]', 'projects: ["acme/mobil/**"]');

describe("a glob rule the last full run found matching nothing, in a targeted run", () => {
  it("trips the guard when the sweep under the same policy found it, naming the rule and the sweep; removes nothing", async () => {
    await start();
    const sweep = sweepOf(await run(GLOB_TYPO, {}));
    expect(sweep).toMatchObject({ unmatched: ["allow[1]"], at: expect.any(String) });
    // Without what the sweep found, the targeted run cannot tell: it removes (today's behaviour, kept).
    const blind = await run(GLOB_TYPO, { targets: ["acme/mobile"] });
    expect(blind.warnings.filter((w) => w.startsWith("guard:"))).toEqual([]);
    const before = contractorShares();
    sim.resetCounters();
    const report = await run(GLOB_TYPO, { apply: true, targets: ["acme/mobile"], lastSweep: sweep });
    expect(report.actions.some((a) => a.group === "partners/contractor-x")).toBe(true);
    expect(report.warnings).toContainEqual(expect.stringContaining(`allow[1] (group "partners/contractor-x", projects "acme/mobil/**") matched nothing in the last full run (${sweep!.at})`));
    expect(report.warnings).toContainEqual(expect.stringMatching(/^guard: 1 rule matched nothing \(allow\[1\]\), and gitlab\.guard\.unmatchedRules is refuse; nothing was removed/));
    expect(report.summary).toMatchObject({ guard: "tripped", removed: 0 });
    expect(changes()).toEqual([]);
    expect(contractorShares()).toBe(before);
  });

  it("is ignored under another policy: the fixed one removes", async () => {
    await start();
    const sweep = sweepOf(await run(GLOB_TYPO, {}))!;
    const report = await run(groupSharesPolicy(), { apply: true, targets: ["acme/mobile"], lastSweep: sweep });
    expect(report.warnings.filter((w) => w.startsWith("guard:") || w.includes("last full run"))).toEqual([]);
    expect(report.summary).toMatchObject({ guard: "ok", failed: 0 });
    expect(report.summary.removed).toBeGreaterThan(0);
  });
});

