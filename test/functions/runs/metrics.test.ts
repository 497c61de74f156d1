/** The run metrics as CloudWatch would read them: the EMF line Powertools writes to stdout, parsed and checked against the EMF specification. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { recordRun } from "../../../functions/shared/runs/metrics.ts";
import type { RunOutcome } from "../../../functions/shared/runs/outcome.ts";
import { expectValidEmf, type Emf } from "../../support/emf.ts";

afterEach(() => vi.restoreAllMocks());

function emitted(outcome: RunOutcome, labels = { job: "enforce" as const, trigger: "schedule" as const, stage: "production" }): Emf[] {
  // Held back from the runner's output; what matters is what was written.
  const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  recordRun(outcome, labels);
  const lines = write.mock.calls.map(([chunk]) => String(chunk)).join("").split("\n").filter(Boolean);
  write.mockRestore();
  return lines.map((line) => JSON.parse(line) as Emf);
}

const stats = { requests: 42, retries: 3, rateLimited: 2, pages: 5, durationMs: 61_234 };

describe("recordRun", () => {
  it("emits one valid EMF line per run, per job and per job and trigger, with what an enforce run found and did", () => {
    const report = {
      job: "enforce",
      dryRun: false,
      summary: { strays: 3, removed: 1, failed: 1, alreadyGone: 0, skipped: 1, guard: "ok", complete: true },
      actions: [{ status: "done" }, { status: "failed" }, { status: "skipped" }],
      stats,
      warnings: [],
    };
    const [doc, ...more] = emitted({ report } as unknown as RunOutcome);
    expect(more).toEqual([]);
    expectValidEmf(doc!);
    expect(doc!._aws.CloudWatchMetrics[0]!.Namespace).toBe("Warden");
    expect(doc!._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([
      ["service", "stage", "job"],
      ["service", "stage", "job", "trigger"],
    ]);
    expect(doc).toMatchObject({ service: "warden", stage: "production", job: "enforce", trigger: "schedule" });
    expect(doc).toMatchObject({
      RunSucceeded: 0,
      RunFailed: 1,
      GuardTripped: 0,
      RunIncomplete: 0,
      ActionsFailed: 1,
      StraysFound: 3,
      SharesRemoved: 1,
      RemovalsFailed: 1,
      Requests: 42,
      Retries: 3,
      RateLimited: 2,
      Duration: 61_234,
    });
    expect(doc!._aws.CloudWatchMetrics[0]!.Metrics).toContainEqual({ Name: "Duration", Unit: "Milliseconds" });
    expect(doc).not.toHaveProperty("WorkflowsChanged");
  });

  it("counts a tripped guard and a clean workflows run by their own metrics", () => {
    const tripped = { job: "workflows", dryRun: false, summary: { changes: 90, applied: 0, failed: 0, guard: "tripped", complete: true }, actions: [], stats, warnings: [] };
    const [doc] = emitted({ report: tripped } as unknown as RunOutcome, { job: "workflows", trigger: "console", stage: "staging" } as never);
    expectValidEmf(doc!);
    expect(doc).toMatchObject({ job: "workflows", trigger: "console", stage: "staging", GuardTripped: 1, RunSucceeded: 0, RunFailed: 0, WorkflowsChanged: 0 });
    expect(doc).not.toHaveProperty("StraysFound");

    const clean = { ...tripped, summary: { ...tripped.summary, changes: 2, applied: 2, guard: "ok" }, actions: [{ status: "done" }, { status: "done" }] };
    expect(emitted({ report: clean } as unknown as RunOutcome, { job: "workflows", trigger: "schedule", stage: "staging" } as never)[0]).toMatchObject({ RunSucceeded: 1, RunFailed: 0, GuardTripped: 0, WorkflowsChanged: 2 });
  });

  it("marks an incomplete listing as failed and incomplete", () => {
    const report = { job: "enforce", dryRun: true, summary: { strays: 0, removed: 0, failed: 0, guard: "ok", complete: false }, actions: [], stats, warnings: [] };
    expect(emitted({ report } as unknown as RunOutcome)[0]).toMatchObject({ RunIncomplete: 1, RunFailed: 1, RunSucceeded: 0 });
  });

  it("counts a run that threw as failed, and nothing it cannot know", () => {
    const [doc] = emitted({ error: new Error("GitLab answered 401") });
    expectValidEmf(doc!);
    expect(doc).toMatchObject({ RunFailed: 1, RunSucceeded: 0 });
    expect(doc!._aws.CloudWatchMetrics[0]!.Metrics.map((m) => m.Name)).toEqual(["RunSucceeded", "RunFailed"]);
  });
});
