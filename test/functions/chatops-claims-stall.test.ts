/**
 * Chat-ops' claims-table calls (the replay claim, the rate slots) and its invoke share one deadline, 2.5 s
 * from when the request is taken or 2.8 s from Slack's time of it (whole seconds), within Slack's 3: a claims table that stalls (a network path gone quiet)
 * or answers slowly (throttled, distant) gets an answer to Slack in time, and a command Slack has already
 * shown as failed (the user then types it again) is never started behind their back. A claim cut off
 * starts nothing: the replay claim cannot tell a first request from a replay, the rate slot cannot count.
 */
import { createServer, request as httpRequest } from "node:http";
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { describe, expect, it, vi } from "vitest";
import { captureLogs, lambdaContext, signedCommand } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";
import { CHAT_POLICY, loopbackEndpoints, NO_ANSWER, within } from "../support/stalling-aws.ts";
import { NOT_CHECKED } from "../../functions/shared/slack/once.ts";

const USER = "U012ABCDEF";
const CHANNEL = "C0123456";
const world = lambdaWorld({
  dynamo: true,
  lambdaApi: true,
  policy: CHAT_POLICY,
  env: () => ({ WARDEN_WORKER_FUNCTION: "warden-test-Worker", WARDEN_REPORT_ONLY: "false" }),
});

const { listen, silent } = loopbackEndpoints();

/** DynamoDB that answers every call, correctly, but `delayMs` late (a throttled or distant table). */
function slowDynamo(delayMs: number): Promise<string> {
  const target = new URL(world.dynamo.url);
  return listen(
    createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        setTimeout(() => {
          const out = httpRequest({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
            res.writeHead(answer.statusCode ?? 500, answer.headers);
            answer.pipe(res);
          });
          out.end(Buffer.concat(chunks));
        }, delayMs);
      });
    }),
  );
}

async function chatopsAnswer(ms: number, text: string, ageSeconds = 0): Promise<{ answer: APIGatewayProxyStructuredResultV2 | typeof NO_ANSWER; elapsed: number; done: Promise<unknown> }> {
  vi.resetModules();
  const { handler } = await import("../../functions/chatops.ts");
  const started = Date.now();
  const done = (handler(signedCommand({ text, user_id: USER, channel_id: CHANNEL }, { ageSeconds }), lambdaContext({ functionName: "warden-test-Chatops" })) as Promise<APIGatewayProxyStructuredResultV2>).then((a) => {
    return { a, at: Date.now() - started };
  });
  const answer = await within(ms, done.then(({ a }) => a));
  return { answer, elapsed: Date.now() - started, done };
}

describe("chat-ops, when the claims table stalls", () => {
  it("a claims table that takes the connection and never answers: it still answers Slack within its 3 seconds", async () => {
    vi.stubEnv("AWS_ENDPOINT_URL_DYNAMODB", await silent());
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const { answer } = await chatopsAnswer(3_000, "enforce");
    const lines = logs.lines();
    logs.restore();
    expect(answer, "no answer within Slack's 3 seconds: the claim waits on the DynamoDB client's 10 s request timeout (and its retries), past Lambda's own 10 s").not.toBe(NO_ANSWER);
    expect(world.lambdaApi.invokes).toEqual([]);
    expect(JSON.parse(String((answer as APIGatewayProxyStructuredResultV2).body))).toMatchObject({ text: NOT_CHECKED });
    expect(lines).toContainEqual(expect.objectContaining({ level: "WARN", message: "chat-command", outcome: "not run", reason: "the claims table did not answer in time" }));
  }, 20_000);

  it("a slow claims table (each call 1.6 s): a command Slack has already given up on (the user shown a timeout) is not started behind their back", async () => {
    vi.stubEnv("AWS_ENDPOINT_URL_DYNAMODB", await slowDynamo(1_600));
    const { done } = await chatopsAnswer(3_000, "pipeline acme/platform/api main --apply");
    const { a, at } = (await done) as { a: APIGatewayProxyStructuredResultV2; at: number };
    // Started after Slack stopped waiting: the user saw "/warden failed with the error operation_timeout" and will type it again.
    if (world.lambdaApi.invokes.length > 0) expect(at, "the worker was started, but the acknowledgement came after Slack's 3 seconds").toBeLessThan(3_000);
    // The replay claim answered (1.6 s); the rate slot was cut off at the deadline: nothing started, and the user is told so in time.
    expect(world.lambdaApi.invokes).toEqual([]);
    expect(at).toBeLessThan(3_000);
    expect(JSON.parse(String(a.body))).toMatchObject({ text: expect.stringContaining("could not count this minute's commands, so it did not run `pipeline acme/platform/api main --apply`") });
  }, 30_000);

  it("a request Slack sent 2 s before the handler took it (a cold start's init): its 3 s run from Slack's time, so a command the claims take 1.2 s to count is not started after Slack gave up", async () => {
    vi.stubEnv("AWS_ENDPOINT_URL_DYNAMODB", await slowDynamo(600));
    const { done } = await chatopsAnswer(3_000, "pipeline acme/platform/api main --apply", 2);
    const { a } = (await done) as { a: APIGatewayProxyStructuredResultV2 };
    expect(world.lambdaApi.invokes).toEqual([]);
    expect(JSON.parse(String(a.body))).toMatchObject({ text: expect.stringMatching(/did not run|nothing was run/) });
  }, 30_000);
});
