/**
 * Chat-ops' invoke of the worker through the real SDK client, against a loopback stand-in for Lambda's
 * Invoke API (AWS_ENDPOINT_URL_LAMBDA), not aws-sdk-client-mock: what is tested is the client's own
 * retry behaviour. An asynchronous invoke whose answer is lost may have been queued, so it must be sent
 * exactly once, and the user told the start is uncertain, not that nothing ran.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { describe, expect, it, vi } from "vitest";
import type { WorkerEvent } from "../../functions/shared/runs/job-request.ts";
import { standardPolicy } from "../support/policies.ts";
import { captureLogs, lambdaContext, signedCommand, type InvokeAnswer } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";

const USER = "U012ABCDEF";
const CHANNEL = "C0123456";
const WORKER = "warden-test-Worker";
const POLICY = `${standardPolicy()}
chatops:
  slack:
    users: ["${USER}"]
    channels: ["${CHANNEL}"]
`;

const world = lambdaWorld({ dynamo: true, lambdaApi: true, policy: POLICY, env: () => ({ WARDEN_WORKER_FUNCTION: WORKER, WARDEN_REPORT_ONLY: "false" }) });

async function acknowledge(answer: InvokeAnswer, event: APIGatewayProxyEventV2 = signedCommand({ text: "enforce" })): Promise<string> {
  world.lambdaApi.answer = answer;
  vi.resetModules();
  const { handler } = await import("../../functions/chatops.ts");
  const response = (await handler(event, lambdaContext({ functionName: "warden-test-Chatops" }))) as APIGatewayProxyStructuredResultV2;
  expect(response.statusCode).toBe(200);
  const body = JSON.parse(String(response.body)) as { response_type: string; text: string };
  expect(body.response_type).toBe("ephemeral");
  return body.text;
}

const UNCERTAIN =
  ":warning: Warden may or may not have started `enforce`: Lambda's answer to the request was lost. " +
  "If it did start, the result will be posted here: check the channel before running the command again.";

describe("chat-ops' invoke of the worker", () => {
  it("sends one asynchronous invoke through the endpoint, and acknowledges it (the stand-in is really used)", async () => {
    expect(await acknowledge("accept")).toBe(":hourglass_flowing_sand: Running `enforce` (dry run); the result will be posted here.");
    expect(world.lambdaApi.invokes).toHaveLength(1);
    const [invoke] = world.lambdaApi.invokes;
    expect(invoke).toMatchObject({ functionName: WORKER, invocationType: "Event" });
    const payload = JSON.parse(invoke!.payload) as WorkerEvent;
    expect(payload.command).toEqual({ job: "enforce", apply: false });
    // Slack's time of the command, for the worker to run none that waited too long in its queue.
    expect(Math.abs(payload.sentAt! - Date.now() / 1000)).toBeLessThan(5);
  });

  it.each([
    ["the socket is reset after the request arrived", "reset"],
    ["Lambda answers 500 after the request arrived", "server-error"],
  ] as const)("when %s: exactly one invoke, and the user is told the start is uncertain", async (_, answer) => {
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    // A command that changes things: where a second worker would do harm.
    const text = await acknowledge(answer, signedCommand({ text: "enforce --apply" }));
    // The SDK's default (3 attempts) would have sent it three times: three workers, if AWS queued each.
    expect(world.lambdaApi.invokes).toHaveLength(1);
    expect(text).toBe(UNCERTAIN.replace("`enforce`", "`enforce --apply`"));
    expect(text).not.toMatch(/nothing was run/);
    expect(logs.lines()).toContainEqual(expect.objectContaining({ level: "ERROR", message: "starting the worker may have failed", command: "enforce --apply" }));
    logs.restore();
  });

  it("when Lambda refuses the invoke (429), says nothing was run, without retrying", async () => {
    expect(await acknowledge("throttle")).toBe(":x: Warden could not start `enforce`; nothing was run.");
    expect(world.lambdaApi.invokes).toHaveLength(1);
  });
});
