/**
 * A console restore of a stored run that S3 refuses to read (an AccessDenied with its context, as S3
 * answers one within the account: the account id, the Enforce role and session, the bucket and the key)
 * fails the run, and the failure's Slack summary goes to the deployment's channel: it names the read's
 * kind and location, never S3's message (lib/jobs/restore/run-history.ts), as after-run.ts keeps S3's
 * words out of the channel when a report cannot be stored (test/functions/runs/not-stored-in-channel.test.ts);
 * the log, which only operations read, has them (the `job failed` line's cause: runs/lifecycle.ts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { generateOrganisation } from "../../sim/gitlab/index.ts";
import { captureLogs, JOB_SECRETS, lambdaContext } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";
import { standardPolicy } from "../support/policies.ts";
import { refusingS3 } from "../support/s3-refusing.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/slack-webhook-receiver.ts";

const ACCOUNT = "123456789012";
const BUCKET = "warden-production-runhistorybucket-d4e5f6";
const DENIED = `User: arn:aws:sts::${ACCOUNT}:assumed-role/warden-production-EnforceRole-a1b2c3/warden-production-Enforce is not authorized to perform: s3:GetObject on resource: "arn:aws:s3:::${BUCKET}/runs/enforce/console/x.json" with an explicit deny in a resource-based policy`;

let slack: WebhookReceiver;
beforeAll(async () => {
  slack = await startWebhookReceiver("webhook0secret0part0000r7");
});
afterAll(() => slack.close());
const s3 = refusingS3(403, "AccessDenied", DENIED);
lambdaWorld({
  secret: () => JSON.stringify({ ...JOB_SECRETS, slackWebhookUrl: slack.webhookUrl }),
  policy: standardPolicy(),
  gitlab: () => ({ dataset: generateOrganisation({ projects: 40, seed: 7 }).dataset }),
  env: () => ({ WARDEN_REPORT_ONLY: "false", WARDEN_SLACK_RESPONSE_ORIGIN: slack.origin, WARDEN_RUN_HISTORY_BUCKET: BUCKET, AWS_ENDPOINT_URL_S3: s3.url() }),
});
beforeEach(() => {
  slack.posts = [];
});

describe("a console restore whose stored run S3 refuses to read", () => {
  it.each(["latest", `s3://${BUCKET}/runs/enforce/console/x.json`])("%s: does not post S3's account id, role and bucket to the deployment's Slack channel", async (ref) => {
    vi.resetModules();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const { handler } = await import("../../functions/enforce.ts");
    const logs = captureLogs();
    const result = await (handler({ restore: ref } as never, lambdaContext()) as Promise<unknown>).catch((err: Error) => err);
    // Operations, who may read it, find S3's own words in the log: the `job failed` line's cause.
    expect(logs.lines().find((line) => line["message"] === "job failed")?.["cause"]).toEqual(expect.stringContaining("assumed-role"));
    logs.restore();
    expect(result).toBeInstanceOf(Error);
    expect(slack.posts.length, "the failure is posted to the channel").toBeGreaterThan(0);
    const posted = JSON.stringify(slack.posts);
    expect(posted).toContain("Warden restore failed");
    expect(posted, "the failure names the refusal's kind").toContain("AccessDenied");
    expect(posted.match(new RegExp(`${ACCOUNT}|assumed-role|arn:aws:s3:::`, "g")) ?? []).toEqual([]);
  }, 60_000);
});
