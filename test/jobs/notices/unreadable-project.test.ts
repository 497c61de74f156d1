/**
 * A notices project Warden cannot read (its issues turned off by one of its Maintainers, the project
 * deleted, or its issue listing failing) once made every stray under onStray notify "notify", a notice to
 * open, though none would be. The guard counted those against gitlab.guard.maxRemovals, so once the pending
 * notices outnumbered it, nothing was removed anywhere, the strays of a scope under onStray remove too, and
 * the sweep's record held the watch's and the events' runs after it (the second notices review's finding):
 * whoever could make the notices project unreadable stopped the enforcement of shares they have no say
 * over. Those strays are held now ("pending", no notice), which the guard does not count.
 */
import { expect, it } from "vitest";
import { deletes, gitlabCall, later, open, run, sim, start, T0, world } from "../../support/notices-world.ts";
import { notifyPolicy } from "../../support/policies.ts";
import { validated } from "../../support/report.ts";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, sweepOf } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";

// acme/hard is under onStray remove; the rest of acme under notify. maxRemovals 3.
const POLICY = notifyPolicy({ scope: ", overrides: [{ group: acme/hard, onStray: remove }]", guard: "{ maxRemovals: 3, unmatchedRules: warn }" });

function dataset() {
  const d = world();
  d.groups.push({ id: 11, name: "hard", path: "hard", full_path: "acme/hard", parent_id: 10, visibility: "internal", shared_with_groups: [], owners: ["jane"] });
  const project = (id: number, path: string, namespace_id: number) =>
    ({ id, name: path.split("/").at(-1)!, path: path.split("/").at(-1)!, path_with_namespace: path, namespace_id, shared_with_groups: [], default_branch: "main", branches: ["main"], archived: false, previous_paths: [] });
  d.projects.push(project(301, "acme/p1", 10), project(302, "acme/p2", 10), project(110, "acme/hard/x", 11));
  return d;
}

it("a notices project that cannot be read does not stop the removal of a stray under onStray remove", async () => {
  await start(dataset());
  // Day 0: the two strays start() makes get notices; day 1: two more. Four notices pending, none due.
  await run({ apply: true, now: T0, policy: POLICY });
  for (const id of [301, 302]) await gitlabCall("jane", "POST", `/projects/${id}/share`, { group_id: 20, group_access: 30 }, 201);
  await run({ apply: true, now: later(1), policy: POLICY });
  expect(open()).toHaveLength(4);

  // Day 2: a stray share in acme/hard, which the policy removes at once; and the notices project's issues
  // become unreadable (a Maintainer there disabled issues: GitLab answers 403 to the listing).
  await gitlabCall("jane", "POST", "/projects/110/share", { group_id: 20, group_access: 30 }, 201);
  sim.addFaults({ kind: "status", status: 403, route: "GET /projects/:id/issues", times: 1_000_000 });
  const report = await run({ apply: true, now: later(2), policy: POLICY });
  expect(report.warnings.join("\n")).toContain("was not found, or the token cannot read it");
  // Nothing under notify is removed (the safe side), and no notice is opened: yet the share under remove must go.
  expect(report.warnings).not.toContainEqual(expect.stringMatching(/^guard: 4 notices to open/));
  expect(report.actions.find((a) => a.kind === "project" && a.projectId === 110)).toMatchObject({ status: "done" });
  expect(deletes()).toEqual(["DELETE /api/v4/projects/110/share/20"]);
});

it("nor, through the sweep's record, the removals of the watch and the events (targeted runs) after it", async () => {
  await start(dataset());
  await run({ apply: true, now: T0, policy: POLICY });
  for (const id of [301, 302]) await gitlabCall("jane", "POST", `/projects/${id}/share`, { group_id: 20, group_access: 30 }, 201);
  await run({ apply: true, now: later(1), policy: POLICY });
  sim.addFaults({ kind: "status", status: 403, route: "GET /projects/:id/issues", times: 1_000_000 });
  // The daily sweep (a dry run would do the same) while the notices cannot be read: its record is what targeted runs judge by.
  const sweep = await run({ now: later(2), policy: POLICY });
  const lastSweep = sweepOf(sweep);
  // Then a share in acme/hard, and the event about it: a targeted run of that project.
  await gitlabCall("jane", "POST", "/projects/110/share", { group_id: 20, group_access: 30 }, 201);
  const gitlab = new GitLabClient({ url: sim.url, token: "root", limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  const targeted = await validated(enforce({ gitlab, policy: parsePolicy(POLICY, "warden.yaml"), apply: true, now: later(2), targets: [{ kind: "project", path: "acme/hard/x" }], ...(lastSweep && { lastSweep }) }));
  expect(targeted.warnings).not.toContainEqual(expect.stringMatching(/the last full run .* planned more removals than gitlab\.guard\.maxRemovals allows/));
  expect(targeted.actions.find((a) => a.kind === "project" && a.projectId === 110)).toMatchObject({ status: "done" });
});
