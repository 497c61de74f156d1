/**
 * A console restore in the durable Enforce function (functions/shared/durable/job.ts) runs as one durable
 * step, "restore", whose result was the whole restore report. A checkpoint holds at most 256 KB: a
 * restore of a large sweep's removals (some 7,000 or more) made a report too large to record, so the step
 * failed after its work was done (with --apply: after every POST), was attempted again, and the execution
 * ended FAILED instead of with the report (a hostile review's finding). The step records the report
 * fitted to a checkpoint now (the actions that fit, a warning where the rest are).
 *
 * Here the input is larger than the guard: nothing is read or created, and the report says "guard tripped".
 */
import { describe, expect, it, vi } from "vitest";
import type { RestoreReport } from "../../../lib/jobs/index.ts";
import { generateOrganisation } from "../../../sim/gitlab/index.ts";
import { durableWorld, timedRunner } from "../../support/durable-world.ts";
import { standardPolicy } from "../../support/policies.ts";

const world = durableWorld({
  skipTime: true,
  policy: standardPolicy(100),
  gitlab: () => ({ dataset: generateOrganisation({ projects: 20, seed: 5 }).dataset }),
  env: () => ({ WARDEN_REPORT_ONLY: "false" }),
});

/** One large sweep's removals, as its report lists them (names as varied as a real instance's). */
function bigSweep(n: number) {
  const hex = (i: number) => ((i * 2654435761) >>> 0).toString(16);
  const actions = Array.from({ length: n }, (_, i) => ({
    type: "remove-share", kind: "project", projectId: 10_000 + i * 7, project: `acme/team-${hex(i)}/service-${hex(i + 1)}-${i}`,
    groupId: 500 + (i % 997), group: `partners/vendor-${hex(i % 997)}`, accessLevel: 30, expiresAt: null,
    reason: `partners/vendor-${hex(i % 997)} is not allowed on acme/team-${hex(i)}/service-${hex(i + 1)}-${i}`, status: "done",
  }));
  return { job: "enforce", dryRun: false, actions };
}

describe("a durable restore of a large sweep", () => {
  it("returns its report (the guard tripped, nothing read or created) instead of failing on the checkpoint's size", async () => {
    expect(world.gitlab).toBeDefined();
    vi.resetModules();
    const { handler } = await import("../../../functions/enforce.ts");
    const { runner } = timedRunner<RestoreReport>(handler, 900_000);
    const execution = await runner.run({ payload: { restore: bigSweep(20_000) } });
    const status = execution.getStatus();
    expect(status, status === "SUCCEEDED" ? "" : `execution error: ${execution.getError()?.errorMessage}`).toBe("SUCCEEDED");
    expect(execution.getResult()!.summary).toMatchObject({ guard: "tripped", restores: 20_000 });
    expect(execution.getResult()!.warnings.at(-1)).toMatch(/this result holds \d+ of the report's 20000 actions \(a durable step records at most 256 KB\): a dry run's whole plan is in no result: `warden restore --json` prints it|each change made has its audit line in the log/);
  }, 120_000);
});
