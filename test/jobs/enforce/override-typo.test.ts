/**
 * A scope override naming a group the instance does not have (a typo, or a group renamed since) protected
 * nothing, yet unlike an allow or exempt rule naming a missing path it was neither named in a warning nor
 * stopped an applying run: every stray share its author meant only to report was removed (the second
 * inputs review's finding). It is named now, and refused under unmatchedRules: refuse, as such a rule is.
 */
import { afterEach, describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, type EnforceReport } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../../sim/gitlab/index.ts";
import { standardPolicy } from "../../support/policies.ts";

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
