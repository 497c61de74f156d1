/**
 * A hostile review's finding (lib/gitlab/token-user.ts). An administrator's token without the
 * `admin_mode` scope, on a GitLab with Admin Mode on: `GET /user` says `is_admin: true` (it reads the
 * user's own flag), and every other answer is a plain user's. Warden took the token for an
 * administrator's: it read the projects from the group details (which assumes every group is seen),
 * left out the warning that shares with groups it cannot see went unchecked, and called a run that had
 * seen neither the private subgroup nor the shares with a private group complete and in policy.
 */
import { describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, exitCode } from "../../../lib/jobs/index.ts";
import { watchSources } from "../../../lib/jobs/watch/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import type { GitLabDataset, GitLabSim } from "../../../sim/gitlab/index.ts";
import { startSim } from "../../support/enforce-world.ts";
import { ACME_ONLY } from "../../support/policies.ts";
import { validated } from "../../support/report.ts";
import { shareWith, simGroup, simProject } from "../../support/tiny-world.ts";

const POLICY = parsePolicy(ACME_ONLY, "test.yaml");

/** acme (internal) with a private subgroup; both its projects shared at Maintainer with a private outside group. */
function world(): GitLabDataset {
  const acme = simGroup(10, "acme", null, "internal");
  const secretTeam = simGroup(11, "acme/secret-team", 10);
  const outsiders = simGroup(20, "outsiders", null);
  return { groups: [acme, secretTeam, outsiders], users: [], projects: [simProject(100, acme, "api", [shareWith(outsiders, 40)]), simProject(101, secretTeam, "vault", [shareWith(outsiders, 40)])] };
}

let sim: GitLabSim;
const clientFor = (token: string) => new GitLabClient({ url: sim.url, token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });

describe("an administrator's token that Admin Mode makes a plain user", () => {
  it("is examined as a plain user's, with the warning that says why and what to give it", async () => {
    sim = await startSim({ dataset: world(), tokens: { "glpat-no-admin-mode": { admin: true, adminModeScope: false, username: "warden-bot" } } });
    const report = await validated(enforce({ gitlab: clientFor("glpat-no-admin-mode"), policy: POLICY }));
    expect(report.summary.strays).toBe(0);
    expect(report.warnings[0]).toMatch(
      /^the token's user \(warden-bot\) is an administrator, but the token acts as a plain user \(GitLab answered 403 to an administrator's read \(GET \/application\/statistics\): with Admin Mode on, a token needs the admin_mode scope to act as one; give it that scope\): GitLab lists only the shares/,
    );
    expect(exitCode(report)).toBe(0);
  });

  it("the same token with the scope is an administrator's: both strays found, for one request more (the administrator's read), sent beside the token check", async () => {
    sim = await startSim({ dataset: world(), tokens: { "glpat-admin": { admin: true, username: "warden-bot" } }, latencyMs: 50 });
    // The simulator counts a request as it arrives, and answers it 50 ms later: when GET /user is answered, the read is in already.
    const readBeside: boolean[] = [];
    sim.beforeAnswer((req) => req.route === "GET /user" && readBeside.push(sim.counters.byRoute["GET /application/statistics"] === 1));
    const report = await validated(enforce({ gitlab: clientFor("glpat-admin"), policy: POLICY }));
    expect(report.summary.strays).toBe(2);
    expect(report.warnings.filter((w) => /administrator/.test(w))).toEqual([]);
    expect(sim.counters.byRoute["GET /application/statistics"]).toBe(1);
    expect(readBeside).toEqual([true]);
  });

  it("a watch does not read the instance's audit events with it, which only an administrator may", async () => {
    sim = await startSim({ dataset: world(), tokens: { "glpat-no-admin-mode": { admin: true, adminModeScope: false, username: "warden-bot" } } });
    const { sources } = await watchSources(clientFor("glpat-no-admin-mode"), POLICY, 60_000);
    expect(sources.map((s) => s.key)).not.toContain("instance");
  });
});
