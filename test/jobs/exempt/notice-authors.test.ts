/**
 * An exemption finds the notices of the shares it covers "as a run finds them" (lib/jobs/exempt/notices.ts):
 * a run counts as Warden's the notices of its token's user and of the users the policy names in
 * gitlab.shares.notices.authors (the tokens it had before). The exemption read only its own token's: after
 * the token changed user, every notice still standing (the earlier user's) went unlinked and untold of the
 * merge request, though the runs read them, and their due dates, as Warden's.
 */
import { expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce } from "../../../lib/jobs/index.ts";
import { requestNotices } from "../../../lib/jobs/exempt/notices.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { startGitLabSim } from "../../../sim/gitlab/index.ts";
import { afterTest } from "../../support/cleanup.ts";
import { validated } from "../../support/report.ts";
import { NOTICES, POLICY, T0, world } from "../../support/notices-world.ts";

it("after the token changed user, the exemption finds the notices the earlier user (named in notices.authors) opened", async () => {
  const sim = afterTest.add(await startGitLabSim({ dataset: world(), tokens: { root: { admin: true }, jane: { admin: false, username: "jane" }, ops: { admin: true, username: "ops" } }, recordRequests: true, clock: () => T0.getTime() }));
  const res = await fetch(`${sim.url}/api/v4/projects/100/share`, { method: "POST", headers: { "private-token": "jane", "content-type": "application/json" }, body: JSON.stringify({ group_id: 20, group_access: 30 }) });
  expect(res.status).toBe(201);
  const client = (token: string) => new GitLabClient({ url: sim.url, token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  await validated(enforce({ gitlab: client("root"), policy: parsePolicy(POLICY, "warden.yaml"), apply: true, now: T0 }));
  const [notice] = sim.work.issuesOf(NOTICES);
  expect(notice).toBeDefined();

  const root = (await (await fetch(`${sim.url}/api/v4/user`, { headers: { "private-token": "root" } })).json()) as { id: number };
  const policy = parsePolicy(POLICY.replace("notices: { project: security/access-notices", `notices: { authors: [${root.id}], project: security/access-notices`), "warden.yaml");
  const ops = client("ops");
  const subject = (await ops.findProject("acme/app"))!;
  const found = await requestNotices(ops, policy, { project: "acme/app", group: "partners", until: "2099-12-31", reason: "pen test" }, subject);
  expect(found?.notices.map((n) => n.iid)).toEqual([notice!.iid]);
});
