/**
 * A subgroup that leaves a scope group's `descendant_groups` listing (deleted, moved out, or out of the
 * token's sight) while the listing is paged shifts GitLab's offset pages, and the subgroup at the head of
 * the next page was never read: neither its group shares nor, where the details carry the projects (an
 * administrator's token), its projects' shares. Nothing checked the listing against its first page's count,
 * so the run said it was complete and a dry run exited 0, "in policy" (the trees10 review). A listing that
 * ends short of that count is now read once more from its start, only the groups not read yet; one still
 * short, or begun in an earlier slice, is named as not examined, and its scope group's projects are listed
 * whole (groups/index.ts). The same holds for `GET /groups`, without a scope.
 *
 * The world: acme with 150 subgroups (ids in listing order), each holding one project; one subgroup is
 * shared with an outside group, and so is its project. While the listing is read, a subgroup on its first
 * page leaves it: emulated with a `rewrite` of page 2 to what GitLab's offset page 2 then holds (the old
 * page 2 without its first item), or done in the simulator (made private, for a plain member's token).
 */
import { describe, expect, it } from "vitest";
import { exitCode, type EnforceReport } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import type { Fault, GitLabDataset, SimGroup } from "../../../sim/gitlab/index.ts";
import { run, sim, startSim } from "../../support/enforce-world.ts";
import { ACME_ONLY } from "../../support/policies.ts";
import { actionKeys } from "../../support/share-keys.ts";
import { recordingSteps } from "../../support/steps.ts";
import { shareWith, simGroup, simProject } from "../../support/tiny-world.ts";

const DESCENDANTS = "GET /groups/:id/descendant_groups";

/** acme (11) with subgroups acme/g000 to acme/g149 (ids 12 to 161), one project each; the `shared`th and its project shared with outsider (10). */
function world(shared = 100): { dataset: GitLabDataset; subgroups: SimGroup[]; stray: string[] } {
  const outsider = simGroup(10, "outsider", null, "internal");
  const acme = simGroup(11, "acme", null, "internal");
  const subgroups = Array.from({ length: 150 }, (_, i) => simGroup(12 + i, `acme/g${String(i).padStart(3, "0")}`, acme.id, "internal"));
  const projects = [simProject(1000, acme, "root-app", []), ...subgroups.map((s, i) => simProject(1001 + i, s, "app", i === shared ? [shareWith(outsider, 30)] : []))];
  subgroups[shared]!.shared_with_groups.push(shareWith(outsider, 30));
  return { dataset: { groups: [outsider, acme, ...subgroups], users: [], projects }, subgroups, stray: [`g${12 + shared}:10`, `p${1001 + shared}:10`] };
}

/** Page 2 of a listing as GitLab's offset pages answer it once a group of page 1 has left: `times` readings of it. */
const shifted = (route: string, times = 1): Fault => ({ kind: "rewrite", route, query: { page: "2" }, times, edit: (body) => (body as unknown[]).slice(1) });

const dryRun = (opts: Parameters<typeof run>[0] = {}, steps?: Parameters<typeof run>[1], policy = ACME_ONLY) => run({ policy: parsePolicy(policy, "test.yaml"), ...opts }, steps);

const planned = (report: EnforceReport) => actionKeys(report.actions);

/** Planned every stray, or said it is not complete (exit 1): never "complete" with a stray unseen. */
const honest = (report: EnforceReport, stray: string[]) =>
  planned(report).join() === stray.join() ? { stray: "all planned", complete: report.summary.complete } : { stray: "missed", complete: report.summary.complete, exit: exitCode(report) };
const HONEST = (report: EnforceReport, stray: string[]) => (planned(report).join() === stray.join() ? { stray: "all planned", complete: true } : { stray: "missed", complete: false, exit: 1 });

const named = (report: EnforceReport) => report.warnings.filter((w) => /^the subgroups of group 11( \(acme\))? could not all be listed: GitLab counted 150 groups as the listing began and showed 149 to its end/.test(w));

describe("a subgroup leaving the scope's descendants listing while it is paged", () => {
  it("an administrator's token (details carry the projects): the subgroup after the page boundary, its group share and its project's share, is planned, or the run is not complete", async () => {
    const { dataset, stray } = world();
    expect(stray).toHaveLength(2);
    await startSim({ dataset, faults: [shifted(DESCENDANTS)] });
    const report = await dryRun();
    // Before: both strays of acme/g100 unseen, summary.complete true, exit 0 ("in policy").
    expect(honest(report, stray)).toEqual(HONEST(report, stray));
    // Read again from its start (2 pages more), acme/g100 is found: both planned, complete.
    expect({ planned: planned(report), complete: report.summary.complete, pages: sim.counters.byRoute[DESCENDANTS] }).toEqual({ planned: stray, complete: true, pages: 4 });
  });

  it("a plain member's token: acme/g010 made private (out of the token's sight) during the listing hides acme/g100's group share, yet the run is complete", async () => {
    const { dataset, subgroups, stray } = world();
    await startSim({ dataset, tokens: { "glpat-sim-admin": { admin: true }, "glpat-member": { admin: false, username: "member" } } });
    sim.beforeAnswer(({ url }) => {
      if (/\/groups\/\d+\/descendant_groups$/.test(url.pathname) && url.searchParams.get("page") === "2") subgroups[10]!.visibility = "private";
    });
    const report = await dryRun({ token: "glpat-member" });
    expect(honest(report, stray)).toEqual(HONEST(report, stray));
  });

  it("nothing shifted: the listing costs its own pages, no request more", async () => {
    const { dataset, stray } = world();
    await startSim({ dataset });
    const report = await dryRun();
    expect({ planned: planned(report), complete: report.summary.complete, pages: sim.counters.byRoute[DESCENDANTS] }).toEqual({ planned: stray, complete: true, pages: 2 });
  });

  it("still short when read again: the subgroups are named as not examined, the run is incomplete, and acme's projects are listed whole, so the hidden subgroup's project is still judged", async () => {
    const { dataset, stray } = world();
    await startSim({ dataset, faults: [shifted(DESCENDANTS, 2)] });
    const report = await dryRun();
    expect({ named: named(report).length, complete: report.summary.complete, exit: exitCode(report), planned: planned(report) }).toEqual({ named: 1, complete: false, exit: 1, planned: [stray[1]] });
  });

  it("a run in steps whose listing spans slices (its ids not kept across them): the short listing is named as not examined, and acme's projects are listed whole", async () => {
    const { dataset, stray } = world();
    // Page 1 comes after the first slice has ended: page 2 is read in the next slice, which cannot tell the ids read before.
    await startSim({ dataset, faults: [{ kind: "delay", route: DESCENDANTS, ms: 300, times: 1 }, shifted(DESCENDANTS)] });
    const report = await dryRun({}, recordingSteps({ sliceMs: 100, perStep: 1_000 }));
    expect({ named: named(report).length, complete: report.summary.complete, planned: planned(report), pages: sim.counters.byRoute[DESCENDANTS] }).toEqual({ named: 1, complete: false, planned: [stray[1]], pages: 2 });
  });

  it("without a scope, a group leaving GET /groups while it is paged: the group after the page boundary is read again", async () => {
    // GET /groups lists outsider and acme before the subgroups: acme/g098 heads its page 2.
    const { dataset, stray } = world(98);
    await startSim({ dataset, faults: [shifted("GET /groups")] });
    const report = await dryRun({}, undefined, ACME_ONLY.replace("  scope: { groups: [acme] }\n", ""));
    expect({ planned: planned(report), complete: report.summary.complete, pages: sim.counters.byRoute["GET /groups"] }).toEqual({ planned: stray, complete: true, pages: 4 });
  });
});
