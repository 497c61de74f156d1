/**
 * Enforce cut into steps (lib/jobs/steps.ts), as a durable execution runs it: whatever the tree's
 * shape and wherever the slices end, the plan, the removals and the report are those of one
 * uninterrupted run, each project is judged once, and a step attempted again after a crash repeats
 * no removal.
 */
import { afterEach, describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, type EnforceOptions, type EnforceReport } from "../../../lib/jobs/index.ts";
import type { Steps } from "../../../lib/jobs/steps.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import type { GitLabSim } from "../../../sim/gitlab/index.ts";
import type { TreeShape } from "../../../sim/gitlab/generate-tree.ts";
import { groupSharesPolicy } from "../../support/policies.ts";
import { expectAlike, recordingSteps, removals, twinSims } from "../../support/steps.ts";
import { validated } from "../../support/report.ts";

const sims: GitLabSim[] = [];
afterEach(async () => {
  await Promise.all(sims.map((sim) => sim.close()));
  sims.length = 0;
});

const NOW = new Date("2026-06-01T00:00:00Z");

/** Twin simulators (test/support/steps.ts): `direct` for the run in one go, `stepped` for the run in steps. */
async function twins(opts: { projects: number; tree?: TreeShape; latencyMs?: number; seed?: number; shareHistory?: boolean }) {
  const { whole, stepped, strays } = await twinSims(sims, { seed: 5, now: NOW, ...opts });
  return { direct: whole, stepped, strays };
}

function run(sim: GitLabSim, steps?: Steps, opts: Partial<EnforceOptions> & { maxRemovals?: number } = {}): Promise<EnforceReport> {
  const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  return validated(enforce({ gitlab, policy: parsePolicy(groupSharesPolicy(opts.maxRemovals), "test.yaml"), now: NOW, listConcurrency: 8, ...opts }, steps));
}


describe("enforce in steps", () => {
  const shapes: [string, TreeShape][] = [
    ["one heavy subgroup", { groups: 40, maxDepth: 4, heavy: 0.8 }],
    ["six levels deep", { groups: 120, maxDepth: 6 }],
    ["thousands of tiny groups", { groups: 1_500, maxDepth: 5 }],
    ["projects in the scope group itself", { groups: 30, maxDepth: 3, root: 0.7 }],
  ];

  it.each(shapes)("%s: a dry run in many short slices plans exactly what one run plans, each project judged once, at the same cost", async (_name, tree) => {
    const { direct, stepped } = await twins({ projects: 4_000, tree, latencyMs: 2 });
    const whole = await run(direct);
    const steps = recordingSteps({ sliceMs: 15, perStep: 40 });
    const sliced = await run(stepped, steps);
    expectAlike(sliced, whole);
    expect(sliced.summary.complete).toBe(true);
    expect(steps.names.filter((n) => n.startsWith("examine")).length).toBeGreaterThan(3);
    // Each slice resumes each listing where it stood: nothing is read again but a page in flight at a split.
    expect(stepped.counters.requests).toBeLessThanOrEqual(Math.ceil(direct.counters.requests * 1.02));
    expect(sliced.stats.requests).toBe(stepped.counters.requests);
  });

  it("an apply in steps removes each stray once, in batches, with the report of one run", async () => {
    const { direct, stepped, strays } = await twins({ projects: 3_000, tree: { groups: 60, maxDepth: 4, heavy: 0.5 } });
    const whole = await run(direct, undefined, { apply: true });
    const steps = recordingSteps({ sliceMs: 10, perStep: 9 });
    const sliced = await run(stepped, steps, { apply: true });
    expect(strays).toBeGreaterThan(20);
    expectAlike(sliced, whole);
    expect(sliced.summary).toMatchObject({ strays, removed: strays, failed: 0, complete: true });
    expect(removals(stepped)).toBe(strays);
    expect(steps.names.filter((n) => n.startsWith("remove")).length).toBe(Math.ceil(strays / 9));
  });

  // The hostile-names durable test (test/functions/durable/hostile-names.test.ts) failed now and then on a loaded machine:
  // past perStepBytes the slice paused, but the pages in flight still came, and with them enough strays of 255-character
  // paths to pass a checkpoint. Past half as much again, a subject is left to be read by its id in the next slice.
  it("an examine step records at most half as much again as perStepBytes, whatever was in flight when it paused: the rest is read again by id", async () => {
    const { direct, stepped, strays } = await twins({ projects: 3_000, tree: { groups: 60, maxDepth: 4, heavy: 0.5 }, latencyMs: 2 });
    const whole = await run(direct, undefined, { apply: true });
    const sizes: number[] = [];
    const steps = recordingSteps({ sliceMs: 60_000, perStep: 1_000, perStepBytes: 600 });
    const step = steps.step.bind(steps);
    steps.step = async (name, work, opts) => {
      const result = await step(name, work, opts);
      if (name.startsWith("examine")) sizes.push(JSON.stringify((result as { strays: unknown[] }).strays).length);
      return result;
    };
    // An apply: what is read again by id costs requests (and group reads) a run in one go does not send.
    const sliced = await run(stepped, steps, { apply: true });
    expectAlike(sliced, whole);
    expect(sliced.summary).toMatchObject({ strays, removed: strays, complete: true });
    expect(sizes.length).toBeGreaterThan(3);
    // Half as much again, and the last subject judged before that (a project's strays: a few hundred bytes each).
    expect(Math.max(...sizes)).toBeLessThanOrEqual(900 + 1_500);
    // The projects left to the next slice, read by id there.
    expect(stepped.counters.byRoute["GET /projects/:id"]).toBeGreaterThan(0);
  });

  it("who added each stray is recorded in parts of at most perStep removals; a part resumed in another invocation reads again and names the same authors", async () => {
    const { direct, stepped, strays } = await twins({ projects: 3_000, shareHistory: true });
    const whole = await run(direct);
    const recorded = new Map<string, unknown>();
    const first = recordingSteps({ sliceMs: 10_000, perStep: 7 });
    const step = first.step.bind(first);
    first.step = async (name, work, opts) => {
      const result = await step(name, work, opts);
      recorded.set(name, result);
      return result;
    };
    const once = await run(stepped, first);
    expectAlike(once, whole);
    expect(once.actions.filter((a) => a.addedBy).length).toBeGreaterThan(strays / 2);
    const parts = [...recorded].filter(([name]) => name.startsWith("attribute")).map(([, result]) => ((result as { attributed?: unknown[] }).attributed ?? (result as { part: unknown[] }).part).length);
    expect(parts).toEqual([...Array(Math.ceil(strays / 7)).keys()].map((k) => Math.min(7, strays - 7 * k)));
    // Resumed after "attribute": it and every step before it replay their records, "attribute 2" on find nothing read.
    const resumed = recordingSteps({ sliceMs: 10_000, perStep: 7 });
    let replaying = true;
    resumed.step = async (name, work) => {
      if (!replaying) return JSON.parse(JSON.stringify(await work(1)));
      replaying = name !== "attribute";
      return recorded.get(name) as never;
    };
    const auditReads = () => Object.entries(stepped.counters.byRoute).reduce((n, [route, sent]) => n + (route.includes("audit_events") ? sent : 0), 0);
    const before = auditReads();
    const again = await run(stepped, resumed);
    expect(auditReads()).toBeGreaterThan(before);
    expect(again.actions.map((a) => a.addedBy)).toEqual(once.actions.map((a) => a.addedBy));
  });

  it("the guard is judged on the whole plan, however many steps found it: nothing is removed", async () => {
    const { stepped, strays } = await twins({ projects: 3_000 });
    const steps = recordingSteps({ sliceMs: 10, perStep: 5 });
    const report = await run(stepped, steps, { apply: true, maxRemovals: strays - 1 });
    expect(steps.names.filter((n) => n.startsWith("examine")).length).toBeGreaterThan(3);
    expect(report.summary).toMatchObject({ guard: "tripped", strays, removed: 0 });
    expect(Object.keys(stepped.counters.byRoute).filter((route) => !route.startsWith("GET "))).toEqual([]);
    expect(removals(stepped)).toBe(0);
  });

  it("a removal step cut off after its work is attempted again: every share judged again first, none removed twice, each removed one reported done", async () => {
    const { stepped, strays } = await twins({ projects: 3_000 });
    const steps = recordingSteps({ sliceMs: 50, perStep: 10, crash: ["remove 2", "examine 2"] });
    const report = await run(stepped, steps, { apply: true });
    expect(steps.crashed).toEqual(["examine 2", "remove 2"]);
    expect(removals(stepped)).toBe(strays);
    // The lost attempt's removals are found gone by the next attempt's reading: this run removed them, and
    // the report (which restore reads) says so, not "already-gone".
    const second = report.actions.slice(10, 20);
    expect(second.map((a) => a.status)).toEqual(Array(10).fill("done"));
    expect(report.summary).toMatchObject({ removed: strays, alreadyGone: 0 });
    // The examination slice attempted twice judged its projects once: the counts are the world's.
    const inScope = stepped.dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/")).length;
    expect(report.summary.projects).toBe(inScope);
  });

  it("a run whose time limit comes while removing leaves the batches not begun and says so", async () => {
    const { stepped, strays } = await twins({ projects: 3_000 });
    // Each removal takes 300 ms: the listing ends well inside the limit, the removals cannot.
    stepped.addFaults({ kind: "delay", ms: 300, route: "DELETE /projects/:id/share/:group_id", times: 10_000 }, { kind: "delay", ms: 300, route: "DELETE /groups/:id/share/:group_id", times: 10_000 });
    const steps = recordingSteps({ sliceMs: 10_000, perStep: 5 });
    const report = await run(stepped, steps, { apply: true, runLimitMs: 3_000 });
    expect(report.summary.complete).toBe(false);
    expect(report.summary.removed).toBeGreaterThan(0);
    expect(report.summary.removed).toBeLessThan(strays);
    expect(removals(stepped)).toBe(report.summary.removed);
    const left = report.actions.filter((a) => a.status === "planned").length;
    expect(report.warnings).toContainEqual(expect.stringMatching(new RegExp(`^stopped before ${left} of ${strays} removals \\(the run's time limit came at `)));
  });

  it("a run past its time limit stops listing, says how far it got and removes nothing", async () => {
    // At 20 ms a request the token check and the scope alone take 40 ms: the listing cannot end within
    // 60 ms on a fast machine, and on a loaded one it only stops earlier.
    const { stepped } = await twins({ projects: 3_000, latencyMs: 20 });
    const steps = recordingSteps({ sliceMs: 10, perStep: 1_000 });
    const report = await run(stepped, steps, { apply: true, runLimitMs: 60 });
    expect(report.summary.complete).toBe(false);
    expect(report.warnings.join("\n")).toMatch(/stopped while listing after \d+ projects \(the run's time limit came at/);
    expect(removals(stepped)).toBe(0);
  });
});
