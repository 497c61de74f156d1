/**
 * The run's end attempted again (runs/lifecycle.ts): the durable Enforce runs it in the step "finish",
 * begun before it runs, and an attempt after one cut off (a crash, the deadline) is told `again`. That
 * one may have posted the Slack summary: it was posted twice (a known leftover); it is not posted again
 * now, and a warning says why. Nor are the metrics counted twice: they are emitted before the end's
 * first wait, so an attempt cut off (at a wait) has emitted them. The local durable runner cannot end an
 * invocation inside a step, so the lifecycle is driven here as the step's attempts drive it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { WorkflowsReport } from "../../../lib/jobs/workflows/index.ts";
import { emfRecords, type Emf } from "../../support/emf.ts";
import { captureLogs, SECRETS } from "../../support/lambda.ts";
import { lambdaWorld } from "../../support/lambda-world.ts";
import { standardPolicy } from "../../support/policies.ts";
import { runRecord } from "../../support/report.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../../support/slack-webhook-receiver.ts";

const TOKEN = "hK3vQ9xWm2LpR7tY4bN8cZ5d";
let slack: WebhookReceiver;
beforeAll(async () => {
  slack = await startWebhookReceiver(TOKEN);
});
afterAll(() => slack.close());
lambdaWorld({
  secret: () => JSON.stringify({ ...SECRETS, slackWebhookUrl: slack.webhookUrl }),
  policy: `${standardPolicy()}notify: { slack: always }\n`,
  env: () => ({ WARDEN_SLACK_RESPONSE_ORIGIN: slack.origin, POWERTOOLS_LOG_LEVEL: "INFO", POWERTOOLS_METRICS_DISABLED: "false" }),
});

const report = (): WorkflowsReport => ({
  ...runRecord("workflows", true),
  summary: { apiGeneration: 1, workflows: 1, active: 1, archived: 0, changes: 0, reported: 0, applied: 0, failed: 0, maxChanges: 10, guard: "ok", complete: true },
  actions: [],
  stats: { requests: 1, retries: 0, rateLimited: 0, pages: 1, durationMs: 1 },
  warnings: [],
});

/** One run, its end run as an attempt of the step "finish" is: the first, or one after it was cut off. */
async function runEndedAs(again: boolean): Promise<{ messages: string[]; emf: Emf[] }> {
  slack.posts = [];
  // As a container loads them, once the environment is the function's.
  vi.resetModules();
  const { runLifecycle } = await import("../../../functions/shared/runs/lifecycle.ts");
  const { runLabels } = await import("../../../functions/shared/runs/triggers.ts");
  const logs = captureLogs();
  const life = { labels: runLabels("workflows", "schedule", "c0ffee00-1234-4abc-8def-0123456789ab"), timeLeft: () => 60_000, signal: AbortSignal.timeout(60_000), endIn: (end: (again?: boolean) => Promise<string | undefined>) => end(again) };
  await runLifecycle(life, async () => report());
  const lines = logs.lines();
  logs.restore();
  return { messages: lines.map((l) => String(l["message"])), emf: emfRecords(lines) };
}

describe("the run's end attempted again after one cut off", () => {
  it("posts the Slack summary and emits the metrics on the first attempt, and neither on an attempt again, saying why", async () => {
    const first = await runEndedAs(false);
    expect(slack.posts).toHaveLength(1);
    expect(first.emf).toHaveLength(1);
    expect(first.emf[0]).toMatchObject({ RunSucceeded: 1 });
    const again = await runEndedAs(true);
    expect(slack.posts).toEqual([]);
    expect(again.emf, "the run counted twice").toEqual([]);
    expect(again.messages).toContain("the run's end is attempted again after one cut off, which emitted its metrics and may have posted its Slack summary: not again");
    expect(again.messages).toContain("job finished");
  });
});
