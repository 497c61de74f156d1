/**
 * The chat-ops replay middlewares in a middy stack built here as chat-ops builds its own (error
 * handler, header normaliser, ssl_check, signature check, once), whose handler invokes the worker
 * through the real Lambda client against a loopback stand-in, with claims in dynalite.
 */
import { InvokeCommand, LambdaClient } from "@aws-sdk/client-lambda";
import middy from "@middy/core";
import httpErrorHandler from "@middy/http-error-handler";
import httpHeaderNormalizer from "@middy/http-header-normalizer";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { dynamoClaims } from "../../../functions/shared/state/claims.ts";
import { ALREADY_RECEIVED, NOT_CHECKED, slackRequestOnce, slackSslCheck } from "../../../functions/shared/slack/once.ts";
import { verifySlackRequest } from "../../../functions/shared/slack/verify-request.ts";
import { MAX_FORM_BYTES } from "../../../functions/shared/slack/form.ts";
import { functionUrlEvent, lambdaContext, SECRETS, signedCommand, slashCommandBody } from "../../support/lambda.ts";
import { lambdaWorld } from "../../support/lambda-world.ts";

type Result = APIGatewayProxyStructuredResultV2;

// The way the deployed function finds both: endpoints and table name from its environment.
const world = lambdaWorld({ dynamo: true, lambdaApi: true });
const skipped: string[] = [];
beforeEach(() => {
  skipped.length = 0;
});

/** One container's handler: its own clients, as a cold start would have. */
function container() {
  const lambda = new LambdaClient({ maxAttempts: 1 });
  const handler = middy<APIGatewayProxyEventV2, Result>()
    .use(httpErrorHandler({ fallbackMessage: "Internal Server Error", logger: false }))
    .use(httpHeaderNormalizer())
    .use(slackSslCheck())
    .use(verifySlackRequest({ signingSecret: async () => SECRETS.slackSigningSecret }))
    .use(slackRequestOnce({ claims: dynamoClaims(), onSkipped: (reason) => skipped.push(reason) }))
    .handler(async () => {
      await lambda.send(new InvokeCommand({ FunctionName: "warden-test-Worker", InvocationType: "Event", Payload: Buffer.from("{}") }));
      return { statusCode: 200, body: "started" };
    });
  return (event: APIGatewayProxyEventV2) => handler(event, lambdaContext()) as Promise<Result>;
}

const text = (result: Result) => (JSON.parse(String(result.body)) as { text: string }).text;

describe("slackSslCheck", () => {
  it("answers Slack's unsigned ssl_check with 200 and an empty body, and runs nothing", async () => {
    const result = await container()(functionUrlEvent("ssl_check=1&token=deprecated-verification-token", {}));
    expect(result).toEqual({ statusCode: 200, body: "" });
    expect(world.lambdaApi.invokes).toHaveLength(0);
  });

  it("still refuses (401) any other unsigned request, an ssl_check that carries a command included", async () => {
    const handle = container();
    for (const body of [slashCommandBody({ text: "enforce --apply" }), `ssl_check=1&${slashCommandBody({ text: "enforce --apply" })}`, "ssl_check=0", ""]) {
      expect((await handle(functionUrlEvent(body, {}))).statusCode, body).toBe(401);
    }
    expect(world.lambdaApi.invokes).toHaveLength(0);
  });

  it("looks only at a body within a form's bound: a longer one is no ssl_check, and goes on to the signature check", async () => {
    const handle = container();
    const sslCheck = (bytes: number) => `ssl_check=1&token=x&pad=${"a".repeat(bytes - 24)}`;
    expect(await handle(functionUrlEvent(sslCheck(MAX_FORM_BYTES), {}))).toEqual({ statusCode: 200, body: "" });
    expect((await handle(functionUrlEvent(sslCheck(MAX_FORM_BYTES + 1), {}))).statusCode).toBe(401);
  });
});

describe("slackRequestOnce", () => {
  it("runs a signed request once: the same request again is acknowledged (200) without a second worker invoke", async () => {
    const handle = container();
    const request = signedCommand({ text: "enforce --apply" });
    const first = await handle(structuredClone(request));
    const replay = await handle(structuredClone(request));
    expect(first).toMatchObject({ statusCode: 200, body: "started" });
    expect(replay.statusCode).toBe(200);
    expect(text(replay)).toBe(ALREADY_RECEIVED);
    expect(world.lambdaApi.invokes).toHaveLength(1);
    expect(skipped).toEqual(["a repeat of a request already received"]);
  });

  it("runs two copies arriving at once in two containers once, and acknowledges both", async () => {
    const request = signedCommand({ text: "pipeline group/app main" });
    const results = await Promise.all([container()(structuredClone(request)), container()(structuredClone(request))]);
    expect(results.map((r) => r.statusCode)).toEqual([200, 200]);
    expect(results.filter((r) => r.body === "started")).toHaveLength(1);
    expect(results.filter((r) => r.body !== "started").map(text)).toEqual([ALREADY_RECEIVED]);
    expect(world.lambdaApi.invokes).toHaveLength(1);
  });

  it("runs two different commands sent in the same second", async () => {
    const handle = container();
    await handle(signedCommand({ text: "enforce" }));
    await handle(signedCommand({ text: "workflows" }));
    expect(world.lambdaApi.invokes).toHaveLength(2);
  });

  it("acknowledges a request Slack marks as a retry without running it, but only once it is signed", async () => {
    const handle = container();
    const retry = signedCommand({ text: "enforce --apply" });
    retry.headers["X-Slack-Retry-Num"] = "1";
    retry.headers["X-Slack-Retry-Reason"] = "http_timeout";
    const result = await handle(retry);
    expect(result.statusCode).toBe(200);
    expect(text(result)).toBe(ALREADY_RECEIVED);
    expect(skipped).toEqual(["a Slack retry"]);
    const body = slashCommandBody({ text: "enforce --apply" });
    expect((await handle(functionUrlEvent(body, { "X-Slack-Retry-Num": "1" }))).statusCode).toBe(401);
    expect(world.lambdaApi.invokes).toHaveLength(0);
  });

  it("runs nothing, and says so (200), when the claims table cannot be reached", async () => {
    vi.stubEnv("WARDEN_CLAIMS_TABLE", "no-such-table");
    const result = await container()(signedCommand({ text: "enforce --apply" }));
    expect(result.statusCode).toBe(200);
    expect(text(result)).toBe(NOT_CHECKED);
    expect(skipped).toEqual(["the claims table could not be reached"]);
    expect(world.lambdaApi.invokes).toHaveLength(0);
  });
});
