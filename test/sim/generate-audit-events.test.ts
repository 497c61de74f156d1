/**
 * A generated organisation with its share history (generateOrganisation's `shareHistory`, used by
 * `npm run demo`): each share's creation event where GitLab records it, a realistic mix of recent,
 * old and unrecorded, and a plan that says who added each stray share it can.
 */
import { afterEach, expect, it } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { enforce } from "../../lib/jobs/index.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { groupSharesPolicy } from "../support/policies.ts";

const NOW = new Date("2026-06-15T12:00:00Z");
const DAY = 86_400_000;
const world = (shareHistory: boolean) => generateOrganisation({ projects: 400, seed: 9, groupShares: true, now: NOW, shareHistory });

let sim: GitLabSim | undefined;
afterEach(() => sim?.close());

it("leaves the organisation as the same seed makes it without history, and records nothing unless asked", () => {
  const [plain, seeded] = [world(false), world(true)];
  expect(plain.dataset.auditEvents).toBeUndefined();
  expect({ ...seeded.dataset, auditEvents: undefined }).toEqual({ ...plain.dataset, auditEvents: undefined });
  expect(seeded.intents).toEqual(plain.intents);
});

it("records each share where GitLab does, by one of the organisation's users, dated recently, long ago or not at all, ids in time order", () => {
  const { dataset } = world(true);
  const events = dataset.auditEvents!;
  const users = new Map(dataset.users.map((u) => [u.id, u.name]));
  const shares = [
    ...dataset.projects.flatMap((p) => p.shared_with_groups.map((s) => `project_group_link_created Group ${s.group_id} target ${p.id}`)),
    ...dataset.groups.flatMap((g) => g.shared_with_groups.map((s) => `group_share_with_group_link_created Group ${g.id} target ${s.group_id}`)),
  ];
  const recorded = events.map((e) => `${e.event_name} ${e.entity_type} ${e.entity_id} target ${e.details["target_id"]}`);
  // Every event is a share's, on the invited group (project shares) or the sharing group (group shares), and no share twice.
  expect(new Set(recorded).size).toBe(recorded.length);
  expect(recorded.filter((r) => !shares.includes(r))).toEqual([]);
  for (const e of events) expect(e.details["author_name"]).toBe(users.get(e.author_id));
  expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
  expect(events.map((e) => e.created_at)).toEqual(events.map((e) => e.created_at).sort());
  // The mix: most within the last 60 days, some older than a year, some shares with no event.
  const age = (e: (typeof events)[number]) => (NOW.getTime() - Date.parse(e.created_at)) / DAY;
  const recent = events.filter((e) => age(e) > 0 && age(e) <= 60).length;
  const old = events.filter((e) => age(e) >= 400).length;
  expect(recent + old).toBe(events.length);
  expect(recent / shares.length).toBeGreaterThan(0.6);
  expect(old / shares.length).toBeGreaterThan(0.05);
  expect(events.length / shares.length).toBeLessThan(0.95);
});

it("so a plan names who added each stray share recorded within its window, and only those", async () => {
  const { dataset } = world(true);
  sim = await startGitLabSim({ dataset, clock: () => NOW.getTime() });
  const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  const report = await enforce({ gitlab, policy: parsePolicy(groupSharesPolicy(), "test.yaml"), now: NOW });
  const named = report.actions.filter((a) => a.addedBy);
  expect(named.length).toBeGreaterThan(report.actions.length / 2);
  expect(report.actions.filter((a) => !a.addedBy).every((a) => a.attribution === "not recorded")).toBe(true);
  const names = new Set(dataset.users.map((u) => u.name));
  for (const a of named) {
    expect(names.has(a.addedBy!.name)).toBe(true);
    expect(NOW.getTime() - Date.parse(a.addedBy!.at)).toBeLessThanOrEqual(90 * DAY);
  }
});
