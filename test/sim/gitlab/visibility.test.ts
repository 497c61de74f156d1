/**
 * The simulator's project visibility (sim/gitlab/store.ts canSeeProject), as GitLab's: a private project
 * is visible only to its members and to administrators (and auditors); a project's visibility is never
 * above its group's, so every project of a private group is private. A non-member's token gets `404
 * Project Not Found` for a private project, and no listing (`GET /projects`, `GET /groups/:id/projects`,
 * with `include_subgroups` or not, a group's detail) contains it; an anonymous `GET /projects` lists
 * public projects only (ProjectsFinder's public_or_visible_to_user, find_project!). Before, the
 * simulator hid private groups and projects naming their `members`, but listed and served every other
 * private project to any token, and so showed a plain token enforcing where GitLab shows it nothing
 * (a fidelity review). Group membership is not modelled: a project's own `members` are its only ones.
 */
import { describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import type { GitLabDataset, GitLabSim } from "../../../sim/gitlab/index.ts";
import { startSim } from "../../support/enforce-world.ts";
import { ACME_ONLY } from "../../support/policies.ts";
import { api } from "../../support/gitlab-api.ts";
import { validated } from "../../support/report.ts";
import { shareWith, simGroup, simProject } from "../../support/tiny-world.ts";

const STRANGER = "glpat-stranger";
const TOKENS = { "glpat-sim-admin": { admin: true }, [STRANGER]: { admin: false, username: "stranger" } };

/**
 * acme (internal) with a private subgroup acme/secret-team; acme/secret-team/vault (private, as every
 * project of a private group is) is shared with the public group partners. acme/ledger is a private
 * project of alice's in acme. The stranger is a member of nothing.
 */
function world(): GitLabDataset {
  const acme = simGroup(10, "acme", null, "internal");
  const secretTeam = simGroup(11, "acme/secret-team", 10, "private");
  const partners = simGroup(30, "partners", null, "public");
  const api = simProject(100, acme, "api", []);
  const vault = { ...simProject(101, secretTeam, "vault", [shareWith(partners, 30)]), visibility: "private" as const };
  const ledger = { ...simProject(102, acme, "ledger", []), visibility: "private" as const, members: { alice: 40 } };
  return { groups: [acme, secretTeam, partners], users: [], projects: [api, vault, ledger] };
}

const ids = async (res: Response): Promise<number[]> => ((await res.json()) as { id: number }[]).map((p) => p.id);

describe("private projects stay invisible to those who are not members", () => {
  it("the simulator hides the private group itself, and a project with members, from the stranger", async () => {
    const sim = await startSim({ dataset: world(), tokens: TOKENS });
    expect((await api(sim, "/groups/11", { token: STRANGER })).status).toBe(404);
    expect((await api(sim, "/projects/102", { token: STRANGER })).status).toBe(404);
  });

  it("GET /projects/:id of a private project in a private group: 404 Project Not Found to a non-member", async () => {
    const sim = await startSim({ dataset: world(), tokens: TOKENS });
    const res = await api(sim, "/projects/101", { token: STRANGER });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: "404 Project Not Found" });
  });

  it("GET /groups/:id/projects?include_subgroups=true lists neither a private group's projects nor a members-only project", async () => {
    const sim = await startSim({ dataset: world(), tokens: TOKENS });
    const res = await api(sim, "/groups/10/projects?include_subgroups=true&with_shared=false&per_page=100", { token: STRANGER });
    expect(res.status).toBe(200);
    expect(await ids(res)).toEqual([100]);
  });

  it("GET /projects without a token lists public projects only", async () => {
    const sim = await startSim({ dataset: world(), tokens: TOKENS });
    const res = await api(sim, "/projects?order_by=id&sort=asc&per_page=100", { token: null });
    expect(res.status).toBe(200);
    expect(await ids(res)).toEqual([]);
  });

  it("DELETE /projects/:id/share/:group_id of a project the token cannot see: 404 Project Not Found, the share kept", async () => {
    const sim = await startSim({ dataset: world(), tokens: TOKENS });
    const res = await api(sim, "/projects/101/share/30", { method: "DELETE", token: STRANGER });
    expect(res.status).toBe(404);
    expect(sim.dataset.projects.find((p) => p.id === 101)!.shared_with_groups.map((s) => s.group_id)).toEqual([30]);
  });
});

const POLICY = parsePolicy(ACME_ONLY, "test.yaml");

const clientFor = (sim: GitLabSim, token: string) => new GitLabClient({ url: sim.url, token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });

describe("what Warden sees with a plain token", () => {
  it("enforce with a plain token never reaches a private project it is not a member of (no finding, no removal)", async () => {
    const sim = await startSim({ dataset: world(), tokens: TOKENS, recordRequests: true });
    const report = await validated(enforce({ gitlab: clientFor(sim, STRANGER), policy: POLICY, apply: true }));
    // The stranger's listings never contain acme/secret-team/vault, so nothing of it is judged or changed
    // (the non-administrator warning says so: lib/jobs/enforce/phases/begin.ts).
    const touched = report.actions.filter((a) => "projectId" in a && (a as { projectId: number }).projectId === 101);
    expect(touched).toEqual([]);
    expect(sim.requests.filter((r) => r.method === "DELETE").map((r) => r.url)).toEqual([]);
    expect(sim.dataset.projects.find((p) => p.id === 101)!.shared_with_groups).toHaveLength(1);
  });
});
