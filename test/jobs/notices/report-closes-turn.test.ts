/**
 * The notices of strays now under onStray report are closed at most maxRemovals a run (9f11e78), but were
 * taken in plan order, every run the same, while the golden-ratio turn (adcbaf7) covered only the notices
 * of shares no longer stray: with maxRemovals 1 and the first such close refused by GitLab every time,
 * every later notice under report stayed open for good, its assignee told nothing (the recent-changes
 * review). Every close of a run is now taken from one list, in the hour's turn (lib/jobs/notices/plan.ts).
 */
import { expect, it } from "vitest";
import { markedKey } from "../../../lib/jobs/notices/marker.ts";
import { gitlabCall, issues, later, open, POLICY, run, sim, start, T0, world } from "../../support/notices-world.ts";

it("one notice under report GitLab never lets Warden close does not keep every later one open", async () => {
  const dataset = world();
  for (let i = 1; i <= 2; i++) dataset.projects.push({ id: 300 + i, name: `p${i}`, path: `p${i}`, path_with_namespace: `acme/p${i}`, namespace_id: 10, shared_with_groups: [], default_branch: "main", branches: ["main"], archived: false, previous_paths: [] });
  await start(dataset);
  for (let i = 1; i <= 2; i++) await gitlabCall("jane", "POST", `/projects/${300 + i}/share`, { group_id: 20, group_access: 30 }, 201);
  await run({ apply: true, now: T0 });
  expect(open()).toHaveLength(4);

  const reportOnly = POLICY.replace("onStray: notify", "onStray: report").replace("maxRemovals: 100", "maxRemovals: 1");
  expect(reportOnly).not.toBe(POLICY);
  // Which notice the first run under report takes: GitLab refuses its close, every time (as notice-close-fails.test.ts).
  const first = await run({ apply: false, now: later(1), policy: reportOnly });
  const stuckKey = first.notices!.closed[0]!.share;
  const stuck = issues().find((i) => markedKey(i.description) === stuckKey)!;
  sim.addFaults({ kind: "status", status: 403, method: "PUT", path: `/api/v4/projects/security%2Faccess-notices/issues/${stuck.iid}`, times: 1_000_000 });

  for (let day = 1; day <= 8; day++) await run({ apply: true, now: later(day), policy: reportOnly });
  // Eight daily sweeps later, only the notice GitLab refuses to close should be open.
  expect(open().map((i) => markedKey(i.description))).toEqual([stuckKey]);
});
