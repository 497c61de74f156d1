/**
 * A removal step cut by its invocation's deadline returns the shares whose DELETE it sent without an
 * answer (`sent`), and a further part of the batch, in the next invocation, reads them again and counts
 * those found gone "done", with their audit lines (removal-steps.ts). Once the run's time limit had come,
 * no further part began, and those shares stayed "planned", with no audit line, though GitLab had removed
 * them (a DELETE answered slowly is applied all the same): neither the report `restore latest` reads nor
 * the audit lines named them (the durable review's finding). Now one last part only reads them again.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { restoreInputFrom, type EnforceReport } from "../../../lib/jobs/index.ts";
import { shareKey } from "../../../lib/jobs/shares/plan.ts";
import type { GitLabSim } from "../../../sim/gitlab/index.ts";
import { groupSharesPolicy } from "../../support/policies.ts";
import { twinSims } from "../../support/steps.ts";
import { durableWorld, timedRunner } from "../../support/durable-world.ts";
import { captureLogs, stubAwsEnv, writePolicy } from "../../support/lambda.ts";

const world = durableWorld({ skipTime: false });
const sims: GitLabSim[] = [];
/** What each invocation has (cut.test.ts): its deadline comes 1 s in. */
const REMAINING_MS = 4_000;
/** How long GitLab takes to answer a project share's DELETE (it removes the share all the same). */
const SLOW_DELETE_MS = 6_000;

beforeEach(async () => {
  stubAwsEnv({ AWS_ENDPOINT_URL_SECRETS_MANAGER: world.secretsManager.url, WARDEN_POLICY: await writePolicy(groupSharesPolicy()), WARDEN_REPORT_ONLY: "false", ...(await world.dynamo.freshClaimsEnv()) });
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(sims.map((sim) => sim.close()));
  sims.length = 0;
});

describe("a durable run whose time limit comes while a removal's DELETE is unanswered", () => {
  it("names every share GitLab removed for it, in its report or its audit lines", async () => {
    const { stepped: sim } = await twinSims(sims, { projects: 200, seed: 21, tree: { groups: 10, maxDepth: 2 } });
    // Every project share's DELETE is answered late, past each invocation's deadline: GitLab removes the share meanwhile.
    sim.addFaults({ kind: "delay", ms: SLOW_DELETE_MS, route: "DELETE /projects/:id/share/:group_id", times: 1_000_000 });
    vi.stubEnv("GITLAB_URL", sim.url);
    vi.stubEnv("WARDEN_SLICE_SECONDS", "0.3");
    // An execution of 12 s may run 6 s (runLimit: half of a short limit), as in cut.test.ts.
    vi.stubEnv("WARDEN_EXECUTION_TIMEOUT_SECONDS", "12");
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const before = new Set(sim.dataset.projects.flatMap((p) => p.shared_with_groups.map((s) => `project:${p.id}:${s.group_id}`)));
    vi.resetModules();
    const { handler } = await import("../../../functions/enforce.ts");
    const { runner } = timedRunner<EnforceReport>(handler, REMAINING_MS);
    const logs = captureLogs();
    const execution = await runner.run({ payload: { dryRun: false } });
    // The DELETEs still on their way arrive.
    await sleep(SLOW_DELETE_MS + 500);
    const lines = logs.lines();
    logs.restore();

    expect(execution.getStatus()).toBe("SUCCEEDED");
    const report = execution.getResult()!;
    const after = new Set(sim.dataset.projects.flatMap((p) => p.shared_with_groups.map((s) => `project:${p.id}:${s.group_id}`)));
    const gone = [...before].filter((k) => !after.has(k)).sort();
    const done = report.actions.filter((a) => a.kind === "project" && (a.status === "done" || a.status === "already-gone")).map(shareKey);
    const removalLines = lines.filter((l) => l["message"] === "remove-share");
    const audited = removalLines.length ? restoreInputFrom({ lines: removalLines }).removals.map(shareKey) : [];
    const planned = report.actions.filter((a) => a.kind === "project" && a.status === "planned").map(shareKey);
    // A DELETE still unanswered when the share was read again is said to be so, in the report and an audit line.
    const uncertain = report.actions.filter((a) => a.kind === "project" && a.status === "failed" && a.error?.includes("may or may not have happened")).map(shareKey);
    const uncertainLines = removalLines.filter((l) => l["outcome"] === "failed").length;
    expect(gone.length, "GitLab removed project shares for this run").toBeGreaterThan(0);
    // Each share GitLab removed for this run is in its report as removed (and in an audit line, restore can find it),
    // or named as a removal that may or may not have happened; none is left "planned", as if never sent.
    const unrecorded = gone.filter((k) => !done.includes(k) && !audited.includes(k) && !uncertain.includes(k));
    expect({ unrecorded, ofThemReportedPlanned: gone.filter((k) => planned.includes(k)) }).toEqual({ unrecorded: [], ofThemReportedPlanned: [] });
    expect(uncertainLines).toBe(uncertain.length);
  }, 120_000);
});
