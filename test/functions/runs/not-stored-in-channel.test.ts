/**
 * The ReportNotStored warning once quoted S3's error into a chat run's answer, which Slack shows to the whole
 * channel: a chat run that changed something is answered `in_channel` (lib/jobs/render/slack.ts), warnings and
 * all, and S3 answers an access denied within the account with its context (AWS's "Troubleshoot access denied
 * (403 Forbidden) errors in Amazon S3": `User: <arn> is not authorized to perform: <action> on
 * "<resource-arn>" because …`): the account's id, the Worker's role and session, the bucket and the run's key
 * (a review of baabaf7's finding). The warning names the error's kind alone now; the log line has it whole.
 * The S3 stand-in answers every request so, as S3 does when a bucket policy or an SCP denies the Worker.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { generateOrganisation } from "../../../sim/gitlab/index.ts";
import { applyingEnforce } from "../../support/chat-command.ts";
import { CHAT_PIPELINE_POLICY } from "../../support/policies.ts";
import { scriptedServer, type ScriptedServer } from "../../support/server.ts";
import { lambdaContext } from "../../support/lambda.ts";
import { lambdaWorld } from "../../support/lambda-world.ts";
import { refusingS3 } from "../../support/s3-refusing.ts";

const ACCOUNT = "123456789012";
const DENIED = `User: arn:aws:sts::${ACCOUNT}:assumed-role/warden-production-WorkerRole-a1b2c3/warden-production-Worker is not authorized to perform: s3:PutObject on resource: "arn:aws:s3:::warden-production-runhistorybucket-d4e5f6/runs/enforce/chat/x.json" with an explicit deny in a resource-based policy`;

let slack: ScriptedServer;
const posts: { path: string; body: string }[] = [];
const s3 = refusingS3(403, "AccessDenied", DENIED);

beforeAll(async () => {
  slack = await scriptedServer((req, res) => {
    posts.push({ path: req.url, body: req.body });
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
  });
});
afterAll(() => slack.close());

lambdaWorld({
  dynamo: true,
  policy: CHAT_PIPELINE_POLICY,
  gitlab: () => ({ dataset: generateOrganisation({ projects: 60, seed: 11 }).dataset }),
  env: () => ({ WARDEN_SLACK_RESPONSE_ORIGIN: slack.origin, WARDEN_REPORT_ONLY: "false", WARDEN_RUN_HISTORY_BUCKET: "warden-production-runhistorybucket-d4e5f6", AWS_ENDPOINT_URL_S3: s3.url() }),
});

describe("a chat enforce --apply whose report S3 refuses to store", () => {
  it("tells the channel the report was not kept, without S3's account, role and bucket", async () => {
    const event = applyingEnforce(slack.origin);
    vi.resetModules();
    const { handler } = await import("../../../functions/worker.ts");
    await expect(handler(event as never, lambdaContext({ functionName: "warden-test-Worker" }))).resolves.toEqual({ posted: true });
    const answer = posts.find((p) => p.path.startsWith("/commands/"))!;
    const message = JSON.parse(answer.body) as { response_type: string };
    expect(message.response_type).toBe("in_channel");
    expect(answer.body).toMatch(/could not be stored for restore/);
    expect(answer.body.match(new RegExp(`${ACCOUNT}|assumed-role|arn:aws:s3:::[a-z0-9.-]+`, "g")) ?? []).toEqual([]);
  }, 60_000);
});
