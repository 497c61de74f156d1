/**
 * A group whose project listing GitLab fails on every time (a page answering 500 after every retry):
 * before, the error failed the run, and every run after it. Now the rest of that listing is not
 * examined, named in the report as the projects of that group, and every other project is judged.
 */
import { expect, it } from "vitest";
import { exitCode } from "../../../lib/jobs/index.ts";
import { generateOrganisation } from "../../../sim/gitlab/index.ts";
import { planned, run, sim, startSim } from "../../support/enforce-world.ts";

it("a subgroup whose project listing answers 500 for ever is named as not examined; every project elsewhere is judged and its strays planned", async () => {
  const { dataset, intents } = generateOrganisation({ projects: 3_000, seed: 3, tree: { groups: 40, maxDepth: 4, heavy: 0.8 } });
  // The heaviest direct subgroup of acme: the split lists it by itself.
  const acme = dataset.groups.find((g) => g.full_path === "acme")!;
  const under = (path: string) => dataset.projects.filter((p) => p.path_with_namespace.startsWith(`${path}/`));
  const heavy = dataset.groups.filter((g) => g.parent_id === acme.id).sort((a, b) => under(b.full_path).length - under(a.full_path).length)[0]!;
  await startSim({ dataset, latencyMs: 5, detailProjects: false, recordRequests: true, faults: [{ kind: "status", status: 500, method: "GET", path: `/api/v4/groups/${heavy.id}/projects`, times: 1_000_000 }] });
  const report = await run({ listConcurrency: 8 });
  // The split did list the subgroup by itself, and met the 500s.
  expect(sim.requests.some((r) => r.url.startsWith(`/api/v4/groups/${heavy.id}/projects`))).toBe(true);
  expect(report.unexamined).toEqual([{ kind: "projects", id: heavy.id, path: heavy.full_path, error: expect.stringMatching(/answered 500/), lasting: false }]);
  expect(report.summary).toMatchObject({ complete: false, unexamined: 1 });
  expect(report.warnings).toContainEqual(expect.stringMatching(new RegExp(`^the projects of group ${heavy.id} \\(${heavy.full_path}\\) could not all be listed: .*answered 500.*: the rest of that listing was not examined; the next run tries it again$`)));
  expect(exitCode(report)).toBe(1);
  const inside = new Set(under(heavy.full_path).map((p) => p.id));
  const elsewhere = intents.filter((i) => i.kind === "project" && i.intent === "stray" && !inside.has(i.projectId)).map((i) => `${i.projectId}:${i.groupId}`).sort();
  expect(planned(report).filter((s) => !inside.has(Number(s.split(":")[0])))).toEqual(elsewhere);
});
