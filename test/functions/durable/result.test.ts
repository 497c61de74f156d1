/** A durable execution's result is at most 6 MB: a larger report is cut to fit, saying where the rest is. */
import { describe, expect, it } from "vitest";
import { EXECUTION_RESULT, fitted } from "../../../functions/shared/durable/job.ts";
import { runRecord } from "../../support/report.ts";
import type { EnforceReport, ShareRemoval } from "../../../lib/jobs/index.ts";

function report(actions: number, dryRun: boolean): EnforceReport {
  const action = (i: number): ShareRemoval => ({
    type: "remove-share", kind: "project", projectId: i, project: `acme/team-${i}/service`, groupId: 7, group: "outsiders", accessLevel: 30, expiresAt: null, reason: "no allow rule matches", status: "planned",
  });
  return {
    ...runRecord("enforce", dryRun),
    summary: { projects: actions, shares: actions, groups: 1, groupShares: 0, groupReads: 1, allowed: 0, exempt: 0, strays: actions, removed: 0, alreadyGone: 0, skipped: 0, failed: 0, maxRemovals: 10, guard: "tripped", complete: true, matched: null },
    actions: Array.from({ length: actions }, (_, i) => action(i)), stats: { requests: 1, retries: 0, rateLimited: 0, pages: 1, durationMs: 1 }, warnings: [],
  };
}

describe("the execution's result", () => {
  it("is the report itself when it fits", () => {
    const whole = report(10, true);
    expect(fitted(whole, null, { ...EXECUTION_RESULT, limit: 100_000 })).toBe(whole);
  });

  it("keeps as many actions as fit, in order, the summary whole, and says where the rest are", () => {
    const big = report(2_000, false);
    const cut = fitted(big, "s3://warden-runs/runs/enforce/x.json", { ...EXECUTION_RESULT, limit: 50_000 });
    expect(Buffer.byteLength(JSON.stringify(cut))).toBeLessThanOrEqual(50_000);
    expect(cut.actions.length).toBeGreaterThan(100);
    expect(cut.actions).toEqual(big.actions.slice(0, cut.actions.length));
    expect(cut.summary).toEqual(big.summary);
    expect(cut.warnings.at(-1)).toMatch(new RegExp(`holds ${cut.actions.length} of the report's 2000 actions .*kept at s3://warden-runs/runs/enforce/x.json`));
    expect(fitted(report(2_000, true), null, { ...EXECUTION_RESULT, limit: 50_000 }).warnings.at(-1)).toContain("warden enforce --json");
  });
});
