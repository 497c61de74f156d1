/**
 * Issue 20, point 2: a run stopped at its deadline keeps its report, whatever Slack does. Here Slack
 * (the incoming webhook and the response_url alike) accepts the connection and never answers, and the
 * invocation has a few seconds left. Each handler must return inside its invocation — middy's early
 * timeout, or Lambda, would otherwise end it first and the report with it — with the report logged
 * and stored, and the post's fate in the log. The stores, Secrets Manager, DynamoDB (dynalite),
 * GitLab and n8n are the loopback stand-ins of the other handler tests.
 */
import { S3Client } from "@aws-sdk/client-s3";
import type { Context } from "aws-lambda";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { afterRun } from "../../functions/shared/runs/after-run.ts";
import { runHistory } from "../../functions/shared/runs/run-history.ts";
import type { AnyReport } from "../../functions/shared/runs/outcome.ts";
import type { EnforceReport, WorkflowsReport } from "../../lib/jobs/index.ts";
import { generateOrganisation } from "../../sim/gitlab/index.ts";
import { startN8nSim, type N8nSim } from "../../sim/n8n/index.ts";
import { standardPolicy } from "../support/policies.ts";
import { scriptedServer, type ScriptedServer } from "../support/server.ts";
import { startWebhookReceiver } from "../support/slack-webhook-receiver.ts";
import { captureLogs, lambdaContext, SECRETS } from "../support/lambda.ts";
import { durableWorld, timedRunner } from "../support/durable-world.ts";
import { runRecord } from "../support/report.ts";

const USER = "U012ABCDEF";
const BUCKET = "warden-runs";
const POLICY = `${standardPolicy()}
n8n:
  workflows: { keepActive: ["tag:production"], unlisted: deactivate, listedInactive: publish }
chatops:
  slack:
    users: ["${USER}"]
`;
/**
 * The invocation's time when the handler is called: the job gets the deadline's 1 s floor (its margin
 * is 10 s), and what follows the run about 4 s, of which a post may take what remains less 2 s.
 */
const REMAINING_MS = 5_000;
/** Holds one change past the deadline, so the run is stopped there with the others made. */
const HELD_MS = 6_000;

/** Slack that never answers: it reads each post and leaves the connection open. Started first: the jobs' secret names its webhook. */
let silent: ScriptedServer;
let logs: ReturnType<typeof captureLogs>;
beforeAll(async () => {
  silent = await scriptedServer(() => undefined);
});
afterAll(() => silent.close());
const world = durableWorld({
  skipTime: false,
  s3: true,
  secret: () => JSON.stringify({ ...SECRETS, slackWebhookUrl: `${silent.origin}/services/T0001/B0001/hK3vQ9xWm2LpR7tY4bN8cZ5d` }),
  policy: POLICY,
  gitlab: () => ({ dataset: generateOrganisation({ projects: 60, seed: 7 }).dataset }),
  env: () => ({ WARDEN_RUN_HISTORY_BUCKET: BUCKET, WARDEN_REPORT_ONLY: "false", WARDEN_SLACK_RESPONSE_ORIGIN: silent.origin, POWERTOOLS_LOG_LEVEL: "INFO" }),
});
beforeEach(() => {
  silent.received.length = 0;
  logs = captureLogs();
});
afterEach(() => logs.restore());

/** One share removal held past the deadline: the others are made, and the run is stopped with it in flight. */
const holdOneRemoval = () => world.gitlab.addFaults({ kind: "delay", ms: HELD_MS, route: "DELETE /projects/:id/share/:group_id", times: 1 });

/** Calls a plain handler as Lambda would, with `remainingMs` left, and how long it took. */
async function invoke<R>(file: string, event: unknown, remainingMs = REMAINING_MS): Promise<{ result: R; elapsedMs: number }> {
  vi.resetModules();
  const { handler } = (await import(file)) as { handler: (event: unknown, context: Context) => Promise<R> };
  const started = Date.now();
  const result = await handler(event, lambdaContext({ remainingMs }));
  return { result, elapsedMs: Date.now() - started };
}

const messages = () => logs.lines().map((line) => String(line["message"]));
const stored = () => [...world.s3.objects.keys()];

describe("a run stopped at its deadline, with Slack not answering", () => {
  it("scheduled Enforce returns its report inside the invocation, logged and stored, and logs the webhook's silence", async () => {
    holdOneRemoval();
    // The run's 3 s (past the 10 s margin), not the 1 s floor: its examination must reach the removals however loaded the machine.
    const remainingMs = 13_000;
    const { result: report, elapsedMs } = await invoke<EnforceReport>("../../functions/enforce.ts", { source: "schedule" }, remainingMs);
    expect(elapsedMs).toBeLessThan(remainingMs);
    expect(report.summary.removed).toBeGreaterThan(0);
    expect(report.actions.map((a) => a.error)).toContainEqual(expect.stringMatching(/^stopped while removing the share \(the Lambda times out in 10 s\)/));
    expect(messages()).toContain("job finished");
    expect(stored()).toEqual([expect.stringMatching(/^warden-runs\/runs\/enforce\//)]);
    // The summary went out, and was given up on in the time there was.
    expect(silent.received.map((r) => r.url)).toEqual(["/services/T0001/B0001/hK3vQ9xWm2LpR7tY4bN8cZ5d"]);
    expect(logs.lines()).toContainEqual(
      expect.objectContaining({ message: "posting the run summary to Slack failed", error: expect.stringMatching(/^posting the run summary to Slack: no answer within \d\.\d s, all the invocation could spare$/) }),
    );
  });

  it("Workflows returns its report inside the invocation, logged and stored", async () => {
    const at = "2025-01-01T00:00:00.000Z";
    const workflow = (id: string, active: boolean, tags: string[] = []) => ({ id, name: `Workflow ${id}`, active, isArchived: false, hasTrigger: true, createdAt: at, updatedAt: at, tags: tags.map((name, i) => ({ id: `t${i}`, name })) });
    const n8n: N8nSim = await startN8nSim({
      generation: 2,
      workflows: [workflow("wf1", true, ["production"]), workflow("wf2", true), workflow("wf3", false, ["production"])],
      apiKeys: { [SECRETS.n8nApiKey]: {} },
      // The deactivation goes first, alone; the activation (n8n 2's publish) is held past the deadline.
      faults: [{ kind: "delay", ms: HELD_MS, route: "POST /workflows/:id/publish", times: 1 }],
    });
    vi.stubEnv("N8N_URL", n8n.url);
    try {
      const { result: report, elapsedMs } = await invoke<WorkflowsReport>("../../functions/workflows.ts", { source: "schedule" });
      expect(elapsedMs).toBeLessThan(REMAINING_MS);
      expect(report.actions.map((a) => [a.workflowId, a.status])).toEqual([
        ["wf2", "done"],
        ["wf3", "failed"],
      ]);
      expect(messages()).toContain("job finished");
      expect(stored()).toEqual([expect.stringMatching(/^warden-runs\/runs\/workflows\//)]);
      expect(silent.received).toHaveLength(1);
      expect(messages()).toContain("posting the run summary to Slack failed");
    } finally {
      await n8n.close();
    }
  });

  it("the Worker returns inside the invocation, with the report logged and stored, and says its reply was not taken", async () => {
    holdOneRemoval();
    const event = { command: { job: "enforce", apply: true }, responseUrl: `${silent.origin}/commands/T0001/1234/abcd`, user: { id: USER, name: "ada" }, channelId: "C0123456", correlationId: "req-chatops-1" };
    const { result, elapsedMs } = await invoke<{ posted: boolean }>("../../functions/worker.ts", event);
    expect(elapsedMs).toBeLessThan(REMAINING_MS);
    expect(result).toEqual({ posted: false });
    expect(messages()).toContain("job finished");
    expect(stored()).toEqual([expect.stringMatching(/^warden-runs\/runs\/enforce\/.*-req-chatops-1\.json$/)]);
    expect(silent.received.map((r) => r.url)).toEqual(["/commands/T0001/1234/abcd"]);
    expect(logs.lines()).toContainEqual(expect.objectContaining({ message: "posting the result to Slack failed", error: expect.stringMatching(/posting the result to Slack: no answer within/) }));
  });

  it("a durable Enforce execution ends each invocation inside its time, the last one with the report logged and stored and the lease given back", async () => {
    vi.stubEnv("WARDEN_SLICE_SECONDS", "0.2");
    vi.resetModules();
    const { handler } = await import("../../functions/enforce.ts");
    const { dynamoClaims } = await import("../../functions/shared/state/claims.ts");
    const { runner, overran } = timedRunner<EnforceReport>(handler, REMAINING_MS);
    const execution = await runner.run({ payload: { dryRun: false } });
    expect(execution.getStatus()).toBe("SUCCEEDED");
    expect(overran()).toEqual([]);
    expect(execution.getResult()!.summary.removed).toBeGreaterThan(0);
    expect(messages().filter((m) => m === "job finished")).toHaveLength(1);
    expect(stored()).toEqual([expect.stringMatching(/^warden-runs\/runs\/enforce\//)]);
    expect(await dynamoClaims().holder("lease:enforce")).toBeUndefined();
    expect(silent.received).toHaveLength(1);
    expect(messages()).toContain("posting the run summary to Slack failed");
  });
});

describe("afterRun in the time left", () => {
  const REPORT = {
    ...runRecord("enforce", false),
    summary: { strays: 1, removed: 1, failed: 0, guard: "ok", complete: true },
    actions: [{ type: "remove-share", kind: "project", projectId: 7, project: "acme/app", groupId: 9, group: "contractors", accessLevel: 30, expiresAt: null, reason: "not allowed", status: "done" }],
    stats: { requests: 2, retries: 0, rateLimited: 0, pages: 1, durationMs: 10 },
    warnings: [],
  } as unknown as AnyReport;
  const LABELS = { job: "enforce", trigger: "schedule", stage: "production", correlationId: "req-1" } as const;

  it("stores, then posts: an S3 that never answers is given up on in its slice, and a post left without time is skipped, saying so", async () => {
    const slack = await startWebhookReceiver("xQ7zK2mVb4nL8pRt9WcY3dFg");
    vi.stubEnv("WARDEN_SLACK_RESPONSE_ORIGIN", slack.origin);
    // The run history's real S3 client, pointed at a server that reads the upload and never answers.
    const client = new S3Client({ endpoint: silent.url, forcePathStyle: true, region: "eu-west-1", credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "s3-test-secret" } });
    const end = Date.now() + 3_500;
    try {
      const started = Date.now();
      const result = await afterRun({ report: REPORT }, LABELS, { history: runHistory({ client, bucket: () => BUCKET }), notify: { webhookUrl: slack.webhookUrl, setting: "always" }, timeLeft: () => end - Date.now() });
      // The store had 3.5 s less the 2 s kept for returning the report; the post, nothing worth starting.
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(result.stored).toBeUndefined();
      expect(silent.received.map((r) => r.method)).toEqual(["PUT"]);
      expect(slack.posts).toEqual([]);
      const lines = logs.lines();
      expect(lines).toContainEqual(
        expect.objectContaining({ level: "ERROR", message: "storing the run's report for restore failed; its audit lines are in the log", error: expect.stringMatching(/^storing the run's report for restore: no answer within 1\.\d s, all the invocation could spare$/) }),
      );
      expect(lines).toContainEqual(expect.objectContaining({ level: "WARN", message: "posting the run summary to Slack: skipped, the invocation has too little time left", remainingMs: expect.any(Number), neededMs: 3_000 }));
    } finally {
      client.destroy();
      await slack.close();
    }
  });
});
