/**
 * One scope group GitLab fails to look up, every time (a bug on one namespace, a proxy's rule): its
 * `GET /namespaces/:id` answers 500 after every retry. Before, the run's first step failed: nothing in
 * any other scope group was removed, by this run or any after it, and every watch batch failed too, its
 * subjects passed to a sweep that failed the same way (the loops review). Now a run over the whole scope
 * examines the other scope groups, removes their strays, and names the one it could not look up; a
 * targeted run examines its targets under the others, and leaves those under it as targets not read.
 */
import { afterEach, describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, exitCode, type EnforceOptions, type EnforceReport } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../../sim/gitlab/index.ts";
import { standardPolicy } from "../../support/policies.ts";
import { validated } from "../../support/report.ts";
import { actionKeys, intentKey } from "../../support/share-keys.ts";

const NOW = new Date("2026-03-10T12:00:00Z");
const POLICY = standardPolicy().replace("scope: { groups: [acme] }", "scope: { groups: [acme, acme-ext] }");
let sim: GitLabSim;
afterEach(() => sim?.close());

/** acme's organisation, acme-ext's look-up answering `status` for ever. */
async function oneScopeGroupFailing(status = 500) {
  const { dataset, intents } = generateOrganisation({ projects: 600, seed: 7, now: NOW });
  sim = await startGitLabSim({ dataset, faults: [{ kind: "status", status, method: "GET", path: "/api/v4/namespaces/acme-ext", times: 1_000_000 }] });
  const strays = intents.filter((i) => i.intent === "stray" && dataset.projects.find((p) => p.id === i.projectId)!.path_with_namespace.startsWith("acme/"));
  return { dataset, strays: strays.map(intentKey).sort() };
}

function run(opts: Partial<EnforceOptions> = {}): Promise<EnforceReport> {
  const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 1 } });
  return validated(enforce({ gitlab, now: NOW, policy: parsePolicy(POLICY, "test.yaml"), ...opts }));
}

describe("a scope group GitLab fails to look up, every time", () => {
  it("a run over the whole scope removes the strays of the others, and names the one it could not look up", async () => {
    const { strays } = await oneScopeGroupFailing();
    expect(strays.length).toBeGreaterThan(3);
    const report = await run({ apply: true });
    expect(actionKeys(report.actions.filter((a) => a.status === "done"))).toEqual(strays);
    expect(report.unexamined).toEqual([{ kind: "group", id: 0, path: "acme-ext", error: expect.stringMatching(/answered 500/), lasting: false, projects: "not examined" }]);
    expect(report.summary).toMatchObject({ complete: false, unexamined: 1 });
    expect(report.warnings).toContainEqual(expect.stringMatching(/^scope group acme-ext could not be looked up: .*answered 500.*: nothing under it was examined; the next run tries it again$/));
    expect(exitCode(report)).toBe(1);
  });

  it("a targeted run examines its target under another scope group, and leaves the one under it as a target not read", async () => {
    const { dataset } = await oneScopeGroupFailing();
    const [inAcme, inExt] = ["acme/", "acme-ext/"].map((prefix) => dataset.projects.find((p) => p.path_with_namespace.startsWith(prefix))!);
    const report = await run({ targets: [{ kind: "project", id: inAcme!.id }, { kind: "project", id: inExt!.id }] });
    expect(report.unreadTargets).toEqual([{ target: `project:${inExt!.id}`, error: expect.stringMatching(/^scope group acme-ext could not be looked up \(.*answered 500.*\)$/), lasting: false }]);
    expect(report.unexamined).toBeUndefined();
    expect(report.warnings).toContainEqual(expect.stringContaining(`only ${inAcme!.path_with_namespace} (project) examined`));
  });

  it("a scope group GitLab does not have (404) is still a setting to fix: the run fails before any change", async () => {
    await oneScopeGroupFailing(404);
    await expect(run({ apply: true })).rejects.toThrow('gitlab.scope.groups: group "acme-ext" was not found, or the token cannot see it');
    expect(Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "))).toEqual([]);
  });
});
