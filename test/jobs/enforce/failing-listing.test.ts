/**
 * A subgroup whose project listing GitLab fails on every time, while enforce lists it: with 404, the
 * group was deleted since the run found it, and its projects with it, so nothing of it is left to
 * govern (a durable sweep of hours meets groups deleted on the way); with 500 after every retry, the rest
 * of that listing is not examined, named in the report as the projects of that group. Either way the
 * run goes on and judges every other project, where it used to fail as a whole, and every run after it.
 */
import { expect, it } from "vitest";
import { exitCode, type EnforceReport } from "../../../lib/jobs/index.ts";
import { generateOrganisation, type ShareIntent } from "../../../sim/gitlab/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { planned, run, sim, startSim } from "../../support/enforce-world.ts";
import { standardPolicy } from "../../support/policies.ts";
import { recordingSteps } from "../../support/steps.ts";

/** The run over an uneven tree whose heaviest direct subgroup of acme (which the split lists by itself) answers its project listing with `status` (and `message`). */
async function heavyListingAnswers(status: number, message?: string) {
  const { dataset, intents } = generateOrganisation({ projects: 3_000, seed: 3, tree: { groups: 40, maxDepth: 4, heavy: 0.8 } });
  const acme = dataset.groups.find((g) => g.full_path === "acme")!;
  const under = (path: string) => dataset.projects.filter((p) => p.path_with_namespace.startsWith(`${path}/`));
  const heavy = dataset.groups.filter((g) => g.parent_id === acme.id).sort((a, b) => under(b.full_path).length - under(a.full_path).length)[0]!;
  await startSim({ dataset, latencyMs: 5, detailProjects: false, recordRequests: true, faults: [{ kind: "status", status, ...(message && { message }), method: "GET", path: `/api/v4/groups/${heavy.id}/projects`, times: 1_000_000 }] });
  const report = await run({ listConcurrency: 8 });
  // The split did list the subgroup by itself, and met the failure.
  expect(sim.requests.some((r) => r.url.startsWith(`/api/v4/groups/${heavy.id}/projects`))).toBe(true);
  return { report, heavy, inside: new Set(under(heavy.full_path).map((p) => p.id)), intents };
}

/** Every project outside `inside` was judged: its strays are the plan's. */
function expectJudgedElsewhere(report: EnforceReport, inside: ReadonlySet<number>, intents: readonly ShareIntent[]) {
  const elsewhere = intents.filter((i) => i.kind === "project" && i.intent === "stray" && !inside.has(i.projectId)).map((i) => `${i.projectId}:${i.groupId}`).sort();
  expect(planned(report).filter((s) => !inside.has(Number(s.split(":")[0])))).toEqual(elsewhere);
}

it("a subgroup whose project listing answers GitLab's 404 Group Not Found mid-run (deleted since the split) is left out with a warning; every other project is judged", async () => {
  const { report, heavy, inside, intents } = await heavyListingAnswers(404, "404 Group Not Found");
  expect(report.summary.complete).toBe(true);
  expect(report.warnings.join("\n")).toMatch(new RegExp(`the projects of group ${heavy.id} \\(${heavy.full_path}\\) could not be listed: GitLab answered 404`));
  expectJudgedElsewhere(report, inside, intents);
});

it("a 404 in other words (a proxy's bare one) proves no group gone: the listing is named as not examined and the run is not complete", async () => {
  const { report, heavy, inside, intents } = await heavyListingAnswers(404);
  expect(report.unexamined).toEqual([{ kind: "projects", id: heavy.id, path: heavy.full_path, error: expect.stringMatching(/answered 404/), lasting: true }]);
  expect(report.summary).toMatchObject({ complete: false, unexamined: 1 });
  expect(exitCode(report)).toBe(1);
  expectJudgedElsewhere(report, inside, intents);
});

it("a subgroup whose project listing answers 500 for ever is named as not examined; every project elsewhere is judged and its strays planned", async () => {
  const { report, heavy, inside, intents } = await heavyListingAnswers(500);
  expect(report.unexamined).toEqual([{ kind: "projects", id: heavy.id, path: heavy.full_path, error: expect.stringMatching(/answered 500/), lasting: false }]);
  expect(report.summary).toMatchObject({ complete: false, unexamined: 1 });
  expect(report.warnings).toContainEqual(expect.stringMatching(new RegExp(`^the projects of group ${heavy.id} \\(${heavy.full_path}\\) could not all be listed: .*answered 500.*: those the listing did not show were not examined; the next run tries it again$`)));
  expect(exitCode(report)).toBe(1);
  expectJudgedElsewhere(report, inside, intents);
});

it("a scope group whose subgroups' listing fails for ever after its first page: the subgroups not listed are named as not examined, every project is judged, the strays found are planned", async () => {
  const { dataset, intents } = generateOrganisation({ projects: 3_000, seed: 3, groupShares: true, tree: { groups: 160, maxDepth: 4 } });
  const acme = dataset.groups.find((g) => g.full_path === "acme")!;
  const groupActions = (report: EnforceReport) => report.actions.filter((a) => a.kind === "group").map((a) => `${a.sharedGroupId}:${a.groupId}`).sort();
  const path = `/api/v4/groups/${acme.id}/descendant_groups`;
  // The first page is answered; every page after it answers 500, retries included.
  await startSim({ dataset, latencyMs: 2, recordRequests: true, faults: [{ kind: "delay", ms: 0, path, times: 1 }, { kind: "status", status: 500, path, times: 1_000_000 }] });
  const report = await run({ listConcurrency: 8 });
  expect(sim.requests.filter((r) => r.url.startsWith(path)).length).toBeGreaterThan(1);
  expect(report.unexamined).toEqual([{ kind: "subgroups", id: acme.id, error: expect.stringMatching(/answered 500/), lasting: false }]);
  expect(report.summary).toMatchObject({ complete: false, unexamined: 1 });
  expect(report.warnings).toContainEqual(expect.stringMatching(new RegExp(`^the subgroups of group ${acme.id} could not all be listed: .*answered 500.*: the shares of those not listed were not examined \\(their projects were, listed with group ${acme.id}'s\\); the next run tries them again$`)));
  expect(exitCode(report)).toBe(1);
  // The groups not listed brought no detail: their projects were listed with the scope's, and judged,
  // not found missing afterwards and taken for projects GitLab's details leave out.
  expectJudgedElsewhere(report, new Set(), intents);
  expect(report.warnings.join("\n")).not.toMatch(/leave projects out/);
  // The group shares planned are those of the groups whose details were read, and only those: the same
  // dry run, GitLab answering every page, plans the rest.
  const read = new Set(sim.requests.map((r) => /^\/api\/v4\/groups\/(\d+)(?:\?|$)/.exec(r.url)?.[1]).filter(Boolean).map(Number));
  sim.clearFaults();
  const whole = groupActions(await run({ listConcurrency: 8 }));
  const planned = groupActions(report);
  expect(planned).toEqual(whole.filter((share) => read.has(Number(share.split(":")[0]))));
  expect(planned.length).toBeLessThan(whole.length);
});

it("a scope group whose direct subgroups GitLab fails to list every time: its listing is not split but read whole, and every project is judged", async () => {
  const { dataset } = generateOrganisation({ projects: 3_000, seed: 3, tree: { groups: 40, maxDepth: 4, heavy: 0.8 } });
  const acme = dataset.groups.find((g) => g.full_path === "acme")!;
  const path = `/api/v4/groups/${acme.id}/subgroups`;
  await startSim({ dataset, latencyMs: 2, detailProjects: false, recordRequests: true, faults: [{ kind: "status", status: 500, method: "GET", path, times: 1_000_000 }] });
  const report = await run({ listConcurrency: 8 });
  // The listing was large enough to be split, and the split's look-up failed.
  expect(sim.requests.some((r) => r.url.startsWith(path))).toBe(true);
  expect(report.summary.complete).toBe(true);
  expect(report.unexamined).toBeUndefined();
  // The same dry run, GitLab answering the look-up, plans the same.
  sim.clearFaults();
  const whole = planned(await run({ listConcurrency: 8 }));
  expect(planned(report)).toEqual(whole);
  expect(whole.length).toBeGreaterThan(0);
});


it.each([false, true])("without a scope, an id range of the instance whose pages answer 500 for ever after its first: the rest of that range is named as not examined, every other project is judged (in steps: %s)", async (inSteps) => {
  const { dataset } = generateOrganisation({ projects: 3_000, seed: 3 });
  await startSim({ dataset, latencyMs: 2, recordRequests: true });
  const unscoped = { policy: parsePolicy(standardPolicy().replace("  scope: { groups: [acme] }\n", ""), "test.yaml") };
  // The ranges the instance is listed in: each page of one carries its upper bound (id_before).
  const whole = await run({ listConcurrency: 3, ...unscoped });
  const bounds = [...new Set(sim.requests.map((r) => new URL(r.url, sim.url).searchParams.get("id_before")).filter((b) => b !== null))].map(Number).sort((a, b) => a - b);
  expect(bounds.length).toBeGreaterThan(2);
  const [after, before] = [bounds[0]! - 1, bounds[1]!];
  // The second range: its first page is answered, every page after it answers 500, retries included.
  const query = { id_before: String(before) };
  sim.addFaults({ kind: "delay", ms: 0, path: "/api/v4/projects", query, times: 1 }, { kind: "status", status: 500, path: "/api/v4/projects", query, times: 1_000_000 });
  // In steps, each slice ends within milliseconds: the range is resumed from where its first page left it, and fails there.
  const steps = recordingSteps({ sliceMs: 5, perStep: 1 });
  const report = await run({ listConcurrency: 3, ...unscoped }, inSteps ? steps : undefined);
  if (inSteps) expect(steps.paused.length).toBeGreaterThan(0);
  expect(sim.pendingFaults()).toBe(1);
  const [part] = report.unexamined ?? [];
  expect(report.unexamined).toEqual([{ kind: "range", id: expect.any(Number), before, error: expect.stringMatching(/answered 500/), lasting: false }]);
  // The range's first page was listed: what is named begins after its last id.
  const firstPage = dataset.projects.map((p) => p.id).filter((id) => id > after && id < before).sort((a, b) => a - b).slice(0, 100);
  expect(part!.id).toBe(firstPage.at(-1));
  expect(report.summary).toMatchObject({ complete: false, unexamined: 1 });
  expect(report.warnings).toContainEqual(`the projects with ids above ${part!.id} and below ${before} could not all be listed: ${part!.error}: the rest of that id range was not examined; the next run tries it again`);
  expect(exitCode(report)).toBe(1);
  // Every project outside what the range left was judged: its strays are planned, as by the run GitLab answered whole.
  const left = (id: number) => id > part!.id && id < before;
  expect(planned(report)).toEqual(planned(whole).filter((s) => !left(Number(s.split(":")[0]))));
  expect(planned(whole).filter((s) => left(Number(s.split(":")[0]))).length).toBeGreaterThan(0);
});

it("without a scope, the instance's groups listing failing for ever after its first page: the groups not listed are named as not examined, every project and every listed group is judged", async () => {
  const { dataset } = generateOrganisation({ projects: 3_000, seed: 3, groupShares: true, tree: { groups: 160, maxDepth: 4 } });
  expect(dataset.groups.length).toBeGreaterThan(100);
  // The first page is answered; every page after it answers 500, retries included.
  await startSim({ dataset, latencyMs: 2, recordRequests: true, faults: [{ kind: "delay", ms: 0, path: "/api/v4/groups", times: 1 }, { kind: "status", status: 500, path: "/api/v4/groups", times: 1_000_000 }] });
  const unscoped = { listConcurrency: 8, policy: parsePolicy(standardPolicy().replace("  scope: { groups: [acme] }\n", ""), "test.yaml") };
  const report = await run(unscoped);
  expect(report.unexamined).toEqual([{ kind: "groups", id: 0, error: expect.stringMatching(/answered 500/), lasting: false }]);
  expect(report.summary).toMatchObject({ complete: false, unexamined: 1 });
  expect(report.warnings).toContainEqual(expect.stringMatching(/^the instance's groups could not all be listed: .*answered 500.*: the shares of those not listed were not examined \(their projects were, listed by id\); the next run tries them again$/));
  expect(exitCode(report)).toBe(1);
  // Every project was judged, and the group shares of the groups read: as the run GitLab answers whole plans them.
  const groupActions = (r: EnforceReport) => r.actions.filter((a) => a.kind === "group").map((a) => `${a.sharedGroupId}:${a.groupId}`).sort();
  const read = new Set(sim.requests.map((r) => /^\/api\/v4\/groups\/(\d+)(?:\?|$)/.exec(r.url)?.[1]).filter(Boolean).map(Number));
  sim.clearFaults();
  const whole = await run(unscoped);
  expect(planned(report)).toEqual(planned(whole));
  expect(groupActions(report)).toEqual(groupActions(whole).filter((share) => read.has(Number(share.split(":")[0]))));
  expect(groupActions(report).length).toBeLessThan(groupActions(whole).length);
});
