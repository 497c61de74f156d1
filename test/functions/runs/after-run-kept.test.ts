/**
 * afterRun's `kept` (the durable run's lease given back, lifecycle.ts) comes after the report's store,
 * which may take up to 30 s: a store S3 hangs on must not take the time the release needs, or the lease
 * is left held until the execution's time limit (and the next scheduled start fails on it).
 */
import { describe, expect, it } from "vitest";
import { MIN_SLICE_MS, RETURN_MARGIN_MS } from "../../../functions/shared/lambda/time-left.ts";
import { afterRun } from "../../../functions/shared/runs/after-run.ts";
import type { AnyReport, RunLabels } from "../../../functions/shared/runs/outcome.ts";
import type { RunHistory } from "../../../functions/shared/runs/run-history.ts";
import { runRecord } from "../../support/report.ts";

const LABELS: RunLabels = { job: "enforce", trigger: "schedule", stage: "production", correlationId: "req-1" };
const REMOVED = { type: "remove-share", kind: "project", projectId: 7, project: "acme/app", groupId: 9, group: "contractors", accessLevel: 30, expiresAt: null, reason: "not allowed", status: "done" };
const REPORT = { ...runRecord("enforce", false), summary: { strays: 1, removed: 1, failed: 0, guard: "ok", complete: true }, actions: [REMOVED], stats: { requests: 2, retries: 0, rateLimited: 0, pages: 1, durationMs: 10 }, warnings: [] } as unknown as AnyReport;

/** An S3 that takes the upload and never answers: the store ends only when its slice aborts it. */
const hanging = { store: (_report, _labels, opts) => new Promise((_, reject) => opts?.signal?.addEventListener("abort", () => reject(opts.signal!.reason))) } as Pick<RunHistory, "store"> as RunHistory;

describe("afterRun's kept", () => {
  it("keeps time for `kept` out of the store's slice: a store S3 hangs on leaves the lease's release enough to be tried", async () => {
    const end = Date.now() + 8_000;
    const timeLeft = () => end - Date.now();
    let left: number | undefined;
    const result = await afterRun({ report: REPORT }, LABELS, { history: hanging, lastSweep: { read: async () => undefined, write: async () => undefined }, timeLeft, kept: async () => void (left = timeLeft()) });
    // Tried, and given up on in its slice.
    expect(result.stored).toBeUndefined();
    expect(timeLeft()).toBeLessThan(6_000);
    // What the release's slice (durable/job.ts's giveBack) needs so as not to be skipped.
    expect(left).toBeGreaterThanOrEqual(MIN_SLICE_MS + RETURN_MARGIN_MS);
  });
});
