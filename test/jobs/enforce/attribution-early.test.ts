/**
 * Attribution during the examination (lib/jobs/enforce/attribution-early.ts): a group's audit
 * events are read while the examination runs, in its slots, no page more than a run
 * must read (bin/bench/audit-bound.ts counts those), each page once however a durable run is cut, and
 * a saved plan's apply reads none. Worlds record who made each share as GitLab does
 * (generateOrganisation's shareHistory); requests are counted on the simulator.
 */
import { afterEach, describe, expect, it } from "vitest";
import { auditBound } from "../../../bin/bench/audit-bound.ts";
import { auditWindows, GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { applyPlan, enforce, planFile, type EnforceReport } from "../../../lib/jobs/index.ts";
import { attributionBudget } from "../../../lib/jobs/enforce/attribution.ts";
import type { Steps } from "../../../lib/jobs/steps.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabDataset, type GitLabSim } from "../../../sim/gitlab/index.ts";
import { ACME_ONLY, standardPolicy } from "../../support/policies.ts";
import { validated } from "../../support/report.ts";

const NOW = new Date("2026-06-01T00:00:00Z");
let sim: GitLabSim | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/** An organisation whose shares GitLab recorded, and the audit-event pages and authors attributing its strays takes. */
async function world(opts: { slowLast?: boolean } = {}) {
  const { dataset, intents } = generateOrganisation({ projects: 1_200, seed: 4, now: NOW, shareHistory: true });
  sim = await startGitLabSim({ dataset, latencyMs: 2 });
  if (opts.slowLast) {
    // The examination's last group detail is slow to answer: the examination waits on it with its other slots idle.
    const details = dataset.groups.filter((g) => g.full_path === "acme" || g.full_path.startsWith("acme/")).length;
    sim.addFaults({ kind: "delay", ms: 0, route: "GET /groups/:id", times: details - 1 }, { kind: "delay", ms: 1_500, route: "GET /groups/:id", times: 1 });
  }
  // Its pages and authors (the rounds they take are the bench's floor's, not counted here).
  const must = auditBound(dataset.auditEvents!, intents.filter((i) => i.intent === "stray"), NOW, () => 0);
  return { dataset, must, strays: intents.filter((i) => i.intent === "stray").length };
}

const client = (s: GitLabSim) => new GitLabClient({ url: s.url, token: s.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 1, maxRetries: 2 } });
const count = (s: GitLabSim, match: (route: string) => boolean) => Object.entries(s.counters.byRoute).filter(([route]) => match(route)).reduce((n, [, c]) => n + c, 0);
const auditPages = (s: GitLabSim) => count(s, (route) => route.includes("audit_events"));
const userReads = (s: GitLabSim) => count(s, (route) => route === "GET /users/:id");

/** Steps recorded as a durable execution checkpoints them: replayed from `recorded` when there, and the invocation ending at `endAt` (a step not recorded). */
function replaying(recorded: Map<string, unknown>, endAt?: (name: string) => boolean): Steps {
  return {
    perStep: 1_000,
    sliceEnd: () => Infinity,
    pause: async () => {},
    async step<T>(name: string, run: (attempt: number) => Promise<T>): Promise<T> {
      if (recorded.has(name)) return recorded.get(name) as T;
      if (endAt?.(name)) throw new Error(`the invocation ended before step ${name}`);
      const result = JSON.parse(JSON.stringify(await run(1))) as T;
      recorded.set(name, result);
      return result;
    },
  };
}

const examined = (recorded: Map<string, unknown>) => (recorded.get("examine 1") as { attribution?: { pages: number } }).attribution?.pages ?? 0;

describe("enforce: attribution during the examination", () => {
  it("reads while the examination waits, no page more than a run must read, each group's windows once, and one look-up per author", async () => {
    const { must, strays } = await world({ slowLast: true });
    const recorded = new Map<string, unknown>();
    const report = await validated(enforce({ gitlab: client(sim!), policy: parsePolicy(standardPolicy(), "test.yaml"), now: NOW }, replaying(recorded)));
    expect(report.summary.strays).toBe(strays);
    // Every page was read in the examination, while its last detail was on its way: none was left for after the guard.
    expect(examined(recorded)).toBe(must.auditPages);
    expect(auditPages(sim!)).toBe(must.auditPages);
    expect(userReads(sim!)).toBe(must.authors);
    expect(report.stats.auditRequests).toBe(must.auditPages);
    // Every stray attributed or said why not; some by name, as the world recorded them.
    expect(report.actions.every((a) => a.addedBy || a.attribution)).toBe(true);
    expect(report.actions.filter((a) => a.addedBy).length).toBeGreaterThan(strays / 2);
  });

  it("an examination that keeps every slot busy to its end still reads every page while it runs: a group's read takes slots as a chain does", async () => {
    const { must } = await world();
    const recorded = new Map<string, unknown>();
    // Two slots and hundreds of detail reads: no slot is idle until the examination's last answers.
    await enforce({ gitlab: client(sim!), policy: parsePolicy(standardPolicy(), "test.yaml"), now: NOW, listConcurrency: 2 }, replaying(recorded));
    expect(examined(recorded)).toBe(must.auditPages);
    expect(auditPages(sim!)).toBe(must.auditPages);
  });

  it("a run in one go, without a slow answer: the same pages, authors and attributions", async () => {
    const { must } = await world();
    const report = await validated(enforce({ gitlab: client(sim!), policy: parsePolicy(standardPolicy(), "test.yaml"), now: NOW }));
    expect(auditPages(sim!)).toBe(must.auditPages);
    expect(userReads(sim!)).toBe(must.authors);
    expect(report.stats.attribution).toMatchObject({ requests: must.auditPages, stoppedAtBudget: false });
  });

  it("a durable run resumed after its examine step reads no window again: the step's checkpoint carries what it attributed", async () => {
    const { must } = await world({ slowLast: true });
    const recorded = new Map<string, unknown>();
    const policy = parsePolicy(standardPolicy(), "test.yaml");
    // The first invocation ends right after the examination's step is recorded.
    await expect(enforce({ gitlab: client(sim!), policy, now: NOW }, replaying(recorded, (name) => !/^(begin|examine \d+)$/.test(name)))).rejects.toThrow(/invocation ended/);
    const first = auditPages(sim!);
    expect(first).toBe(must.auditPages);
    expect(examined(recorded)).toBe(must.auditPages);
    sim!.resetCounters();
    const resumed: EnforceReport = await validated(enforce({ gitlab: client(sim!), policy, now: NOW }, replaying(recorded)));
    expect(auditPages(sim!)).toBe(0);
    expect(resumed.actions.filter((a) => a.addedBy).length).toBeGreaterThan(0);
    expect(resumed.stats.auditRequests).toBe(must.auditPages);
  });

  it("the apply of a signed saved plan reads no audit event: the plan carries who added each share (an unsigned one's is not repeated: test/jobs/apply/forged-attribution.test.ts)", async () => {
    await world();
    const policy = parsePolicy(standardPolicy(), "test.yaml");
    const planned = await enforce({ gitlab: client(sim!), policy, now: NOW });
    const plan = planFile({ removals: planned.actions, policy, gitlabUrl: sim!.url, createdAt: NOW, wardenVersion: "test", unmatchedRules: [] });
    expect(plan.removals.filter((r) => r.addedBy).length).toBeGreaterThan(0);
    sim!.resetCounters();
    const applied = await validated(applyPlan({ gitlab: client(sim!), policy, plan, signed: true, apply: true, now: NOW }));
    expect(applied.summary.removed).toBe(planned.actions.length);
    expect(auditPages(sim!) + userReads(sim!)).toBe(0);
    expect(applied.actions.map((a) => a.addedBy ?? a.attribution)).toEqual(planned.actions.map((a) => a.addedBy ?? a.attribution));
  });

  it("a bad policy that makes every share stray, refused by the guard: attribution spends no more than its budget, and the report counts it", async () => {
    const { dataset } = await world({ slowLast: true });
    // Everything in acme is stray: hundreds of removals, refused at 20.
    const bad = parsePolicy(standardPolicy(20).replace(/    allow:\n(.|\n)*?    exempt:\n.*\n/, "    allow:\n      - group: nobody/**\n"), "bad.yaml");
    const report = await validated(enforce({ gitlab: client(sim!), policy: bad, now: NOW, apply: true }));
    expect(report.summary).toMatchObject({ guard: "tripped", removed: 0 });
    expect(report.summary.strays).toBeGreaterThan(500);
    const budget = attributionBudget({ projects: report.summary.projects, groups: report.summary.groups, removals: report.summary.strays });
    expect(auditPages(sim!)).toBeLessThanOrEqual(budget);
    expect(report.stats.auditRequests).toBe(auditPages(sim!));
    expect(count(sim!, (route) => route.startsWith("DELETE"))).toBe(0);
    expect(dataset.projects.length).toBeGreaterThan(0);
  });

  it("a read whose page comes back after the examination's end asks for its next page then, not after every other read in flight", async () => {
    // Two projects shared with partner-a and partner-b, recorded by no event: each group's three 30-day windows are read.
    const group = (id: number, path: string, parent: number | null = null) => ({ id, name: path, path, full_path: path, parent_id: parent, visibility: "internal" as const, shared_with_groups: [], owners: [] });
    const dataset: GitLabDataset = {
      groups: [group(10, "acme"), { ...group(11, "slow", 10), full_path: "acme/slow" }, group(100, "partner-a"), group(101, "partner-b")],
      users: [],
      projects: [100, 101].map((partner) => ({
        id: partner * 10, name: `app-${partner}`, path: `app-${partner}`, path_with_namespace: `acme/app-${partner}`, namespace_id: 10, default_branch: "main", branches: ["main"], archived: false, previous_paths: [],
        shared_with_groups: [{ group_id: partner, group_name: `p${partner}`, group_full_path: `p${partner}`, group_access_level: 30, expires_at: null }],
      })),
    };
    sim = await startGitLabSim({ dataset, latencyMs: 40, recordRequests: true });
    // partner-b's read begins first (its project is the newer) and its second window answers late; the examination
    // ends on acme/slow's detail while partner-a's read is under way.
    const second = auditWindows(NOW, 90)[1]!.createdAfter!.toISOString();
    sim!.addFaults({ kind: "delay", ms: 40, path: "/api/v4/groups/11", times: 1 }, { kind: "delay", ms: 600, query: { entity_id: "101", created_after: second }, times: 1 });
    const report = await validated(enforce({ gitlab: client(sim!), policy: parsePolicy(ACME_ONLY, "test.yaml"), now: NOW }));
    expect(report.actions.map((a) => a.attribution)).toEqual(["not recorded", "not recorded"]);
    const reads = (entity: string) => sim!.requests.filter((r) => r.url.includes("/audit_events?") && r.url.includes(`entity_id=${entity}&`)).map((r) => r.at);
    const [a, b] = [reads("100"), reads("101")];
    expect([a.length, b.length]).toEqual([3, 3]);
    // partner-a's windows went on while partner-b's slow page was on its way, not after its answer.
    expect(a[2]! - b[1]!).toBeLessThan(400);
  });
});
