/**
 * A proxy (or a GitLab) that answers 429 to every read of a group's detail, for ever. Each request is
 * bounded by its retry budget (20 minutes by default), but a run reads a detail per group: when each
 * spent a budget of its own, a CLI run of 130 groups took ceil(130/16) × 20 min, some 3 hours, before its
 * report (a hostile review's finding). Once one request has given up on 429s, the route's later 429s end
 * their requests at once (lib/http/retry.ts), until it answers otherwise. Here the proxy asks for
 * Retry-After: 1 and the budget is 2 s, so the multiplication would show in seconds.
 */
import { afterEach, expect, it } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { enforce } from "../../lib/jobs/index.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { groupSharesPolicy } from "../support/policies.ts";

const NOW = new Date("2026-03-10T12:00:00Z");
const BUDGET_MS = 2_000;
let sim: GitLabSim | undefined;
afterEach(() => sim?.close());

it("a 429 for ever on every subgroup's detail: once the origin has refused everything for a whole request budget, the run ends soon after, not one budget per batch of groups", async () => {
  const { dataset } = generateOrganisation({ projects: 1_500, seed: 5, tree: { groups: 130, maxDepth: 3 }, groupShares: true, now: NOW });
  const subgroups = dataset.groups.filter((g) => g.full_path.startsWith("acme/"));
  expect(subgroups.length).toBeGreaterThan(100);
  // A 429 with Retry-After: 1, for ever, on every subgroup's detail; the scope group acme itself is read.
  const faults = subgroups.map((g) => ({ kind: "429" as const, headers: "retry-after" as const, seconds: 1, method: "GET", path: `/api/v4/groups/${g.id}`, times: 1_000_000 }));
  sim = await startGitLabSim({ dataset, faults, recordRequests: true });
  const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 1, budgetMs: BUDGET_MS } });
  const started = Date.now();
  const outcome = await enforce({ gitlab, now: NOW, policy: parsePolicy(groupSharesPolicy(), "test.yaml") }).then(
    (report) => ({ report, error: undefined }),
    (error: unknown) => ({ report: undefined, error }),
  );
  const elapsed = Date.now() - started;
  const refused = sim.counters.status[429] ?? 0;
  expect(elapsed, "a run against an origin refusing every read ends within a few request budgets").toBeLessThan(2 * BUDGET_MS + 1_500);
  // The run ends with its report, each group named as not examined, and says why: one try each after the first gave up.
  expect(outcome.error).toBeUndefined();
  expect(outcome.report!.summary).toMatchObject({ complete: false, unexamined: subgroups.length });
  expect(refused).toBeLessThan(subgroups.length + 20);
  expect(outcome.report!.unexamined!.map((p) => p.error)).toContainEqual(expect.stringContaining("not retried: an earlier request to GET /groups/:id met 429s until it gave up"));
}, 120_000);
