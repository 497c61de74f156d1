/**
 * Project roles on shares and pipelines, as GitLab has them (lib/api/projects.rb, lib/api/ci/pipelines.rb):
 * - `POST /projects/:id/share` and `DELETE /projects/:id/share/:group_id` begin with
 *   `authorize! :admin_project`: Maintainer or above, else 403 `{"message":"403 Forbidden"}`
 *   (real-behaviour-notes.md: "Needs Maintainer or above").
 * - `POST /projects/:id/pipeline` begins with `authorize! :create_pipeline` (Developer or above, else
 *   403), and Chain::Validate::Abilities refuses a ref the user may not update (a protected branch whose
 *   rule lets the user neither push nor merge) with 400 "You do not have sufficient permission to run a
 *   pipeline on '<ref>'. …".
 * The simulator let any member change a project's shares and start its pipelines (the fidelity review's
 * finding): Warden's runs with such a token were reported done and created where GitLab refuses.
 */
import { describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, runPipeline } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { ACCESS, type GitLabDataset, type GitLabSim } from "../../../sim/gitlab/index.ts";
import { startSim } from "../../support/enforce-world.ts";
import { api } from "../../support/gitlab-api.ts";
import { validated } from "../../support/report.ts";
import { shareWith, simGroup, simProject } from "../../support/tiny-world.ts";

const DEV = "glpat-dev";
const REPORTER = "glpat-reporter";
const MAINTAINER = "glpat-maintainer";
const TOKENS = {
  "glpat-sim-admin": { admin: true },
  [DEV]: { admin: false, username: "dev" },
  [REPORTER]: { admin: false, username: "rep" },
  [MAINTAINER]: { admin: false, username: "maint" },
};

/** acme/api (private) with three members, shared with the public group partners; its main is protected (the default), for Maintainers only. */
function world(): GitLabDataset {
  const acme = simGroup(10, "acme", null, "internal");
  const partners = simGroup(30, "partners", null, "public");
  const friends = simGroup(31, "friends", null, "public");
  const project = { ...simProject(100, acme, "api", [shareWith(partners, ACCESS.developer)]), visibility: "private" as const, members: { dev: ACCESS.developer, rep: ACCESS.reporter, maint: ACCESS.maintainer } };
  return { groups: [acme, partners, friends], users: [], projects: [project] };
}

const shareIds = (sim: GitLabSim) => sim.dataset.projects[0]!.shared_with_groups.map((s) => s.group_id);
const post = (sim: GitLabSim, path: string, token: string, body: object) =>
  api(sim, path, { method: "POST", token, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

describe("project shares need Maintainer", () => {
  it("sanity: every member can read the project; the Maintainer removes and adds shares", async () => {
    const sim = await startSim({ dataset: world(), tokens: TOKENS });
    for (const token of [DEV, REPORTER, MAINTAINER]) expect((await api(sim, "/projects/100", { token })).status).toBe(200);
    expect((await api(sim, "/projects/100/share/30", { method: "DELETE", token: MAINTAINER })).status).toBe(204);
    expect((await post(sim, "/projects/100/share", MAINTAINER, { group_id: 31, group_access: 30 })).status).toBe(201);
  });

  it("DELETE /projects/:id/share/:group_id by a Developer: 403 Forbidden, the share kept", async () => {
    const sim = await startSim({ dataset: world(), tokens: TOKENS });
    const res = await api(sim, "/projects/100/share/30", { method: "DELETE", token: DEV });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ message: "403 Forbidden" });
    expect(shareIds(sim)).toEqual([30]);
  });

  it("POST /projects/:id/share by a Developer: 403 Forbidden, nothing shared", async () => {
    const sim = await startSim({ dataset: world(), tokens: TOKENS });
    const res = await post(sim, "/projects/100/share", DEV, { group_id: 31, group_access: 30 });
    expect(res.status).toBe(403);
    expect(shareIds(sim)).toEqual([30]);
  });
});

describe("pipelines need Developer, and on a protected branch the right to update it", () => {
  it("POST /projects/:id/pipeline by a Reporter: 403 Forbidden, no pipeline", async () => {
    const sim = await startSim({ dataset: world(), tokens: TOKENS });
    const res = await post(sim, "/projects/100/pipeline", REPORTER, { ref: "main" });
    expect(res.status).toBe(403);
    expect(sim.pipelines).toEqual([]);
  });

  it("POST /projects/:id/pipeline by a Developer on a branch protected for Maintainers: 400, no pipeline", async () => {
    const sim = await startSim({ dataset: world(), tokens: TOKENS });
    const res = await post(sim, "/projects/100/pipeline", DEV, { ref: "main" });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: { base: [expect.stringMatching(/^You do not have sufficient permission to run a pipeline on 'main'\./)] } });
    expect(sim.pipelines).toEqual([]);
  });
});

const clientFor = (sim: GitLabSim, token: string) => new GitLabClient({ url: sim.url, token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });

describe("Warden meets the refusals", () => {
  it("enforce with a Developer's token: the removal is reported failed (GitLab's 403), not done", async () => {
    const sim = await startSim({ dataset: world(), tokens: TOKENS });
    const policy = parsePolicy(`version: 1\ngitlab:\n  scope: { groups: [acme] }\n  shares:\n    allow:\n      - group: "acme/**"\n  guard: { maxRemovals: 10, unmatchedRules: warn }\n`, "test.yaml");
    const report = await validated(enforce({ gitlab: clientFor(sim, DEV), policy, apply: true }));
    const removal = report.actions.find((a) => a.type === "remove-share");
    expect(removal).toMatchObject({ status: "failed" });
    expect(shareIds(sim)).toEqual([30]);
  });

  it("a pipeline with a Developer's pipeline token on a Maintainers-only main is reported failed with GitLab's reason, not created", async () => {
    const sim = await startSim({ dataset: world(), tokens: TOKENS });
    const policy = parsePolicy(`version: 1\npipelines:\n  allow:\n    - project: "acme/**"\n      refs: ["main"]\n`, "test.yaml");
    const report = await validated(runPipeline({ gitlab: clientFor(sim, DEV), policy, project: "acme/api", ref: "main", variables: [], apply: true }));
    // Warden's checks pass (main is protected and Developers may neither push nor merge), then GitLab
    // refuses the Developer: the pipeline token must be allowed to update the ref (docs/security.md).
    expect(report.actions[0]).toMatchObject({ status: "failed", error: expect.stringMatching(/sufficient permission to run a pipeline on 'main'/) });
    expect(sim.pipelines).toEqual([]);
  });
});
