/**
 * `warden exempt` against the simulator (issue 30.4): a dry run only reads; --apply makes one commit and
 * one merge request; the committed file keeps the comments and order and is a policy with the new
 * exemption, which the merge request pipeline's comparison reports as exactly that share; hostile
 * reason text arrives escaped; bad input changes nothing; a policy read at a protected tag has no
 * branch to propose to (a Developer's branch of the tag's name is not it).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EnforceReport } from "../../lib/jobs/index.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { startGitLabSim, type GitLabSim, type SimProject } from "../../sim/gitlab/index.ts";
import { commitSha } from "../../sim/gitlab/repository.ts";
import { warden } from "../support/cli.ts";
import { compareWorld, POLICY_PROJECT, shareName } from "../support/compare-world.ts";
import { reportJson } from "../support/report.ts";

const ADMIN = "glpat-sim-admin";
const PATH = "policies/warden.yaml";
/** The compare world's base policy, commented as people write one. */
const COMMENTED = `# Acme's access policy: reviewed by the platform team.
version: 1
gitlab:
  scope: { groups: [acme] }   # acme only
  shares:
    allow:
      # Inside the organisation is fine.
      - group: "acme/**"
      - group: "partners/x"
        projects: ["acme/app/**"]
        maxAccess: developer
      - group: "evil/**"
    exempt:
      - project: "acme/legacy/**"   # until the migration
  guard: { unmatchedRules: warn }
# end of policy
`;
const HOSTILE = "@all please </details> `rm -rf` [x](javascript:alert(1)) #1 ~label";

let sim: GitLabSim;
let repo: SimProject;
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: compareWorld(), tokens: { [ADMIN]: { admin: true } } });
  repo = sim.dataset.projects.find((p) => p.path_with_namespace === POLICY_PROJECT)!;
  sim.repositories.commit(repo, { [PATH]: COMMENTED });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: ADMIN, WARDEN_POLICY_PROJECT: POLICY_PROJECT, WARDEN_POLICY_PATH: PATH };
});
afterAll(() => sim.close());

const exemptRun = (extra: string[] = []) => warden(["exempt", "--project", "acme/app/api", "--group", "strangers", "--until", "2099-12-31", "--reason", HOSTILE, ...extra], env);
const nonGets = () => Object.entries(sim.counters.byRoute).filter(([route]) => !route.startsWith("GET ") && !route.startsWith("HEAD "));

describe.sequential("warden exempt", () => {
  it("refuses bad input naming every problem, before any request", async () => {
    sim.resetCounters();
    const run = await warden(["exempt", "--project", "acme", "--group", "partners/*", "--until", "2020-01-01", "--reason", " "], env);
    expect(run.code).toBe(1);
    for (const text of ["--project: invalid project path \"acme\"", "--group: invalid group path \"partners/*\"", "--until: 2020-01-01 is not in the future", "--reason: expected one line"]) expect(run.stderr).toContain(text);
    expect(sim.counters.byRoute).toEqual({});
    const noProject = await warden(["exempt", "--project", "acme/app/api", "--reason", "r"], { GITLAB_URL: sim.url, GITLAB_TOKEN: ADMIN });
    expect(noProject.stderr).toContain("name it with --policy-project");
    expect(noProject.code).toBe(1);
  });

  it("a dry run shows the diff and the merge request, and only reads", async () => {
    sim.resetCounters();
    const run = await exemptRun();
    expect(run.stderr).toBe("");
    expect(run.code).toBe(2);
    expect(run.stdout).toContain(`--- a/${PATH}\n+++ b/${PATH}\n`);
    expect(run.stdout).toContain("+      - project: acme/app/api\n+        sharedWith: strangers\n+        until: 2099-12-31\n");
    expect(run.stdout).toMatch(/merge request: warden\/exempt-acme-app-api-strangers-[0-9a-f]{8} → main/);
    expect(run.stdout).toContain("dry run: nothing was committed");
    expect(nonGets()).toEqual([]);
    expect(repo.branches).toEqual(["main"]);
  });

  it("--apply makes one commit and one merge request; the file keeps its comments and order and is the policy plus the exemption", async () => {
    sim.resetCounters();
    const run = await exemptRun(["--apply"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(nonGets()).toEqual([["POST /projects/:id/repository/commits", expect.anything()], ["POST /projects/:id/merge_requests", expect.anything()]]);
    expect(sim.counters.byRoute["POST /projects/:id/repository/commits"]).toBe(1);
    expect(sim.counters.byRoute["POST /projects/:id/merge_requests"]).toBe(1);
    const branch = repo.branches.find((b) => b.startsWith("warden/exempt-"))!;
    const committed = sim.repositories.resolve(repo, branch)!.files.get(PATH)!.content.toString("utf8");
    // Every line of the old file, in order, and the entry after the last exemption.
    expect(committed).toBe(COMMENTED.replace("# until the migration\n", `# until the migration\n      - project: acme/app/api\n        sharedWith: strangers\n        until: 2099-12-31\n        reason: ${JSON.stringify(HOSTILE)}\n`));
    const policy = parsePolicy(committed, "committed");
    expect(policy.gitlab!.shares.exempt.at(-1)).toMatchObject({ project: { pattern: "acme/app/api" }, sharedWith: { pattern: "strangers" }, until: "2099-12-31", reason: HOSTILE });
    const mr = sim.work.mergeRequests.get(repo.id)![0]!;
    expect(mr).toMatchObject({ source_branch: branch, target_branch: "main", force_remove_source_branch: true });
    expect(run.stdout).toContain(`opened merge request !${mr.iid}: ${mr.web_url}`);
    // The reason arrives escaped: no mention, no HTML, no code span, no link, no reference.
    const description = mr.description!;
    expect(description).toContain("\\@\u200dall please \\<\\/details\\> \\`rm \\-rf\\` \\[x\\]\\(javascript\\:alert\\(1\\)\\) \\#\u200d1 \\~\u200dlabel");
    expect(description).not.toMatch(/(^|[^\\])@all/);
    expect(description).not.toContain("</details>");
  });

  it("the merge request pipeline's comparison reports exactly that share as no longer removed", async () => {
    const branch = repo.branches.find((b) => b.startsWith("warden/exempt-"))!;
    const checkout = mkdtempSync(join(tmpdir(), "warden-exempt-"));
    writeFileSync(join(checkout, "warden.yaml"), sim.repositories.resolve(repo, branch)!.files.get(PATH)!.content);
    const { WARDEN_POLICY_PROJECT: _p, WARDEN_POLICY_PATH: _q, ...ci } = env;
    const run = await warden(["enforce", "--policy", join(checkout, "warden.yaml"), "--policy-path", PATH, "--compare-policy-ref", "main", "--format", "json"], { ...ci, CI_PROJECT_PATH: POLICY_PROJECT, CI_PROJECT_ID: String(repo.id), CI_PROJECT_DIR: checkout });
    expect(run.stderr).toBe("");
    const c = reportJson<EnforceReport>(run.stdout).comparison!;
    expect({ newlyRemoved: c.newlyRemoved.map(shareName), noLongerRemoved: c.noLongerRemoved.map(shareName), exemptionChanged: c.exemptionChanged.map(shareName) })
      .toEqual({ newlyRemoved: [], noLongerRemoved: ["project acme/app/api ← strangers"], exemptionChanged: [] });
    expect(c.noLongerRemoved[0]!.reason).toMatch(/^Exempts it \(exempt\[1\] acme\/app\/api shared with strangers\)/);
  });

  it("the same request again fails cleanly on its branch, opening nothing", async () => {
    sim.resetCounters();
    const again = await exemptRun(["--apply"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already exists: this exemption was requested already");
    expect(sim.counters.byRoute["POST /projects/:id/merge_requests"]).toBeUndefined();
  });

  it("an edit of the policy between the read and the commit fails the commit cleanly: nothing committed, no merge request", async () => {
    const edited = `${COMMENTED}# edited meanwhile\n`;
    // Someone commits to main just before Warden's commit arrives.
    const off = sim.beforeAnswer((req) => {
      if (req.route === "POST /projects/:id/repository/commits") sim.repositories.commit(repo, { [PATH]: edited });
    });
    try {
      sim.resetCounters();
      const branches = [...repo.branches];
      const run = await warden(["exempt", "--project", "acme/app/web", "--reason", "vendor audit", "--apply"], env);
      expect(run.stderr).toContain("the policy file changed after it was read");
      expect(run.code).toBe(1);
      expect(repo.branches).toEqual(branches);
      expect(sim.counters.byRoute["POST /projects/:id/merge_requests"]).toBeUndefined();
      expect(sim.repositories.resolve(repo, "main")!.files.get(PATH)!.content.toString()).toBe(edited);
    } finally {
      off();
    }
  });

  it("the policy read at a protected tag: a Developer's branch named like it is not where a merge request goes; refused, nothing committed", async () => {
    const tag = "v1.0.0";
    // The protected tag points at main's commit; any Developer may push a branch of its name, with a file of theirs.
    repo.protected_tags = [tag];
    const main = sim.repositories.resolve(repo, "main")!;
    const resolve = sim.repositories.resolve.bind(sim.repositories);
    // The tag's commit is main's tree, under the id GitLab gives the tag (the file's answer names the commit asked for).
    sim.repositories.resolve = (p, ref) => (p.id === repo.id && ref === commitSha(repo, tag) ? { ...main, id: ref } : resolve(p, ref));
    sim.repositories.commit(repo, { "evil.txt": "mine" }, tag, "main");
    try {
      sim.resetCounters();
      const branches = [...repo.branches];
      const run = await warden(["exempt", "--project", "acme/app/web", "--reason", "vendor audit", "--apply"], { ...env, WARDEN_POLICY_REF: tag });
      expect(run.stderr).toContain(`the policy was read at ${tag}, which is not a branch: a merge request needs one`);
      expect(run.code).toBe(1);
      expect(nonGets()).toEqual([]);
      expect(repo.branches).toEqual(branches);
    } finally {
      sim.repositories.resolve = resolve;
    }
  });
});
