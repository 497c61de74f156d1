/**
 * `warden exempt` / `/warden exempt` (lib/jobs/exempt): the paths a requester chooses.
 * The job checked that the project is in gitlab.scope ("it would exempt nothing") but never that the
 * project or the group exists, nor that the project is still at that path. An exemption whose literal
 * path names nothing is exactly the typo the guard exists for (gitlab.guard.unmatchedRules: refuse,
 * the default): merged, it stops every applying run of the whole policy.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadGitLabPolicy, type PolicySettingNames } from "../../../lib/config/policy-source.ts";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { exempt, ExemptRefusedError, type ExemptRequest } from "../../../lib/jobs/exempt/index.ts";
import { exemptionEntry, withExemption } from "../../../lib/jobs/exempt/edit.ts";
import { enforce } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { startGitLabSim, type GitLabSim, type SimProject } from "../../../sim/gitlab/index.ts";
import { BASE, compareWorld, POLICY_PROJECT } from "../../support/compare-world.ts";

const ADMIN = "glpat-sim-admin";
const PATH = "policies/warden.yaml";
const NAMES: PolicySettingNames = { project: "P", path: "PATH", ref: "REF", token: "TOKEN", allowUnprotected: "ALLOW=1" };
/** The compare world's policy with the default guard (unmatchedRules: refuse), as a first policy has it. */
const POLICY = BASE.replace("  guard: { unmatchedRules: warn }\n", "");

let sim: GitLabSim;
let repo: SimProject;

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: compareWorld(), tokens: { [ADMIN]: { admin: true } } });
  repo = sim.dataset.projects.find((p) => p.path_with_namespace === POLICY_PROJECT)!;
  sim.repositories.commit(repo, { [PATH]: POLICY });
});
afterAll(() => sim?.close());

const client = () => new GitLabClient({ url: sim.url, token: ADMIN, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5, maxRetries: 0 } });
const writes = () => Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET ") && !route.startsWith("HEAD "));

async function propose(request: ExemptRequest, apply = false) {
  const gitlab = client();
  const base = await loadGitLabPolicy(gitlab, { project: POLICY_PROJECT, path: PATH }, { names: NAMES });
  return exempt({ gitlab, base, refSetting: "REF", request, apply });
}

describe.sequential("warden exempt: paths the instance does not have", () => {
  it("an exemption naming a group the instance does not have is refused before anything is committed (merged, it would stop every applying run)", async () => {
    // A look-alike of the real group (partners/x): the reviewer sees a plausible exemption.
    const request = { project: "acme/app/api", group: "partners/x1", until: "2099-12-31", reason: "pen test" };
    // What merging the proposal would do: the typo guard refuses every applying run of the whole policy
    // (here the strays acme/app/api ← strangers, outside and the hostile group all stay).
    const merged = parsePolicy(withExemption(POLICY, exemptionEntry(request)), "merged");
    const run = await enforce({ gitlab: client(), policy: merged, apply: true });
    expect(run.summary).toMatchObject({ guard: "tripped", removed: 0 });
    expect(run.warnings).toContainEqual(expect.stringMatching(/names group partners\/x1, which the instance does not have/));
    // The correct behaviour: warden exempt refuses it, naming the group, and commits nothing.
    sim.resetCounters();
    await expect(propose(request, true)).rejects.toThrow(ExemptRefusedError);
    await expect(propose(request, true)).rejects.toThrow(/partners\/x1/);
    expect(writes()).toEqual([]);
  });

  it("an exemption naming a project in scope that the instance does not have is refused, nothing committed", async () => {
    sim.resetCounters();
    const request = { project: "acme/app/apl", group: "strangers", reason: "pen test" };
    await expect(propose(request, true)).rejects.toThrow(ExemptRefusedError);
    await expect(propose(request, true)).rejects.toThrow(/acme\/app\/apl/);
    expect(writes()).toEqual([]);
  });

  it("a project's old path (the project renamed, GitLab redirecting) is refused naming its current path: the entry would exempt nothing", async () => {
    const web = sim.dataset.projects.find((p) => p.path_with_namespace === "acme/app/web")!;
    sim.renameProject(web.id, "web-v2");
    try {
      sim.resetCounters();
      const request = { project: "acme/app/web", group: "strangers", reason: "pen test" };
      await expect(propose(request, true)).rejects.toThrow(/acme\/app\/web-v2/);
      expect(writes()).toEqual([]);
    } finally {
      sim.renameProject(web.id, "web");
    }
  });

  it("one moved out of the scope is refused without naming where it went: the requester may not see it (a review of outputs' audiences)", async () => {
    const web = sim.dataset.projects.find((p) => p.path_with_namespace === "acme/app/web")!;
    const security = sim.dataset.groups.find((g) => g.full_path === "security")!;
    const home = web.namespace_id;
    sim.moveProject(web.id, security.id);
    try {
      sim.resetCounters();
      const refused = propose({ project: "acme/app/web", group: "strangers", reason: "pen test" }, true);
      await expect(refused).rejects.toThrow(/^project acme\/app\/web has moved out of gitlab\.scope \(GitLab redirects the old path\): an exemption of the old path would exempt nothing; nothing was changed$/);
      expect(writes()).toEqual([]);
    } finally {
      sim.moveProject(web.id, home);
    }
  });
});
