/**
 * Warden's notices are the issues its token's user opened. A run under another user's token (the platform
 * team rotates to another administrator's token; an operator runs `warden enforce --apply` from a laptop with
 * their own) found none of them: it opened a second notice for every share under notify, each with a whole
 * new grace, and removed no share whose notice was due; the first notices were never closed (the second
 * notices review's finding). The policy names the earlier users whose notices stay Warden's now
 * (gitlab.shares.notices.authors, by id); without it the new user's run behaves as before, which
 * docs/policy.md says.
 */
import { expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { startGitLabSim } from "../../../sim/gitlab/index.ts";
import { afterTest } from "../../support/cleanup.ts";
import { validated } from "../../support/report.ts";
import { later, NOTICES, POLICY, T0, world } from "../../support/notices-world.ts";

it("a run under another administrator's token, the earlier one's user named in notices.authors, finds the notices that user opened: no second notice, and the due shares removed", async () => {
  let clock = T0.getTime();
  const sim = afterTest.add(await startGitLabSim({ dataset: world(), tokens: { root: { admin: true }, jane: { admin: false, username: "jane" }, ops: { admin: true, username: "ops" } }, recordRequests: true, clock: () => clock }));
  for (const path of ["/projects/100/share", "/groups/10/share"]) {
    const res = await fetch(`${sim.url}/api/v4${path}`, { method: "POST", headers: { "private-token": "jane", "content-type": "application/json" }, body: JSON.stringify({ group_id: 20, group_access: 30 }) });
    expect(res.status).toBe(201);
  }
  const runAs = (token: string, now: Date) => {
    clock = now.getTime();
    const gitlab = new GitLabClient({ url: sim.url, token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
    return validated(enforce({ gitlab, policy: parsePolicy(policy, "warden.yaml"), apply: true, now }));
  };
  const root = (await (await fetch(`${sim.url}/api/v4/user`, { headers: { "private-token": "root" } })).json()) as { id: number };
  let policy = POLICY;

  // Warden, as root, opens the two notices (due 2026-12-07).
  await runAs("root", T0);
  expect(sim.work.issuesOf(NOTICES)).toHaveLength(2);

  // The token is now ops's (another administrator), and the policy names root's notices as Warden's too. On the notices' due date:
  policy = POLICY.replace("notices: { project: security/access-notices", `notices: { authors: [${root.id}], project: security/access-notices`);
  expect(policy).not.toBe(POLICY);
  const report = await runAs("ops", later(8));
  const opened = sim.work.issuesOf(NOTICES).length - 2;
  const deletes = sim.requests.filter((r) => r.method === "DELETE").map((r) => r.url);
  // The notices stand: no second notice (with a new grace), and the due shares removed on the date they gave.
  expect({ opened, removed: deletes.length, statuses: report.actions.map((a) => a.status) }).toEqual({ opened: 0, removed: 2, statuses: ["done", "done"] });
});
