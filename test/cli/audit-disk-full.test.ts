/**
 * The disk that fills up mid-apply: --audit-log FILE whose writes fail with ENOSPC. (/dev/full opens for
 * append and answers every write with ENOSPC, as a full disk does.)
 *
 * bin/cli/io.ts auditTrail's sink wrote the file first (writeSync, which throws) and stderr after, so
 * the first removal's audit line reached neither; the exception escaped the removal in lib/jobs and
 * ended the command with "warden enforce: ENOSPC: …": no report, and not one audit line anywhere, for
 * the shares GitLab did remove (a hostile review's finding). Now the failure stops the run from starting
 * changes, as a signal does, and every line of a change made goes to stderr; the report follows.
 */
import { existsSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { EVERYTHING_STRAY } from "../support/policies.ts";

let sim: GitLabSim;
let env: Record<string, string>;
beforeEach(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 60, seed: 11 }).dataset, latencyMs: 5 });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(EVERYTHING_STRAY) };
});
afterEach(() => sim.close());

const deletes = () => sim.counters.byRoute["DELETE /projects/:id/share/:group_id"] ?? 0;

describe.skipIf(!existsSync("/dev/full"))("--audit-log on a full disk (ENOSPC)", () => {
  it("every share GitLab removed still has its audit line on stderr, and the report is printed (exit 1)", async () => {
    const run = await warden(["enforce", "--apply", "--json", "--audit-log", "/dev/full", "--concurrency", "2"], env);
    const removed = deletes();
    expect(removed, "GitLab removed shares during the run").toBeGreaterThan(0);
    expect(run.code).toBe(1);
    // Off a terminal, each change's JSON line goes to stderr too (docs/cli.md, "The audit log").
    const lines = run.stderr.split("\n").filter((l) => l.startsWith("{"));
    expect(lines.length, `stderr: ${run.stderr}`).toBeGreaterThanOrEqual(removed);
    // "any stop writes the report": the report, with complete: false, on stdout.
    expect(run.stdout, "no report on stdout").toMatch(/"job": "enforce"/);
    expect(run.stderr).toMatch(/--audit-log \/dev\/full: writing failed \(ENOSPC\): starting no new change/);
  }, 60_000);

  it("exits 1 when the write that failed was the run's last change: nothing was left unstarted, but the file lacks its line", async () => {
    // A review's finding: one stray, its removal's line not written, and the run reported complete with exit 0.
    const project = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/") && p.shared_with_groups.length === 1)!;
    const run = await warden(["enforce", "--apply", "--target", project.path_with_namespace, "--audit-log", "/dev/full"], env);
    expect(deletes()).toBeGreaterThan(0);
    expect(run.stderr).toMatch(/--audit-log \/dev\/full: writing failed \(ENOSPC\)/);
    expect(run.code).toBe(1);
  }, 60_000);
});
