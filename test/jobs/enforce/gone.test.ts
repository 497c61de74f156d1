/**
 * A group deleted while enforce lists its projects: GitLab answers its project listing with 404. The
 * group's projects went with it, so nothing of it is left to govern: the run goes on without it, says
 * so, and judges every other project, rather than failing as a whole (a durable sweep of hours meets
 * groups deleted on the way).
 */
import { expect, it } from "vitest";
import { generateOrganisation } from "../../../sim/gitlab/index.ts";
import { planned, run, sim, startSim } from "../../support/enforce-world.ts";

it("a subgroup whose project listing answers 404 mid-run (deleted since the split) is left out with a warning; every other project is judged", async () => {
  const { dataset, intents } = generateOrganisation({ projects: 3_000, seed: 3, tree: { groups: 40, maxDepth: 4, heavy: 0.8 } });
  // The heaviest direct subgroup of acme: the split lists it by itself.
  const acme = dataset.groups.find((g) => g.full_path === "acme")!;
  const under = (path: string) => dataset.projects.filter((p) => p.path_with_namespace.startsWith(`${path}/`));
  const heavy = dataset.groups.filter((g) => g.parent_id === acme.id).sort((a, b) => under(b.full_path).length - under(a.full_path).length)[0]!;
  await startSim({ dataset, latencyMs: 5, detailProjects: false, recordRequests: true, faults: [{ kind: "status", status: 404, method: "GET", path: `/api/v4/groups/${heavy.id}/projects`, times: 1_000 }] });
  const report = await run({ listConcurrency: 8 });
  // The split did list the subgroup by itself, and met the 404.
  expect(sim.requests.some((r) => r.url.startsWith(`/api/v4/groups/${heavy.id}/projects`))).toBe(true);
  expect(report.summary.complete).toBe(true);
  expect(report.warnings.join("\n")).toMatch(new RegExp(`the projects of group ${heavy.id} \\(${heavy.full_path}\\) could not be listed: GitLab answered 404`));
  const gone = new Set(under(heavy.full_path).map((p) => p.id));
  const strays = intents.filter((i) => i.kind === "project" && i.intent === "stray" && !gone.has(i.projectId)).map((i) => `${i.projectId}:${i.groupId}`).sort();
  expect(planned(report).filter((s) => !gone.has(Number(s.split(":")[0])))).toEqual(strays);
});
