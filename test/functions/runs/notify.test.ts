/**
 * Run summaries posted to a loopback stand-in for Slack's incoming webhook, which holds every post to
 * Slack's Block Kit limits, as Slack would refuse it (invalid_blocks) otherwise.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { WorkflowAction, WorkflowsReport } from "../../../lib/jobs/workflows/index.ts";
import { registerSecret } from "../../../lib/redact/index.ts";
import { notifyRun, shouldNotify } from "../../../functions/shared/runs/notify.ts";
import type { RunLabels, RunOutcome } from "../../../functions/shared/runs/outcome.ts";
import type { NotifyLevel } from "../../../lib/policy/index.ts";
import { slackLinks, startWebhookReceiver, type WebhookReceiver } from "../../support/slack-webhook-receiver.ts";
import { captureLogs, stubAwsEnv } from "../../support/lambda.ts";
import { runRecord } from "../../support/report.ts";

const TOKEN = "xQ7zK2mVb4nL8pRt9WcY3dFg";
const LABELS: RunLabels = { job: "workflows", trigger: "schedule", stage: "production", correlationId: "c0ffee00-1234-4abc-8def-0123456789ab" };

let receiver: WebhookReceiver;
let webhookUrl: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver(TOKEN);
  webhookUrl = receiver.webhookUrl;
});
afterAll(() => receiver.close());
beforeEach(() => {
  receiver.posts = [];
  receiver.problems = [];
  receiver.status = 200;
  stubAwsEnv({ WARDEN_SLACK_RESPONSE_ORIGIN: receiver.origin, POWERTOOLS_LOG_LEVEL: "INFO" });
});
afterEach(() => vi.unstubAllEnvs());

function action(i: number, over: Partial<WorkflowAction> = {}): WorkflowAction {
  return { type: "deactivate", workflowId: `wf${i}`, name: `Workflow ${i}`, reason: "not listed in the policy", status: "done", ...over };
}

function report(actions: WorkflowAction[], over: Partial<WorkflowsReport> = {}, summary: Partial<WorkflowsReport["summary"]> = {}): RunOutcome {
  const r: WorkflowsReport = {
    ...runRecord("workflows", false),
    summary: { apiGeneration: 1, workflows: 500, active: 300, archived: 2, changes: actions.length, reported: 0, applied: actions.filter((a) => a.status === "done").length, failed: actions.filter((a) => a.status === "failed").length, maxChanges: 1000, guard: "ok", complete: true, ...summary },
    actions,
    stats: { requests: 12, retries: 1, rateLimited: 1, pages: 2, durationMs: 4200 },
    warnings: [],
    ...over,
  };
  return { report: r };
}

const CLEAN = report([]);
const CHANGED = report([action(1)]);
const DRY_FOUND = report([action(1, { status: "planned" })], { dryRun: true });
const TRIPPED = report([action(1, { status: "planned" })], {}, { guard: "tripped" });
const FAILED_ACTION = report([action(1, { status: "failed", error: "n8n answered 500" })]);
const INCOMPLETE = report([], {}, { complete: false });
const THREW: RunOutcome = { error: new Error("n8n answered 401: the API key was refused") };
const REPORTED_ONLY = report([action(1, { status: "reported" })]);

describe("shouldNotify", () => {
  it.each<[string, RunOutcome, Record<NotifyLevel, boolean>]>([
    ["a clean run", CLEAN, { always: true, changes: false, problems: false }],
    ["a run with findings only reported", REPORTED_ONLY, { always: true, changes: false, problems: false }],
    ["a run that changed something", CHANGED, { always: true, changes: true, problems: false }],
    ["a dry run that found work", DRY_FOUND, { always: true, changes: true, problems: false }],
    ["a tripped guard", TRIPPED, { always: true, changes: true, problems: true }],
    ["a failed action", FAILED_ACTION, { always: true, changes: true, problems: true }],
    ["an incomplete listing", INCOMPLETE, { always: true, changes: true, problems: true }],
    ["a run that threw", THREW, { always: true, changes: true, problems: true }],
  ])("%s", (_, outcome, expected) => {
    for (const setting of ["always", "changes", "problems"] as const) expect(shouldNotify(outcome, setting), setting).toBe(expected[setting]);
  });
});

describe("notifyRun", () => {
  it("posts one summary of a run that changed something, naming the job, trigger, stage and correlation id", async () => {
    expect(await notifyRun(CHANGED, LABELS, { webhookUrl, setting: "changes" })).toBe(true);
    expect(receiver.posts).toHaveLength(1);
    expect(receiver.problems).toEqual([]);
    const [post] = receiver.posts;
    const name = JSON.stringify(post!.blocks[1]);
    for (const part of ["workflows", "trigger schedule", "stage production", LABELS.correlationId]) expect(name).toContain(part);
    expect(JSON.stringify(post)).toContain("Workflow 1 (wf1)");
  });

  it("posts nothing for a clean run unless the setting is always", async () => {
    expect(await notifyRun(CLEAN, LABELS, { webhookUrl, setting: "changes" })).toBe(false);
    expect(await notifyRun(CLEAN, LABELS, { webhookUrl, setting: "problems" })).toBe(false);
    expect(receiver.posts).toHaveLength(0);
    expect(await notifyRun(CLEAN, LABELS, { webhookUrl, setting: "always" })).toBe(true);
    expect(receiver.posts).toHaveLength(1);
  });

  it("posts nothing when the secret has no webhook", async () => {
    expect(await notifyRun(THREW, LABELS, { webhookUrl: undefined, setting: "always" })).toBe(false);
    expect(receiver.posts).toHaveLength(0);
  });

  it("keeps a run of hundreds of actions, with very long names and warnings, within Slack's limits, cut with '… and N more'", async () => {
    const long = "x".repeat(5000);
    const many = Array.from({ length: 400 }, (_, i) => action(i, { name: `${i % 7 === 0 ? long : "Workflow"} ${i}` }));
    const warnings = Array.from({ length: 300 }, (_, i) => `stopped before change ${i} of 400 (the Lambda times out in 10 s); the next run picks it up`);
    expect(await notifyRun(report(many, { warnings }), LABELS, { webhookUrl, setting: "changes" })).toBe(true);
    expect(receiver.problems).toEqual([]);
    const posted = JSON.stringify(receiver.posts[0]);
    expect(posted).toMatch(/… ?and \d+ more/);
    expect(posted).toMatch(/… and \d+ more (lines|characters)/);
  });

  it("escapes names so that none can mention the channel or forge a link", async () => {
    const hostile = [action(1, { name: "<!channel> deploy now" }), action(2, { name: "<https://evil.example|Click to re-auth>" }), action(3, { name: "<@U0ADMIN> & <#C0OPS>" })];
    await notifyRun(report(hostile), LABELS, { webhookUrl, setting: "changes" });
    const posted = JSON.stringify(receiver.posts[0]);
    for (const raw of ["<!channel>", "<https://evil.example", "<@U0ADMIN>", "<#C0OPS>"]) expect(posted).not.toContain(raw);
    expect(posted).toContain("&lt;!channel&gt;");
  });

  it("links nothing a server or a person wrote: an address in a name, an error or a warning is text (every mrkdwn object verbatim)", async () => {
    const hostile = [action(1, { name: "Re-authenticate at https://evil.example/login now", status: "failed", error: "proxy says: see www.evil.example/help" })];
    await notifyRun(report(hostile, { warnings: ["n8n answered 503: https://evil.example/status"] }), LABELS, { webhookUrl, setting: "changes" });
    await notifyRun({ error: new Error("GitLab answered 401: sign in at https://evil.example/sso") }, LABELS, { webhookUrl, setting: "problems" });
    expect(receiver.posts).toHaveLength(2);
    for (const post of receiver.posts) {
      expect(JSON.stringify(post)).toContain("evil.example");
      expect(slackLinks(post)).toEqual([]);
    }
  });

  it("redacts credentials wherever they appear in the summary", async () => {
    registerSecret("glpat-notify-test-credential");
    await notifyRun(report([action(1, { status: "failed", error: "n8n echoed glpat-notify-test-credential back" })]), LABELS, { webhookUrl, setting: "problems" });
    const posted = JSON.stringify(receiver.posts[0]);
    expect(posted).not.toContain("notify-test-credential");
    expect(posted).toContain("[REDACTED]");
  });

  it("posts a failed run's error, escaped, with the run's name", async () => {
    await notifyRun({ error: new Error("GitLab answered 500 for <!here>") }, { ...LABELS, job: "enforce" }, { webhookUrl, setting: "problems" });
    expect(receiver.problems).toEqual([]);
    const posted = JSON.stringify(receiver.posts[0]);
    expect(posted).toContain("Warden enforce failed");
    expect(posted).toContain("GitLab answered 500 for &lt;!here&gt;");
    expect(posted).toContain(LABELS.correlationId);
  });

  it("logs a webhook that answers with an error, or cannot be reached, and resolves: without the URL or its secret", async () => {
    const logs = captureLogs();
    let lines: Record<string, unknown>[];
    try {
      receiver.status = 400;
      expect(await notifyRun(CHANGED, LABELS, { webhookUrl, setting: "changes" })).toBe(false);
      const closed = `http://127.0.0.1:1/services/T0001/B0001/${TOKEN}`;
      vi.stubEnv("WARDEN_SLACK_RESPONSE_ORIGIN", "http://127.0.0.1:1");
      expect(await notifyRun(CHANGED, LABELS, { webhookUrl: closed, setting: "changes" })).toBe(false);
      lines = logs.lines();
    } finally {
      logs.restore();
    }
    const failures = lines.filter((l) => String(l["message"]).startsWith("posting the run summary"));
    expect(failures.map((l) => [l["level"], l["status"] ?? "error"])).toEqual([
      ["WARN", 400],
      ["WARN", "error"],
    ]);
    expect(JSON.stringify(lines)).not.toContain(TOKEN.slice(0, 6));
    expect(JSON.stringify(lines)).not.toContain("T0001/B0001");
  });

  it("posts to nothing but a Slack incoming webhook, and says so without naming the URL", async () => {
    const logs = captureLogs();
    let lines: Record<string, unknown>[];
    try {
      for (const url of [`https://evil.example/services/T0001/B0001/${TOKEN}`, `${receiver.origin}/commands/T0001/B0001/${TOKEN}`, `hooks.slack.com/services/T0001/B0001/${TOKEN}`]) {
        expect(await notifyRun(CHANGED, LABELS, { webhookUrl: url, setting: "changes" }), url).toBe(false);
      }
      lines = logs.lines();
    } finally {
      logs.restore();
    }
    expect(receiver.posts).toHaveLength(0);
    expect(lines.filter((l) => String(l["message"]).includes("not a Slack incoming webhook"))).toHaveLength(3);
    expect(JSON.stringify(lines)).not.toMatch(/evil\.example|T0001\/B0001|xQ7zK2/);
  });
});
