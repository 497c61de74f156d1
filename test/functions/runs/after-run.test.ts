import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { mockClient } from "aws-sdk-client-mock";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { afterRun } from "../../../functions/shared/runs/after-run.ts";
import { runHistory } from "../../../functions/shared/runs/run-history.ts";
import type { AnyReport, RunLabels } from "../../../functions/shared/runs/outcome.ts";
import { captureLogs, stubAwsEnv } from "../../support/lambda.ts";
import { runRecord } from "../../support/report.ts";

const s3 = mockClient(S3Client);
const LABELS: RunLabels = { job: "enforce", trigger: "schedule", stage: "production", correlationId: "req-1" };
const REMOVED = { type: "remove-share", kind: "project", projectId: 7, project: "acme/app", groupId: 9, group: "contractors", accessLevel: 30, expiresAt: null, reason: "not allowed", status: "done" };
const REPORT = { ...runRecord("enforce", false), summary: { strays: 1, removed: 1, failed: 0, guard: "ok", complete: true }, actions: [REMOVED], stats: { requests: 2, retries: 0, rateLimited: 0, pages: 1, durationMs: 10 }, warnings: [] } as unknown as AnyReport;

beforeEach(() => {
  s3.reset();
  stubAwsEnv({ WARDEN_RUN_HISTORY_BUCKET: "warden-runs" });
});
afterEach(() => vi.unstubAllEnvs());

const history = () => runHistory({ client: new S3Client({ region: "eu-west-1" }) });

describe("afterRun", () => {
  it("stores an applying run's report, and emits no metrics (the lifecycle emitted them, before any wait)", async () => {
    s3.on(PutObjectCommand).resolves({});
    vi.stubEnv("POWERTOOLS_METRICS_DISABLED", "false");
    const logs = captureLogs();
    let out: string[];
    let result;
    try {
      result = await afterRun({ report: REPORT }, LABELS, { history: history() });
      out = logs.lines().map((l) => JSON.stringify(l));
    } finally {
      logs.restore();
    }
    expect(result.stored).toMatch(/^s3:\/\/warden-runs\/runs\/enforce\/schedule\/\d{8}T\d{6}\.\d{3}Z-req-1\.json$/);
    expect(out.some((l) => l.includes('"SharesRemoved"'))).toBe(false);
  });

  it("never fails the run: a store that fails is logged, and the summary still goes out", async () => {
    s3.on(PutObjectCommand).rejects(Object.assign(new Error("Access Denied"), { name: "AccessDenied" }));
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const logs = captureLogs();
    let lines: Record<string, unknown>[];
    try {
      // A webhook that is not Slack's: the summary is attempted (and refused), after the failed store.
      const result = await afterRun({ report: REPORT }, LABELS, { history: history(), notify: { webhookUrl: "https://example.com/services/T0/B0/x0x0x0x0", setting: "always" } });
      expect(result.stored).toBeUndefined();
      lines = logs.lines();
    } finally {
      logs.restore();
    }
    const messages = lines.map((l) => String(l["message"]));
    expect(messages).toContain("storing the run's report for restore failed; its audit lines are in the log");
    expect(messages.some((m) => m.startsWith("run summary not posted"))).toBe(true);
  });

  it("stores no dry run, no run that changed nothing, no enforce run that only opened notices, and no run that threw", async () => {
    await afterRun({ report: { ...REPORT, dryRun: true } }, LABELS, { history: history() });
    await afterRun({ report: { ...REPORT, actions: [{ ...REMOVED, status: "failed" }] } as unknown as AnyReport }, LABELS, { history: history() });
    // Under onStray notify, a sweep on a day no notice fell due only opens notices: nothing for restore to undo, and
    // stored, it would be "latest", hiding the sweep before it that removed shares from `warden restore latest`.
    await afterRun({ report: { ...REPORT, actions: [{ ...REMOVED, status: "noticed" }] } as unknown as AnyReport }, LABELS, { history: history() });
    await afterRun({ error: new Error("boom") }, LABELS, { history: history() });
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(0);
  });
});
