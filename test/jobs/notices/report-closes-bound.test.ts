/**
 * Notices closed because their strays are now under onStray report: held to gitlab.guard.maxRemovals a
 * run, as the duplicates and the notices of shares no longer stray are (docs/how-enforce-works.md,
 * Bounds). Before, one policy edit (notify to report) closed every open notice in one run, each with a
 * PUT and a note notifying its assignee, whatever maxRemovals said (a review of notices).
 */
import { expect, it } from "vitest";
import { gitlabCall, later, open, POLICY, run, sim, start, T0, world } from "../../support/notices-world.ts";

it("a run closes at most maxRemovals of them, says how many are left, and later runs close the rest", async () => {
  const dataset = world();
  for (let i = 1; i <= 4; i++) dataset.projects.push({ id: 300 + i, name: `p${i}`, path: `p${i}`, path_with_namespace: `acme/p${i}`, namespace_id: 10, shared_with_groups: [], default_branch: "main", branches: ["main"], archived: false, previous_paths: [] });
  await start(dataset);
  for (let i = 1; i <= 4; i++) await gitlabCall("jane", "POST", `/projects/${300 + i}/share`, { group_id: 20, group_access: 30 }, 201);
  await run({ apply: true, now: T0 });
  expect(open()).toHaveLength(6);

  const reportOnly = POLICY.replace("onStray: notify", "onStray: report").replace("maxRemovals: 100", "maxRemovals: 2");
  expect(reportOnly).not.toBe(POLICY);
  sim.resetCounters();
  const first = await run({ apply: true, now: later(1), policy: reportOnly });
  const notes = () => sim.requests.filter((r) => r.method === "POST" && r.url.split("?")[0]!.endsWith("/notes")).length;
  expect(first.notices!.closed.filter((c) => c.status === "done")).toHaveLength(2);
  expect(notes()).toBe(2);
  expect(open()).toHaveLength(4);
  expect(first.warnings).toContainEqual(expect.stringMatching(/^notices: 4 more open notices to close than a run closes \(gitlab\.guard\.maxRemovals, 2\): later runs close them$/));
  await run({ apply: true, now: later(2), policy: reportOnly });
  await run({ apply: true, now: later(3), policy: reportOnly });
  expect(open()).toEqual([]);
});
