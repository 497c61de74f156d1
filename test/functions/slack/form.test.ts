import middy from "@middy/core";
import httpErrorHandler from "@middy/http-error-handler";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { slackCommandForm, type SlackCommandEvent } from "../../../functions/shared/slack/form.ts";
import { functionUrlEvent, lambdaContext, slashCommandBody } from "../../support/lambda.ts";

const handler = middy<APIGatewayProxyEventV2>()
  .use(httpErrorHandler({ logger: false }))
  .use(slackCommandForm())
  .handler(async (event) => ({ statusCode: 200, body: JSON.stringify((event as unknown as SlackCommandEvent).body) }));
const call = (event: APIGatewayProxyEventV2) => handler(event, lambdaContext());

describe("slackCommandForm middleware", () => {
  it("parses the base64 form into event.body, keeping the fields Warden uses", async () => {
    const response = await call(functionUrlEvent(slashCommandBody({ text: "pipeline acme/x main A=b+c d" }), {}));
    expect(JSON.parse(response.body)).toEqual({
      command: "/warden",
      text: "pipeline acme/x main A=b+c d",
      user_id: "U012ABCDEF",
      user_name: "ada",
      channel_id: "C0123456",
      team_id: "T0001",
      response_url: "https://hooks.slack.com/commands/T0001/1234/abcd",
    });
  });

  it("answers 400 naming a missing field", async () => {
    const body = new URLSearchParams({ command: "/warden", text: "enforce", channel_id: "C1", response_url: "https://hooks.slack.com/x" }).toString();
    await expect(call(functionUrlEvent(body, {}))).resolves.toMatchObject({ statusCode: 400, body: "Bad Request: user_id: missing" });
  });

  it("answers 415 to a body that is not a form", async () => {
    await expect(call(functionUrlEvent("{}", { "content-type": "application/json" }))).resolves.toMatchObject({ statusCode: 415 });
  });
});
