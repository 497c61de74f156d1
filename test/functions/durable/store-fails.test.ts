/**
 * The run history when S3 fails. An applying sweep's report is stored in its "finish" step, after the
 * metrics are emitted (so that an attempt again does not count the run twice). A store that failed was one
 * `logger.error` line: the execution succeeded, its result did not say the report was not kept, and no
 * metric (so no alarm) told it; `restore latest` then silently took the sweep before it (the second durable
 * review's finding). It is a ReportNotStored metric now, which an alarm watches, and a warning in the result.
 */
import { describe, expect, it, vi } from "vitest";
import type { EnforceReport } from "../../../lib/jobs/index.ts";
import { generateOrganisation } from "../../../sim/gitlab/index.ts";
import { durableWorld, timedRunner } from "../../support/durable-world.ts";
import { emfRecords } from "../../support/emf.ts";
import { captureLogs } from "../../support/lambda.ts";
import { standardPolicy } from "../../support/policies.ts";
import { refusingS3 } from "../../support/s3-refusing.ts";

/** An S3 that answers 503 to everything (a regional S3 outage, a bucket policy changed, a VPC endpoint gone). */
const s3 = refusingS3();

const world = durableWorld({
  skipTime: true,
  policy: standardPolicy(),
  gitlab: () => ({ dataset: generateOrganisation({ projects: 80, seed: 5 }).dataset }),
  env: () => ({ WARDEN_REPORT_ONLY: "false", WARDEN_RUN_HISTORY_BUCKET: "warden-runs", AWS_ENDPOINT_URL_S3: s3.url(), POWERTOOLS_LOG_LEVEL: "INFO", POWERTOOLS_METRICS_DISABLED: "false", WARDEN_STAGE: "production" }),
});

describe("a durable sweep that removed shares, whose report S3 refuses to store", () => {
  it("says so where an alarm sees it (a metric), not in one log line alone", async () => {
    expect(world.gitlab.url).toBeTruthy();
    vi.resetModules();
    const { handler } = await import("../../../functions/enforce.ts");
    const { runner } = timedRunner<EnforceReport>(handler, 60_000);
    const logs = captureLogs();
    const execution = await runner.run({ payload: { dryRun: false } });
    const lines = logs.lines();
    logs.restore();
    expect(execution.getStatus()).toBe("SUCCEEDED");
    const report = execution.getResult()!;
    expect(report.summary.removed).toBeGreaterThan(0);
    // The store was tried and failed: only this log line says so.
    expect(lines.some((l) => l["level"] === "ERROR" && String(l["message"]).startsWith("storing the run's report for restore failed"))).toBe(true);
    expect(report.warnings).toContainEqual(expect.stringMatching(/^this run's report could not be stored for restore \(.+\): restore latest would take the run before it; restore from this result, or from its audit lines$/));
    const metrics = emfRecords(lines).flatMap((doc) => doc._aws.CloudWatchMetrics.flatMap((d) => d.Metrics.map((m) => ({ name: m.Name, value: doc[m.Name] as number }))));
    expect(metrics).toContainEqual({ name: "ReportNotStored", value: 1 });
  }, 120_000);
});
