/**
 * Issue 14's operations, end to end: the functions bundled as SST bundles them, called as AWS and
 * Slack call them, against real stand-ins over sockets — dynalite for the claims table, loopback
 * Lambda Invoke, Secrets Manager and S3 APIs for the real SDK clients, the GitLab simulator, and a
 * Slack incoming webhook that holds every post to Block Kit's limits. Every line the functions write
 * is captured (at DEBUG, metrics on) and searched for what must never be in a log.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { WorkerEvent } from "../../functions/shared/runs/job-request.ts";
import { ALREADY_RECEIVED } from "../../functions/shared/slack/once.ts";
import type { EnforceReport, RestoreReport } from "../../lib/jobs/index.ts";
import { generateOrganisation, startGitLabSim } from "../../sim/gitlab/index.ts";
import { standardPolicy } from "../support/policies.ts";
import { bundleHandler, type Bundle } from "../support/bundle.ts";
import { emfRecords, expectValidEmf } from "../support/emf.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/slack-webhook-receiver.ts";
import { captureLogs, functionUrlEvent, lambdaContext, SECRETS, signedCommand, slashCommandBody } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";

type ChatopsHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;
type JobHandler<R> = (event: unknown, context: Context) => Promise<R>;

const USER = "U012ABCDEF";
const BUCKET = "warden-production-runhistory";
/** The incoming webhook's secret part: what must never be logged. */
const WEBHOOK_TOKEN = "hK3vQ9xWm2LpR7tY4bN8cZ5d";
const POLICY = `${standardPolicy()}
chatops:
  slack:
    users: ["${USER}"]
`;

let slack: WebhookReceiver;
let chatops: Bundle<ChatopsHandler>;
let worker: Bundle<JobHandler<{ posted: boolean }>>;
let enforce: Bundle<JobHandler<EnforceReport | RestoreReport>>;
let strays: number;
let logs: ReturnType<typeof captureLogs>;

// Started first: the jobs' secret names the webhook.
beforeAll(async () => {
  [slack, chatops, worker, enforce] = await Promise.all([
    startWebhookReceiver(WEBHOOK_TOKEN),
    bundleHandler<ChatopsHandler>("functions/chatops.ts"),
    bundleHandler<JobHandler<{ posted: boolean }>>("functions/worker.ts"),
    bundleHandler<JobHandler<EnforceReport | RestoreReport>>("functions/enforce.ts"),
  ]);
}, 60_000);
afterAll(() => slack.close());
// What sst.config.ts gives the functions on production, with the AWS APIs pointed at the stand-ins.
const world = lambdaWorld({
  secret: () => JSON.stringify({ ...SECRETS, slackWebhookUrl: slack.webhookUrl }),
  dynamo: true,
  lambdaApi: true,
  s3: true,
  policy: POLICY,
  gitlab: () => {
    const { dataset, intents } = generateOrganisation({ projects: 120, seed: 7 });
    strays = intents.filter((i) => i.intent === "stray").length;
    return { dataset };
  },
  env: () => ({
    WARDEN_RUN_HISTORY_BUCKET: BUCKET,
    WARDEN_WORKER_FUNCTION: "warden-production-Worker",
    WARDEN_REPORT_ONLY: "false",
    WARDEN_STAGE: "production",
    // The webhook and response_url stand-in, in place of https://hooks.slack.com.
    WARDEN_SLACK_RESPONSE_ORIGIN: slack.origin,
    POWERTOOLS_LOG_LEVEL: "DEBUG",
    // Asks Powertools to log every event; Warden overrides it, as events carry what must not be logged.
    POWERTOOLS_LOGGER_LOG_EVENT: "true",
    POWERTOOLS_METRICS_DISABLED: "false",
  }),
});
beforeEach(() => {
  slack.posts = [];
  slack.responses = [];
  slack.problems = [];
  slack.status = 200;
  logs = captureLogs();
});
afterEach(() => logs.restore());

const context = (functionName: string, requestId?: string) => lambdaContext({ functionName, ...(requestId ? { requestId } : {}) });
const removals = () => world.gitlab.counters.byRoute["DELETE /projects/:id/share/:group_id"] ?? 0;
const ackText = (response: APIGatewayProxyStructuredResultV2) => (JSON.parse(String(response.body)) as { text: string }).text;
/** The same request again, as a fresh event object: what a replay (or a second delivery) is. */
const again = <T>(event: T): T => structuredClone(event);
const command = (text: string) => signedCommand({ text, user_id: USER, response_url: `${slack.origin}/commands/T0001/1234/${crypto.randomUUID()}` });

describe("chat-ops runs each command once", () => {
  it("acknowledges a replayed signed command without starting the worker again", async () => {
    const handler = await chatops.container();
    const event = command("enforce --apply");
    const first = await handler(again(event), context("warden-production-Chatops"));
    expect(ackText(first)).toBe(":hourglass_flowing_sand: Running `enforce --apply`; the result will be posted here.");
    // Within the 5 minutes its signature verifies, byte for byte the same: in the same container, and in another.
    for (const replayed of [await handler(again(event), context("warden-production-Chatops")), await (await chatops.container())(again(event), context("warden-production-Chatops"))]) {
      expect(replayed.statusCode).toBe(200);
      expect(ackText(replayed)).toBe(ALREADY_RECEIVED);
    }
    expect(world.lambdaApi.invokes).toHaveLength(1);
    expect(logs.lines()).toContainEqual(expect.objectContaining({ message: "chat-command", outcome: "not run", reason: "a repeat of a request already received" }));
  });

  it("starts one worker for two copies arriving at once, in two containers", async () => {
    const [a, b] = [await chatops.container(), await chatops.container()];
    const event = command("enforce");
    const answers = (await Promise.all([a(again(event), context("warden-production-Chatops")), b(again(event), context("warden-production-Chatops"))])).map(ackText);
    expect(answers.sort()).toEqual([":hourglass_flowing_sand: Running `enforce` (dry run); the result will be posted here.", ALREADY_RECEIVED].sort());
    expect(world.lambdaApi.invokes).toHaveLength(1);
  });

  it("acknowledges a request Slack marks as a retry (X-Slack-Retry-Num) without running it", async () => {
    const event = command("enforce");
    event.headers["X-Slack-Retry-Num"] = "1";
    event.headers["X-Slack-Retry-Reason"] = "http_timeout";
    expect(ackText(await (await chatops.container())(event, context("warden-production-Chatops")))).toBe(ALREADY_RECEIVED);
    expect(world.lambdaApi.invokes).toHaveLength(0);
  });

  it("answers Slack's ssl_check 200 with an empty body, and still refuses any other unsigned request", async () => {
    const handler = await chatops.container();
    const sslCheck = await handler(functionUrlEvent("ssl_check=1&token=deprecated-verification-token", {}), context("warden-production-Chatops"));
    expect(sslCheck).toMatchObject({ statusCode: 200 });
    expect(sslCheck.body ?? "").toBe("");
    const unsigned = await handler(functionUrlEvent(slashCommandBody({ text: "enforce", user_id: USER }), {}), context("warden-production-Chatops"));
    expect(unsigned.statusCode).toBe(401);
    const sslCheckWithCommand = await handler(functionUrlEvent(`ssl_check=1&${slashCommandBody({ text: "enforce", user_id: USER })}`, {}), context("warden-production-Chatops"));
    expect(sslCheckWithCommand.statusCode).toBe(401);
    expect(world.lambdaApi.invokes).toHaveLength(0);
  });

  it("runs a worker event once, however often it is delivered", async () => {
    await (await chatops.container())(command("enforce --apply"), context("warden-production-Chatops"));
    const payload = JSON.parse(world.lambdaApi.invokes[0]!.payload) as WorkerEvent;
    expect(await (await worker.container())(again(payload), context("warden-production-Worker"))).toEqual({ posted: true });
    expect(removals()).toBe(strays);
    // An operator re-sends the event (Lambda itself does not retry it): to a warm container, and to a cold one.
    expect(await (await worker.container())(again(payload), context("warden-production-Worker"))).toEqual({ posted: false });
    expect(removals()).toBe(strays);
    expect(slack.responses).toHaveLength(1);
    expect(logs.lines()).toContainEqual(expect.objectContaining({ level: "WARN", message: "worker event already received: not run again", correlation_id: payload.correlationId }));
    // A chat run answers in its thread, never on the channel's webhook.
    expect(slack.posts).toHaveLength(0);
  });
});

describe("scheduled runs report to Slack, and emit their metrics", () => {
  it("posts one summary of a scheduled apply to the webhook, and none for the clean run after it", async () => {
    const handler = await enforce.container();
    const applied = (await handler({ source: "schedule" }, context("warden-production-Enforce", "req-scheduled-1"))) as EnforceReport;
    expect(applied).toMatchObject({ dryRun: false, summary: { removed: strays } });
    expect(slack.posts).toHaveLength(1);
    expect(slack.problems).toEqual([]);
    const posted = JSON.stringify(slack.posts[0]);
    for (const part of ["*enforce*", "trigger schedule", "stage production", "req-scheduled-1"]) expect(posted).toContain(part);

    const clean = (await handler({ source: "schedule" }, context("warden-production-Enforce"))) as EnforceReport;
    expect(clean.summary).toMatchObject({ strays: 0, removed: 0 });
    expect(slack.posts).toHaveLength(1);
  });

  it("writes one valid EMF record per run, per job and trigger, with what the run found and did", async () => {
    const handler = await enforce.container();
    await handler({ source: "schedule" }, context("warden-production-Enforce"));
    await handler({}, context("warden-production-Enforce"));
    const records = emfRecords(logs.lines());
    expect(records).toHaveLength(2);
    records.forEach(expectValidEmf);
    expect(records[0]!._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([
      ["service", "stage", "job"],
      ["service", "stage", "job", "trigger"],
    ]);
    expect(records[0]).toMatchObject({ service: "warden", stage: "production", job: "enforce", trigger: "schedule", StraysFound: strays, SharesRemoved: strays, RunSucceeded: 1, RunFailed: 0, GuardTripped: 0 });
    expect(records[0]!["Requests"]).toBeGreaterThan(0);
    expect(records[1]).toMatchObject({ trigger: "console", StraysFound: 0, SharesRemoved: 0, RunSucceeded: 1 });
  });

  it("keeps the run's outcome when the webhook fails, and says so in the log", async () => {
    slack.status = 500;
    const report = (await (await enforce.container())({ source: "schedule" }, context("warden-production-Enforce"))) as EnforceReport;
    expect(report.summary.removed).toBe(strays);
    expect(slack.posts).toHaveLength(1);
    expect(logs.lines()).toContainEqual(expect.objectContaining({ level: "WARN", message: "posting the run summary to Slack failed", status: 500 }));
  });

  it("tells the channel of a run that failed, and counts it", async () => {
    // A GitLab that refuses the secret's token.
    await world.gitlab.close();
    world.gitlab = await startGitLabSim({ tokens: { "glpat-another-token": { admin: true } } });
    vi.stubEnv("GITLAB_URL", world.gitlab.url);
    await expect((await enforce.container())({ source: "schedule" }, context("warden-production-Enforce"))).rejects.toThrow(/answered 401/);
    expect(slack.posts).toHaveLength(1);
    expect(slack.problems).toEqual([]);
    expect(JSON.stringify(slack.posts[0])).toContain("Warden enforce failed");
    expect(emfRecords(logs.lines())).toEqual([expect.objectContaining({ RunFailed: 1, RunSucceeded: 0 })]);
    // Its end logged as every trigger's is (functions/shared/runs/lifecycle.ts), the error beside the run's name.
    expect(logs.lines()).toContainEqual(expect.objectContaining({ level: "ERROR", message: "job failed", job: "enforce", trigger: "schedule", error: expect.stringMatching(/answered 401/) }));
  });
});

describe("run history for restore", () => {
  it("keeps an applying run's report, and restores from it by s3:// or as latest: dry unless dryRun is false", async () => {
    const handler = await enforce.container();
    const removal = (await handler({ dryRun: false }, context("warden-production-Enforce", "req-apply-1"))) as EnforceReport;
    const keys = [...world.s3.objects.keys()];
    expect(keys).toEqual([expect.stringMatching(new RegExp(`^${BUCKET}/runs/enforce/console/\\d{8}T\\d{6}\\.\\d{3}Z-req-apply-1\\.json$`))]);
    expect(JSON.parse(world.s3.objects.get(keys[0]!)!)).toEqual(removal);
    expect(logs.lines()).toContainEqual(expect.objectContaining({ message: "run report stored for restore", location: `s3://${keys[0]}` }));
    // A run that changes nothing is not kept: "latest" still names the run that removed the shares.
    await handler({ dryRun: false }, context("warden-production-Enforce"));
    expect(world.s3.objects.size).toBe(1);

    const posts = () => world.gitlab.counters.byRoute["POST /projects/:id/share"] ?? 0;
    // The policy has not changed: every share the run removed is still stray, skipped unless includeStray.
    const dry = (await handler({ restore: "latest" }, context("warden-production-Enforce"))) as RestoreReport;
    expect(dry).toMatchObject({ job: "restore", dryRun: true, summary: { from: `s3://${keys[0]}: an enforce report, the latest sweep (trigger console)`, restores: 0, notAllowed: strays, restored: 0 } });
    expect(posts()).toBe(0);
    const applied = (await handler({ restore: `s3://${keys[0]}`, dryRun: false, includeStray: true }, context("warden-production-Enforce"))) as RestoreReport;
    expect(applied).toMatchObject({ job: "restore", dryRun: false, summary: { restored: strays, notAllowed: strays, includeStray: true, failed: 0 } });
    expect(posts()).toBe(strays);
  });

  it.each([
    [{ restore: "s3://Not_A_Bucket/runs/x.json" }, /^invalid event: restore: a stored run is named s3:\/\/<bucket>\/<key>, "latest" \(the latest sweep\) or "latest:<trigger>"/],
    [{ restore: "latest", source: "schedule" }, "invalid event: restore: a restore is asked by a person, not by the schedule: leave out source"],
  ])("refuses %j before reading anything", async (event, message) => {
    await expect((await enforce.container())(event, context("warden-production-Enforce"))).rejects.toThrow(message);
    expect(world.gitlab.counters.requests).toBe(0);
  });

  it("fails naming the bucket when it holds no enforce run", async () => {
    await expect((await enforce.container())({ restore: "latest" }, context("warden-production-Enforce"))).rejects.toThrow(`no stored enforce run for the latest sweep in s3://${BUCKET}/runs/enforce/schedule/`);
    expect(world.gitlab.counters.requests).toBe(0);
  });
});

describe("the logs of all of it", () => {
  it("hold no credential, no webhook URL and no response_url", async () => {
    const chat = command("enforce --apply");
    await (await chatops.container())(again(chat), context("warden-production-Chatops"));
    await (await chatops.container())(again(chat), context("warden-production-Chatops"));
    await (await worker.container())(JSON.parse(world.lambdaApi.invokes[0]!.payload), context("warden-production-Worker"));
    world.gitlab.resetCounters();
    const handler = await enforce.container();
    await handler({ dryRun: false }, context("warden-production-Enforce"));
    await handler({ restore: "latest", dryRun: false, includeStray: true }, context("warden-production-Enforce"));
    slack.status = 500;
    await handler({ dryRun: false }, context("warden-production-Enforce"));

    const lines = logs.lines();
    expect(lines.length).toBeGreaterThan(20);
    const text = JSON.stringify(lines).toLowerCase();
    const responseUrl = new URL(new URLSearchParams(Buffer.from(chat.body!, "base64").toString()).get("response_url")!);
    for (const secret of [...Object.values(SECRETS), WEBHOOK_TOKEN, WEBHOOK_TOKEN.slice(0, 8), slack.webhookUrl, "/services/T0001", responseUrl.pathname, "x-slack-signature"]) {
      expect(text, secret).not.toContain(secret.toLowerCase());
    }
  });
});
