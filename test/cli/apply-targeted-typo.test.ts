/**
 * A plan saved by a *targeted* dry run (`enforce --target … --out`) records no rule as matching nothing
 * (bin/cli/plan-out.ts), and `warden apply` judged the unmatchedRules guard only on what the plan
 * records. But the targeted run's own guard judges one kind of unmatched rule: a literal path the
 * instance does not have (a typo), which under `gitlab.guard.unmatchedRules: refuse` stops every
 * applying run, targeted or not. So the very shares the typo guard protects were removed by applying
 * the reviewed, untampered (even signed) plan of the run that was refused with --apply (the plans
 * review's finding). `warden apply` looks the policy's literal paths up itself now.
 */
import { join } from "node:path";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApplyReport, EnforceReport } from "../../lib/jobs/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { groupSharesPolicy } from "../support/policies.ts";

let sim: GitLabSim;
let env: Record<string, string>;

// allow[1] says partners/contractor-x may be shared with acme/mobile/** (as developer at most); the typo
// "partner/contractor-x" names a group this instance does not have, so its shares all read as stray.
const TYPO = groupSharesPolicy().replace('group: "partners/contractor-x"', 'group: "partner/contractor-x"');

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 400, seed: 11, groupShares: true }).dataset });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(TYPO), WARDEN_PLAN_KEY: "k".repeat(40) };
});
afterAll(() => sim.close());

/** partners/contractor-x's shares of projects and groups within acme/mobile, as GitLab has them. */
const contractorSharesOnMobile = () =>
  [
    ...sim.dataset.projects.map((p) => ({ key: `project:${p.id}`, path: p.path_with_namespace, shares: p.shared_with_groups })),
    ...sim.dataset.groups.map((g) => ({ key: `group:${g.id}`, path: g.full_path, shares: g.shared_with_groups })),
  ]
    .filter(({ path }) => path === "acme/mobile" || path.startsWith("acme/mobile/"))
    .flatMap(({ key, shares }) => shares.filter((s) => s.group_full_path === "partners/contractor-x").map((s) => `${key}:${s.group_id}`));

describe.sequential("a targeted plan under a policy with a literal-path typo (unmatchedRules: refuse)", () => {
  const plan = join(tmpdir(), `targeted-plan-${process.pid}.json`);

  it("enforce --apply --target refuses (exit 3): the typo guard protects contractor-x's shares", async () => {
    const before = contractorSharesOnMobile();
    expect(before.length).toBeGreaterThan(0);
    const run = await warden(["enforce", "--apply", "--target", "acme/mobile", "--json"], env);
    expect(run.code).toBe(3);
    const report = JSON.parse(run.stdout) as EnforceReport;
    expect(report.warnings.join("\n")).toMatch(/guard: 1 rule matched nothing \(allow\[1\]\), and gitlab\.guard\.unmatchedRules is refuse; nothing was removed/);
    expect(contractorSharesOnMobile()).toEqual(before);
  });

  it("the same run as a dry run with --out writes a signed plan listing those very shares", async () => {
    const run = await warden(["enforce", "--target", "acme/mobile", "--out", plan, "--json"], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`plan written to ${plan}`);
    const report = JSON.parse(run.stdout) as EnforceReport;
    // The dry run itself warns that an applying run would remove nothing.
    expect(report.warnings.join("\n")).toMatch(/an applying run would remove nothing/);
    expect(report.actions.filter((a) => a.group === "partners/contractor-x").length).toBe(contractorSharesOnMobile().length);
  });

  it("warden apply of that untampered plan must trip the guard as enforce --apply did (exit 3, nothing removed)", async () => {
    const before = contractorSharesOnMobile();
    const run = await warden(["apply", plan, "--apply", "--json"], env);
    const report = JSON.parse(run.stdout) as ApplyReport;
    // Before: exit 0, guard "ok", and every contractor-x share on acme/mobile removed.
    expect({ code: run.code, guard: report.summary.guard, removed: report.summary.removed }).toEqual({ code: 3, guard: "tripped", removed: 0 });
    expect(report.warnings).toContainEqual(expect.stringContaining('names group partner/contractor-x, which the instance does not have'));
    expect(contractorSharesOnMobile()).toEqual(before);
  });
});
