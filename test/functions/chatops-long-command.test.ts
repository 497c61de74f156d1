/**
 * The bound on a chat command's form (functions/shared/slack/form.ts MAX_FORM_BYTES) against Slack's longest
 * legitimate command. A pipeline variable's value is one word of any characters, and a form percent-encodes
 * each character of CJK text in 9 bytes: a 2,000-character Japanese value, well within what Slack's composer
 * takes, is an 18 KB form, which a 16 KiB bound once answered 413 (Slack's generic failure for the user,
 * nothing for the operator). A signed command of Slack's most, 40,000 characters, is taken too.
 */
import { InvokeCommand, LambdaClient } from "@aws-sdk/client-lambda";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { parseCommand } from "../../functions/shared/slack/command.ts";
import { MAX_FORM_BYTES } from "../../functions/shared/slack/form.ts";
import { CHAT, CHAT_PIPELINE_POLICY } from "../support/policies.ts";
import { coldChatops } from "../support/chatops.ts";
import { signedCommand } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";

const lambda = mockClient(LambdaClient);
lambdaWorld({ dynamo: true, policy: CHAT_PIPELINE_POLICY, env: () => ({ WARDEN_WORKER_FUNCTION: "warden-test-Worker", GITLAB_URL: "http://127.0.0.1:9", WARDEN_REPORT_ONLY: "false" }) });
beforeEach(() => {
  lambda.reset();
  lambda.on(InvokeCommand).resolves({ StatusCode: 202 });
});

const bytes = (event: APIGatewayProxyEventV2) => Buffer.from(event.body!, event.isBase64Encoded ? "base64" : "utf8").length;

describe("chat-ops: a long signed command", () => {
  it.each([
    ["a pipeline variable of 2,000 Japanese characters", `pipeline acme/platform/api main DEPLOY_ENV=${"本番環境".repeat(500)} --apply`],
    ["Slack's most, 40,000 characters", `pipeline acme/platform/api main NOTE=${"本".repeat(40_000 - 40)}`],
  ])("%s is taken and handed to the worker, not refused for its size", async (_what, text) => {
    // Warden's own parser takes it: a command the user may well send.
    expect(parseCommand(text).kind).toBe("job");
    const event = signedCommand({ text, user_id: CHAT.applier });
    expect(bytes(event)).toBeGreaterThan(16 * 1024);
    expect(bytes(event)).toBeLessThanOrEqual(MAX_FORM_BYTES);
    const response = await (await coldChatops("req-long"))(event);
    expect(response.statusCode, String(response.body)).toBe(200);
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(1);
  });
});
