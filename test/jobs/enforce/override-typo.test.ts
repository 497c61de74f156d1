/**
 * A scope override naming a group the instance does not have (a typo, or a group renamed since) protected
 * nothing, yet unlike an allow or exempt rule naming a missing path it was neither named in a warning nor
 * stopped an applying run: every stray share its author meant only to report was removed (the second
 * inputs review's finding). It is named now, and refused under unmatchedRules: refuse, as such a rule is.
 *
 * An override whose group GitLab fails on for ever (a 500 on its look-up, after lib/http's retries, as on
 * its detail: the group is then not examined) is no reason to fail the run whole, with no report: the run
 * goes on with a warning naming the group and GitLab's answer. It may name no group, so an applying full
 * run under refuse is refused for it, with its report; under warn, the strays elsewhere are removed.
 */
import { afterEach, describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, exitCode, type EnforceOptions, type EnforceReport } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../../sim/gitlab/index.ts";
import { groupSharesPolicy, standardPolicy } from "../../support/policies.ts";
import { actionKey, intentKey } from "../../support/share-keys.ts";

const NOW = new Date("2026-06-01T00:00:00Z");
let sim: GitLabSim;
afterEach(() => sim?.close());

async function start() {
  const { dataset } = generateOrganisation({ projects: 400, seed: 11, groupShares: true, now: NOW });
  sim = await startGitLabSim({ dataset, latencyMs: 0 });
}

function run(policy: string, apply: boolean): Promise<EnforceReport> {
  const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  return enforce({ gitlab, policy: parsePolicy(policy, "override.yaml"), now: NOW, apply });
}

/** Global onStray remove; acme/mobile (spelt `group`) only reported. */
const withOverride = (group: string) => standardPolicy().replace("  scope: { groups: [acme] }\n", `  scope: { groups: [acme], overrides: [{ group: ${group}, onStray: report }] }\n`);

const inMobile = (report: EnforceReport) => report.actions.filter((a) => a.kind === "project" && a.project.startsWith("acme/mobile/"));

describe("a scope override naming a group the instance does not have", () => {
  it("is named, and an applying run removes nothing (as for an allow or exempt rule naming a missing group): acme/mobile's strays are otherwise removed although the author said report", async () => {
    await start();
    // Control: spelt right, acme/mobile's strays are only reported.
    const right = await run(withOverride("acme/mobile"), false);
    expect(inMobile(right).length).toBeGreaterThan(0);
    expect(inMobile(right).every((a) => a.status === "reported")).toBe(true);

    const report = await run(withOverride("acme/mobiel"), true);
    expect(inMobile(report).filter((a) => a.status === "done").map((a) => `${a.kind === "project" ? a.project : ""} x ${a.group}`)).toEqual([]);
    expect(report.warnings).toContain('gitlab.scope.overrides[0] (group "acme/mobiel") names a group the instance does not have (or the token cannot see): its onStray and grace apply to nothing');
    expect(report.summary.guard).toBe("tripped");
    expect(report.warnings).toContainEqual(expect.stringMatching(/^guard: 1 override of gitlab\.scope named no group, and gitlab\.guard\.unmatchedRules is refuse; nothing was removed/));
  });
});

describe("a scope override whose group GitLab fails on for ever", () => {
  const WITH_OVERRIDE = groupSharesPolicy().replace("  scope: { groups: [acme] }\n", "  scope: { groups: [acme], overrides: [{ group: acme/mobile, onStray: report }] }\n");
  const NAMED = 'gitlab.scope.overrides[0] (group "acme/mobile") names a group that could not be looked up: GET /api/v4/namespaces/acme%2Fmobile answered 500';

  /** acme/mobile broken on GitLab's side: every read of it answers 500, by id and by path alike. */
  async function broken() {
    const { dataset, intents } = generateOrganisation({ projects: 600, seed: 7, groupShares: true, now: NOW });
    const bad = dataset.groups.find((g) => g.full_path === "acme/mobile")!;
    sim = await startGitLabSim({
      dataset,
      faults: [
        { kind: "status", status: 500, method: "GET", path: `/api/v4/groups/${bad.id}`, times: 1_000_000 },
        { kind: "status", status: 500, method: "GET", path: "/api/v4/namespaces/acme%2Fmobile", times: 1_000_000 },
      ],
    });
    const elsewhere = intents.filter((i) => i.intent === "stray" && i.kind === "project" && !dataset.projects.find((p) => p.id === i.projectId)!.path_with_namespace.startsWith("acme/mobile/"));
    expect(elsewhere.length).toBeGreaterThan(3);
    return { bad, elsewhere };
  }
  const enforceWith = (policy: string, opts: Partial<EnforceOptions>) =>
    enforce({ gitlab: new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 1 } }), policy: parsePolicy(policy, "override.yaml"), now: NOW, ...opts });
  const changes = () => Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "));

  it("under unmatchedRules: refuse, a full run names it and goes on to its report; an applying one is refused for it and removes nothing", async () => {
    const { bad } = await broken();
    const dry = await enforceWith(WITH_OVERRIDE, {});
    expect(dry.warnings).toContainEqual(expect.stringContaining(NAMED));
    expect(dry.warnings).toContainEqual(expect.stringMatching(/^guard: 1 override of gitlab\.scope could not be looked up, and gitlab\.guard\.unmatchedRules is refuse: an applying run would remove nothing \(the next run asks again, /));
    expect(dry.summary.guard).toBe("ok");

    const report = await enforceWith(WITH_OVERRIDE, { apply: true });
    expect(report.unexamined?.map((p) => p.id)).toEqual([bad.id]);
    expect(report.warnings).toContainEqual(expect.stringContaining(NAMED));
    expect(report.warnings).toContainEqual(expect.stringMatching(/^guard: 1 override of gitlab\.scope could not be looked up, and gitlab\.guard\.unmatchedRules is refuse; nothing was removed/));
    expect(report.summary).toMatchObject({ guard: "tripped", removed: 0 });
    expect(exitCode(report)).toBe(3);
    expect(changes()).toEqual([]);
  });

  it("under unmatchedRules: warn, an applying full run removes the strays elsewhere, naming the override it could not look up", async () => {
    const { bad, elsewhere } = await broken();
    const report = await enforceWith(WITH_OVERRIDE.replace("    maxRemovals: 1000\n", "    maxRemovals: 1000\n    unmatchedRules: warn\n"), { apply: true });
    expect(report.unexamined?.map((p) => p.id)).toEqual([bad.id]);
    expect(report.warnings).toContainEqual(expect.stringContaining(NAMED));
    expect(report.summary.guard).toBe("ok");
    const done = new Set(report.actions.filter((a) => a.status === "done").map(actionKey));
    expect(elsewhere.map(intentKey).filter((k) => done.has(k))).toEqual(elsewhere.map(intentKey));
  });

  it("a targeted run (the watch's, the stream's) names it and holds its removals as a full run does, its report written", async () => {
    const { elsewhere } = await broken();
    const stray = elsewhere[0]!;
    const report = await enforceWith(WITH_OVERRIDE, { apply: true, targets: [{ kind: "project", id: stray.kind === "project" ? stray.projectId : 0 }] });
    expect(report.warnings).toContainEqual(expect.stringContaining(NAMED));
    expect(report.summary).toMatchObject({ guard: "tripped", removed: 0 });
    expect(report.actions.filter((a) => a.status === "done")).toEqual([]);
  });
});
