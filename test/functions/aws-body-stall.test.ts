/**
 * The claims8 review: the AWS SDK clients' bounds (functions/shared/runs/start-worker.ts,
 * functions/shared/state/dynamo-client.ts, lib/aws/s3-objects.ts) are `requestTimeout` with
 * `throwOnRequestTimeout`. In the installed @smithy/node-http-handler (4.14) that timer runs only until
 * the response's headers arrive: `resolve()` clears it, and the body is then read with no bound at all
 * (no socketTimeout is set). An endpoint (or proxy) that sent the headers and then stalled held the
 * call for ever, whatever the comments and docs said. Each call now has a bound of its own in all, its
 * body included (dynamo-client.ts, start-worker.ts, lib/aws/s3-objects.ts).
 */
import { createServer } from "node:http";
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { describe, expect, it, vi } from "vitest";
import { lambdaContext, signedCommand } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";
import { CHAT_POLICY, loopbackEndpoints, NO_ANSWER, within } from "../support/stalling-aws.ts";

lambdaWorld({
  secret: "",
  dynamo: true,
  lambdaApi: true,
  policy: CHAT_POLICY,
  env: () => ({ WARDEN_WORKER_FUNCTION: "warden-test-Worker", WARDEN_REPORT_ONLY: "false" }),
});

const endpoints = loopbackEndpoints();
/** Answers each request with `status` and headers promising a body, then (for the first `stallFirst` requests) sends none; later ones get `body`. */
async function headersThenStall(status: number, contentType: string, body: string, stallFirst = Infinity): Promise<{ url: string; requests: () => number }> {
  let n = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      n++;
      if (n <= stallFirst) {
        res.writeHead(status, { "content-type": contentType, "content-length": "64", "x-amzn-requestid": crypto.randomUUID() });
        res.flushHeaders();
        return;
      }
      res.writeHead(200, { "content-type": contentType, "x-amzn-requestid": crypto.randomUUID() });
      res.end(body);
    });
  });
  return { url: await endpoints.listen(server), requests: () => n };
}

describe("an AWS endpoint that sends its headers and then stalls the body", () => {
  it("chat-ops: an Invoke API answering 202's headers and then nothing still gets Slack an answer within 3 seconds (the invoke's 2 s bound)", async () => {
    const lambda = await headersThenStall(202, "application/json", "");
    vi.stubEnv("AWS_ENDPOINT_URL_LAMBDA", lambda.url);
    vi.resetModules();
    const { handler } = await import("../../functions/chatops.ts");
    const answer = await within(3_000, handler(signedCommand({ text: "enforce" }), lambdaContext({ functionName: "warden-test-Chatops", remainingMs: 10_000 })) as Promise<APIGatewayProxyStructuredResultV2>);
    expect(lambda.requests(), "the invoke reached the Lambda API").toBe(1);
    expect(answer, "no answer within Slack's 3 seconds: requestTimeout ends with the headers, the body is waited on for ever").not.toBe(NO_ANSWER);
    expect(JSON.parse(String((answer as APIGatewayProxyStructuredResultV2).body))).toMatchObject({ text: expect.stringContaining("may or may not have started") });
  }, 20_000);

  it("the claims table: a call whose answer stalls after its headers is given up on within its 10 s (dynamo-client.ts: each call, its body included)", async () => {
    // The first GetItem's answer stalls after its headers; the SDK's next attempt gets an empty item.
    const dynamo = await headersThenStall(200, "application/x-amz-json-1.0", "{}", 1);
    vi.stubEnv("AWS_ENDPOINT_URL_DYNAMODB", dynamo.url);
    vi.resetModules();
    const { dynamoClaims } = await import("../../functions/shared/state/claims.ts");
    // No signal, as watch.ts's and the Enforce function's callers of the store pass none for some calls.
    const held = await within(15_000, dynamoClaims().holder("lease:watch").then((h) => ({ h }), (err: unknown) => ({ err: String(err) })));
    expect(dynamo.requests(), "the call reached the table").toBeGreaterThanOrEqual(1);
    expect(held, "still waiting 15 s on a DynamoDB answer whose body never came: the 10 s requestTimeout ended with the headers").not.toBe(NO_ANSWER);
  }, 20_000);
});
