import middy from "@middy/core";
import httpErrorHandler from "@middy/http-error-handler";
import httpHeaderNormalizer from "@middy/http-header-normalizer";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { describe, expect, it, vi } from "vitest";
import { verifySlackRequest } from "../../../functions/shared/slack/verify-request.ts";
import { functionUrlEvent, lambdaContext, signedCommand, slashCommandBody } from "../../support/lambda.ts";

const SECRET = "signing-secret-for-this-test";

function setup() {
  const reached = vi.fn(() => ({ statusCode: 200, body: "ok" }));
  const refused: string[] = [];
  const handler = middy<APIGatewayProxyEventV2>()
    .use(httpErrorHandler({ logger: false }))
    .use(httpHeaderNormalizer())
    .use(verifySlackRequest({ signingSecret: async () => SECRET, onRefused: (reason) => refused.push(reason) }))
    .handler(reached);
  return { call: (event: APIGatewayProxyEventV2) => handler(event, lambdaContext()), reached, refused };
}

describe("verifySlackRequest middleware", () => {
  it("lets a request Slack signed through to the handler", async () => {
    const { call, reached } = setup();
    await expect(call(signedCommand({ text: "enforce" }, { secret: SECRET }))).resolves.toMatchObject({ statusCode: 200 });
    expect(reached).toHaveBeenCalledOnce();
  });

  it.each([
    ["signed with another secret", () => signedCommand({ text: "enforce" }, { secret: "not-the-secret" }), /does not match/],
    ["replayed after six minutes", () => signedCommand({ text: "enforce" }, { secret: SECRET, ageSeconds: 360 }), /replayed/],
    ["unsigned", () => functionUrlEvent(slashCommandBody({ text: "enforce" }), {}), /unsigned/],
  ])("answers 401 to a request %s, without reaching the handler, and says why only to the log", async (_, event, reason) => {
    const { call, reached, refused } = setup();
    const response = await call(event());
    expect(response).toMatchObject({ statusCode: 401, body: "Unauthorized" });
    expect(reached).not.toHaveBeenCalled();
    expect(refused).toEqual([expect.stringMatching(reason)]);
  });

  it("answers 401 to a body changed after signing", async () => {
    const { call, reached } = setup();
    const event = signedCommand({ text: "enforce" }, { secret: SECRET });
    event.body = Buffer.from(slashCommandBody({ text: "enforce --apply" })).toString("base64");
    await expect(call(event)).resolves.toMatchObject({ statusCode: 401 });
    expect(reached).not.toHaveBeenCalled();
  });

  it("verifies a body that arrives as plain text as well as base64", async () => {
    const { call, reached } = setup();
    const event = signedCommand({ text: "enforce" }, { secret: SECRET });
    Object.assign(event, { body: Buffer.from(event.body!, "base64").toString("utf8"), isBase64Encoded: false });
    await expect(call(event)).resolves.toMatchObject({ statusCode: 200 });
    expect(reached).toHaveBeenCalledOnce();
  });
});
