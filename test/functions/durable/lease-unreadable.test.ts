/**
 * The durable Enforce's first step, "lease", ran before the run's lifecycle
 * (functions/shared/durable/job.ts): when the claims table cannot be used (a table renamed or deleted, an
 * IAM change, DynamoDB throttling), the step fails its attempts and the execution fails with no
 * `job failed` line and no RunFailed metric, so the Failed alarm, which is how an operator learns of a
 * failed run, stays silent; only the heartbeat, two schedule periods later, notices.
 */
import { describe, expect, it, vi } from "vitest";
import type { EnforceReport } from "../../../lib/jobs/index.ts";
import { generateOrganisation } from "../../../sim/gitlab/index.ts";
import { durableWorld, timedRunner } from "../../support/durable-world.ts";
import { emfRecords } from "../../support/emf.ts";
import { standardPolicy } from "../../support/policies.ts";
import { captureLogs } from "../../support/lambda.ts";

const world = durableWorld({
  skipTime: true,
  policy: standardPolicy(),
  gitlab: () => ({ dataset: generateOrganisation({ projects: 20, seed: 5 }).dataset }),
  env: () => ({ WARDEN_REPORT_ONLY: "false", POWERTOOLS_LOG_LEVEL: "INFO", POWERTOOLS_METRICS_DISABLED: "false", WARDEN_STAGE: "production" }),
});

describe("a durable execution that cannot take its lease", () => {
  it("a claims table that cannot be read fails the execution with a `job failed` line and RunFailed 1, as any failed run", async () => {
    // The table the function was deployed with is gone (or the role may no longer use it).
    vi.stubEnv("WARDEN_CLAIMS_TABLE", `${world.table}-gone`);
    vi.resetModules();
    const { handler } = await import("../../../functions/enforce.ts");
    const { runner } = timedRunner<EnforceReport>(handler, 900_000);
    const logs = captureLogs();
    const execution = await runner.run({ payload: { source: "schedule" } });
    const lines = logs.lines();
    logs.restore();

    expect(execution.getStatus()).toBe("FAILED");
    expect(world.gitlab.counters.requests).toBe(0);
    expect(lines).toContainEqual(expect.objectContaining({ level: "ERROR", message: "job failed", job: "enforce", trigger: "schedule" }));
    expect(emfRecords(lines).map((doc) => doc["RunFailed"])).toContain(1);
  }, 60_000);
});
