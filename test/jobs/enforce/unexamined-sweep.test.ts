/**
 * A full sweep under a changed policy, with one group GitLab fails on for ever (made "not examined", so
 * that one group does not fail every scheduled run): such a run is incomplete, and sweepOf
 * (lib/jobs/enforce/rules.ts) recorded no `rules:last-sweep` from an incomplete run. So no full run ever
 * judged the policy while the group stayed broken, and the EventsWorker's targeted runs drew from the
 * shared removal budget for good: once gitlab.guard.maxRemovals removals were made by events, every
 * stream run tripped the guard saying "run warden enforce", which ran every day (a review of what may
 * stay stuck). A run whose examination went to the scope's end is remembered now, unexamined parts or not.
 */
import { afterEach, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, sweepAfter, sweepOf, type EnforceOptions, type EnforceReport } from "../../../lib/jobs/index.ts";
import type { RemovalBudget } from "../../../lib/jobs/enforce/summary.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../../sim/gitlab/index.ts";
import { groupSharesPolicy } from "../../support/policies.ts";
import { validated } from "../../support/report.ts";

const NOW = new Date("2026-03-10T12:00:00Z");
let sim: GitLabSim;
afterEach(() => sim?.close());

function run(policyText: string, opts: Partial<EnforceOptions> = {}): Promise<EnforceReport> {
  const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 1 } });
  return validated(enforce({ gitlab, now: NOW, ...opts, policy: parsePolicy(policyText, "test.yaml") }));
}

/** The budget as dynamoRemovalBudget keeps it, in memory. */
function memoryBudget(taken: number): RemovalBudget & { taken: number } {
  return {
    taken,
    async reserve(_sha, removals, limit) {
      if (this.taken + removals > limit) return false;
      this.taken += removals;
      return true;
    },
    async release(_sha, removals) {
      this.taken = Math.max(0, this.taken - removals);
    },
  };
}

it("a full sweep that passed the guard but could not read one group still lets the stream remove under its policy", async () => {
  const { dataset, intents } = generateOrganisation({ projects: 600, seed: 7, groupShares: true, now: NOW });
  const bad = dataset.groups.find((g) => g.full_path === "acme/mobile")!;
  sim = await startGitLabSim({ dataset, faults: [{ kind: "status", status: 500, method: "GET", path: `/api/v4/groups/${bad.id}`, times: 1_000_000 }] });
  const stray = intents.find((i) => i.kind === "project" && i.intent === "stray" && !dataset.projects.find((p) => p.id === i.projectId)!.path_with_namespace.startsWith("acme/mobile/"))!;
  const policy = groupSharesPolicy(1000);

  // Today's scheduled sweep, under the policy changed yesterday: guard ok, everything else examined.
  const sweep = await run(policy);
  expect(sweep.summary.guard).toBe("ok");
  expect(sweep.summary.unexamined).toBe(1);
  const record = sweepOf(sweep);
  expect(record).toMatchObject({ policySha256: sweep.policy!.sha256 });
  // One whose examination was cut short (a signal, the time limit) judged no whole plan: not remembered.
  expect(sweepOf({ ...sweep, summary: { ...sweep.summary, cutShort: true } })).toBeUndefined();

  // The events' runs under this policy have already removed maxRemovals shares: the budget is full.
  const budget = memoryBudget(1000);
  const streamRun = await run(policy, { apply: true, targets: [{ kind: "project", id: stray.kind === "project" ? stray.projectId : 0 }], removalBudget: budget, lastSweep: record! });
  expect(streamRun.warnings).not.toContainEqual(expect.stringMatching(/no full run has judged this policy yet/));
  expect(streamRun.summary.guard).toBe("ok");
});

/**
 * The recent-changes review: a sweep that left parts unexamined was remembered with every rule that
 * matched nothing in what it examined, a rule whose only matches lie in the part GitLab failed on
 * (exempt[1] here, "acme/legacy/**") included; every targeted run under the policy then refused it, so
 * one 500 on one group in the daily sweep stopped every watch and stream removal elsewhere, and the
 * sweep's own applying guard tripped on it too. Such a rule counts only where the record before agrees.
 */
it("a sweep that could not read one part of the scope stops neither itself nor the targeted runs on a rule that matched there before", async () => {
  const { dataset, intents } = generateOrganisation({ projects: 600, seed: 7, groupShares: true, now: NOW });
  const legacy = dataset.groups.filter((g) => g.full_path === "acme/legacy" || g.full_path.startsWith("acme/legacy/"));
  sim = await startGitLabSim({ dataset });
  const stray = intents.find((i) => i.kind === "project" && i.intent === "stray" && !dataset.projects.find((p) => p.id === i.projectId)!.path_with_namespace.startsWith("acme/legacy/"))!;
  const policy = groupSharesPolicy(1000);
  const target = { kind: "project" as const, id: stray.kind === "project" ? stray.projectId : 0 };

  // Yesterday's sweep read everything: exempt[1] matched in acme/legacy.
  const yesterday = sweepOf(await run(policy))!;
  expect(yesterday.unmatched).not.toContain("exempt[1]");

  // Today GitLab fails on acme/legacy's groups (a 500 past the retries).
  for (const g of legacy) sim.addFaults({ kind: "status", status: 500, method: "GET", path: `/api/v4/groups/${g.id}`, times: 1_000_000 });
  const today = await run(policy, { lastSweep: yesterday });
  expect(today.summary.unexamined).toBeGreaterThan(0);
  expect(today.warnings).toContainEqual(expect.stringMatching(/exempt\[1\].*matched in the last full run .* not refused, as \d+ parts? of the scope could not be examined/));
  // Without a record of the same policy, the safe side: refused.
  expect((await run(policy)).warnings).toContainEqual(expect.stringMatching(/^guard: \d+ rules? matched nothing \([^)]*exempt\[1\]/));

  // What the store keeps from today's record (functions/shared/state/last-sweep.ts writes sweepAfter's), and a targeted run by it removes.
  const kept = sweepAfter(yesterday, sweepOf(today)!);
  expect(kept.unmatched).not.toContain("exempt[1]");
  const targeted = await run(policy, { apply: true, targets: [target], lastSweep: kept });
  expect(targeted.warnings.filter((w) => w.startsWith("guard:")), "the targeted run's guard").toEqual([]);
  expect(targeted.summary.removed).toBe(1);

  // And the sweep itself, applying, removes the rest it examined: its guard is not tripped by a rule that matched yesterday.
  const applying = await run(policy, { apply: true, lastSweep: kept });
  expect(applying.warnings.filter((w) => w.startsWith("guard:"))).toEqual([]);
  expect(applying.summary.removed).toBeGreaterThan(0);
});
