/**
 * review-deploy8: every wait is bounded. The claims table, the Invoke API and S3 each have a client with a
 * connection and request timeout (dynamo-client.ts, start-worker.ts, s3-objects.ts); the Secrets Manager
 * client (functions/shared/config/secrets.ts: `new SecretsManagerClient({})`) has none. A Secrets Manager
 * endpoint that takes the connection and never answers (a network path gone quiet, a VPC endpoint
 * misrouted) holds every function until Lambda ends the invocation: the public endpoints answer neither
 * GitLab (8 s) nor Slack (3 s), and a job never reaches its end: no `job failed` line, no RunFailed
 * metric, so the `Failed` alarm does not fire.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import { describe, expect, it, vi } from "vitest";
import { streamDelivery } from "../../../sim/aws/gitlab-deliveries.ts";
import { captureLogs, lambdaContext, signedCommand } from "../../support/lambda.ts";
import { lambdaWorld } from "../../support/lambda-world.ts";
import { CHAT_POLICY, loopbackEndpoints, NO_ANSWER, within } from "../../support/stalling-aws.ts";

lambdaWorld({
  dynamo: true,
  lambdaApi: true,
  policy: `${CHAT_POLICY}n8n:
  workflows:
    keepActive: ["tag:production"]
`,
  env: () => ({ WARDEN_WORKER_FUNCTION: "warden-test-Worker", WARDEN_REPORT_ONLY: "false", N8N_URL: "http://127.0.0.1:9" }),
});

const endpoints = loopbackEndpoints();
/** Secrets Manager that reads the request and never answers. */
async function silentSecretsManager(): Promise<void> {
  vi.stubEnv("AWS_ENDPOINT_URL_SECRETS_MANAGER", await endpoints.silent());
}

async function endpoint(fn: "events" | "chatops"): Promise<(event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>> {
  vi.resetModules();
  const { handler } = fn === "events" ? await import("../../../functions/events.ts") : await import("../../../functions/chatops.ts");
  return handler as never;
}

const groupShare = { id: 4242, author_id: 5, entity_id: 77, entity_type: "Group", event_type: "group_share_with_group_link_created", created_at: new Date().toISOString(), details: { target_id: 9, target_type: "Group" } };

describe("review-deploy8: a Secrets Manager that takes the connection and never answers", () => {
  it("the Events function still answers GitLab within its 8 seconds (a 401, its own failure logged)", async () => {
    await silentSecretsManager();
    const handler = await endpoint("events");
    const answer = await within(8_000, handler(streamDelivery(groupShare), lambdaContext({ functionName: "warden-test-Events", remainingMs: 10_000 })));
    expect(answer, "no answer within GitLab's 8 s: the Secrets Manager client has no timeout").not.toBe(NO_ANSWER);
    expect(answer).toMatchObject({ statusCode: 401 });
  }, 20_000);

  it("chat-ops still answers Slack within its 3 seconds", async () => {
    await silentSecretsManager();
    const handler = await endpoint("chatops");
    const answer = await within(3_000, handler(signedCommand({ text: "enforce" }), lambdaContext({ functionName: "warden-test-Chatops", remainingMs: 10_000 })));
    expect(answer, "no answer within Slack's 3 s: the Secrets Manager client has no timeout").not.toBe(NO_ANSWER);
  }, 20_000);

  it("a scheduled Workflows run ends with its `job failed` line before Lambda's timeout, so the Failed alarm sees it", async () => {
    await silentSecretsManager();
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    vi.resetModules();
    const { handler } = await import("../../../functions/workflows.ts");
    // 15 s left: a run stops 10 s before its timeout, so it has 5 s for its work.
    const outcome = await within(14_000, (handler({ source: "schedule" } as never, lambdaContext({ functionName: "warden-test-Workflows", remainingMs: 15_000 })) as Promise<unknown>).catch((e: unknown) => e));
    const lines = logs.lines();
    logs.restore();
    expect(outcome, "the run waited on Secrets Manager until Lambda's timeout: no `job failed`, no RunFailed metric").not.toBe(NO_ANSWER);
    expect(lines).toContainEqual(expect.objectContaining({ level: "ERROR", message: "job failed" }));
  }, 25_000);
});
