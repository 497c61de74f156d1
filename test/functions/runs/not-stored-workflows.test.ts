/**
 * ReportNotStored for a run whose report no restore ever reads. after-run.ts stores the report of every run
 * that changed something; a store that failed once pushed the warning "restore latest would take the run
 * before it; restore from this result, or from its audit lines" and emitted ReportNotStored, alarmed per job
 * (WorkflowsReportNotStored too). But restore reads enforce reports alone (lib/jobs/restore/input.ts
 * fromReport; run-history.ts read(ref, "enforce")): for a workflows run the alarm paged and the warning
 * advised what cannot be done (a review of baabaf7's finding). Enforce's alone now. The S3 stand-in answers
 * 503 to every request, as the durable store-fails test's does.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { parseRestoreText, type WorkflowsReport } from "../../../lib/jobs/index.ts";
import { startN8nSim, type N8nSim } from "../../../sim/n8n/index.ts";
import { emfRecords } from "../../support/emf.ts";
import { captureLogs, lambdaContext, SECRETS } from "../../support/lambda.ts";
import { lambdaWorld } from "../../support/lambda-world.ts";
import { workflow } from "../../support/n8n-world.ts";
import { refusingS3 } from "../../support/s3-refusing.ts";

/** Any workflow active but the production-tagged ones: a run switches wf2 off. */
const POLICY = `version: 1
n8n:
  workflows: { keepActive: ["tag:production"], unlisted: deactivate }
`;

const s3 = refusingS3();

lambdaWorld({
  policy: POLICY,
  env: () => ({ WARDEN_REPORT_ONLY: "false", WARDEN_RUN_HISTORY_BUCKET: "warden-runs", AWS_ENDPOINT_URL_S3: s3.url(), POWERTOOLS_LOG_LEVEL: "INFO", POWERTOOLS_METRICS_DISABLED: "false", WARDEN_STAGE: "production" }),
});

let sim: N8nSim;
beforeEach(async () => {
  sim = await startN8nSim({ generation: 2, workflows: [workflow("wf1", "Workflow wf1", { active: true, tags: [{ id: "t0", name: "production" }] }), workflow("wf2", "Workflow wf2", { active: true })], apiKeys: { [SECRETS.n8nApiKey]: {} } });
  vi.stubEnv("N8N_URL", sim.url);
});
afterEach(() => sim.close());

describe("a workflows run that changed something, whose report S3 refuses to store", () => {
  it("raises no restore alarm and gives no restore advice: restore never reads a workflows report", async () => {
    vi.resetModules();
    const { handler } = await import("../../../functions/workflows.ts");
    const logs = captureLogs();
    const report = (await handler({ source: "schedule" } as never, lambdaContext())) as WorkflowsReport;
    const lines = logs.lines();
    logs.restore();
    expect(report).toMatchObject({ job: "workflows", dryRun: false, summary: { applied: 1 } });
    const metrics = emfRecords(lines).flatMap((doc) => doc._aws.CloudWatchMetrics.flatMap((d) => d.Metrics.map((m) => ({ name: m.Name, job: doc["job"], value: doc[m.Name] as number }))));
    const advice = report.warnings.filter((w) => /restore from this result/.test(w));
    // What the warning advises, done: restore is given this result.
    const restorable = (() => {
      try {
        parseRestoreText(JSON.stringify(report));
        return "restorable";
      } catch (err) {
        return (err as Error).message;
      }
    })();
    expect({ advice: advice.length ? restorable : "no advice", alarmed: metrics.filter((m) => m.name === "ReportNotStored") }).toEqual({ advice: "no advice", alarmed: [] });
  }, 60_000);
});
