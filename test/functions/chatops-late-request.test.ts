/**
 * A command Slack sent long before chat-ops took it (a slow cold start, or a signed request held back and
 * delivered later, within its 5-minute signature window): Slack, whose timestamp is in whole seconds, has
 * shown it as failed 4 s after that timestamp at the latest, and its user types it again. Received past that
 * (and the 0.5 s allowed for a Lambda clock ahead of Slack's), it starts nothing, however quick the claims
 * and the invoke would be: else the retyped command would be a second pipeline, or a second --apply.
 */
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { describe, expect, it, vi } from "vitest";
import { captureLogs, lambdaContext, signedCommand } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";
import { CHAT_POLICY } from "../support/stalling-aws.ts";

const world = lambdaWorld({
  dynamo: true,
  lambdaApi: true,
  policy: CHAT_POLICY,
  env: () => ({ WARDEN_WORKER_FUNCTION: "warden-test-Worker", WARDEN_REPORT_ONLY: "false", POWERTOOLS_LOG_LEVEL: "INFO" }),
});

async function received(ageSeconds: number): Promise<{ text: string; outcomes: unknown[] }> {
  vi.resetModules();
  const { handler } = await import("../../functions/chatops.ts");
  const event = signedCommand({ text: "pipeline acme/platform/api main --apply", user_id: "U012ABCDEF", channel_id: "C0123456" }, { ageSeconds });
  const logs = captureLogs();
  const answer = (await handler(event, lambdaContext({ functionName: "warden-test-Chatops" }))) as APIGatewayProxyStructuredResultV2;
  const lines = logs.lines();
  logs.restore();
  expect(answer.statusCode).toBe(200);
  return { text: (JSON.parse(String(answer.body)) as { text: string }).text, outcomes: lines.filter((l) => l["message"] === "chat-command").map((l) => l["outcome"]) };
}

describe("chat-ops and a command Slack sent long before the handler took it", () => {
  it.each([5, 30])("signed %i s before the handler takes it (Slack gave up after 3): nothing is started, and the log says it came too late", async (ageSeconds) => {
    const { text, outcomes } = await received(ageSeconds);
    expect(world.lambdaApi.invokes).toEqual([]);
    expect(text).toBe(":x: Warden could not start this command in time: it arrived after Slack stopped waiting for it; nothing was run. Run it again.");
    expect(outcomes).toEqual(["too late"]);
  });

  it("signed 3 s before (taken 3 to 4 s after: within Slack's 4 s and the clocks' 0.5 s) is not refused as too late", async () => {
    const { outcomes } = await received(3);
    expect(outcomes).not.toContain("too late");
  });
});
