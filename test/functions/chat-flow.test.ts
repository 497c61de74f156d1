/**
 * The whole chat-ops path: Slack's signed command to chat-ops, chat-ops' asynchronous invoke of the
 * worker (its payload taken from the mocked Lambda API and handed to the worker, as AWS would), the
 * job against the GitLab simulator, and the result on the loopback response_url. Run with every log
 * line on, to show what Warden never writes anywhere: a credential, the response_url, a variable's value.
 */
import { InvokeCommand, LambdaClient } from "@aws-sdk/client-lambda";
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { standardPolicy } from "../support/policies.ts";
import { scriptedServer, type ScriptedServer } from "../support/server.ts";
import { captureLogs, lambdaContext, SECRETS, signedCommand } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";

const POLICY = `${standardPolicy()}
pipelines:
  allow:
    - project: "acme/platform/**"
      refs: ["main"]
      variables: ["DEPLOY_TOKEN"]
chatops:
  slack:
    users: ["U012ABCDEF"]
`;
const VARIABLE_VALUE = "variable-value-4711";

const lambda = mockClient(LambdaClient);
let slack: ScriptedServer;
// One GitLab for the file: the handlers are loaded once, by the first chat.
let gitlab: GitLabSim;
lambdaWorld({
  dynamo: true,
  policy: POLICY,
  env: () => ({
    GITLAB_URL: gitlab.url,
    WARDEN_WORKER_FUNCTION: "warden-test-Worker",
    WARDEN_SLACK_RESPONSE_ORIGIN: slack.origin,
    WARDEN_REPORT_ONLY: "false",
    POWERTOOLS_LOG_LEVEL: "DEBUG",
    // Asks Powertools to log every event; Warden overrides it, as its events carry a response_url.
    POWERTOOLS_LOGGER_LOG_EVENT: "true",
  }),
});

beforeAll(async () => {
  slack = await scriptedServer((_req, res) => res.end("ok"));
  gitlab = await startGitLabSim({ dataset: generateOrganisation({ projects: 120, seed: 7 }).dataset });
  lambda.on(InvokeCommand).resolves({ StatusCode: 202 });
});
afterAll(() => Promise.all([slack.close(), gitlab.close()]));

async function chat(text: string): Promise<{ ack: string; posted: string[] }> {
  const { handler: chatops } = await import("../../functions/chatops.ts");
  const { handler: worker } = await import("../../functions/worker.ts");
  lambda.resetHistory();
  slack.received.length = 0;
  const responseUrl = `${slack.origin}/commands/T0001/777/${crypto.randomUUID()}`;
  const ack = (await chatops(signedCommand({ text, response_url: responseUrl }), lambdaContext())) as APIGatewayProxyStructuredResultV2;
  for (const call of lambda.commandCalls(InvokeCommand)) {
    await worker(JSON.parse(Buffer.from(call.args[0].input.Payload as Uint8Array).toString()), lambdaContext());
  }
  expect(slack.received.every((r) => r.url === new URL(responseUrl).pathname)).toBe(true);
  return { ack: String(ack.body), posted: slack.received.map((r) => r.body) };
}

describe("a chat command, end to end", () => {
  it("a dry run: acknowledged, run by the worker, the report posted to the response_url", async () => {
    // Held back from the runner's output (every line is on), and checked for credentials.
    const logs = captureLogs();
    const { ack, posted } = await chat("enforce").finally(() => logs.restore());
    expect(JSON.parse(ack)).toMatchObject({ response_type: "ephemeral", text: expect.stringMatching(/Running `enforce` \(dry run\)/) });
    expect(posted).toHaveLength(1);
    expect(JSON.parse(posted[0]!)).toMatchObject({ response_type: "ephemeral", blocks: expect.arrayContaining([expect.objectContaining({ type: "header" })]) });
  });

  it("writes no credential, response_url or variable value to the logs, the acknowledgement or Slack", async () => {
    const logs = captureLogs();
    const platform = gitlab.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/platform/"))!;
    const runs = [
      await chat("enforce --apply"),
      await chat(`pipeline ${platform.path_with_namespace} main DEPLOY_TOKEN=${VARIABLE_VALUE} --apply`),
      await chat("workflows"), // N8N_URL is not set: a failure, posted
    ];
    const lines = logs.lines();
    logs.restore();
    expect(gitlab.pipelines).toEqual([expect.objectContaining({ variables: [{ key: "DEPLOY_TOKEN", value: VARIABLE_VALUE }] })]);
    expect(JSON.parse(runs[2]!.posted[0]!).text).toMatch(/N8N_URL is not set/);

    expect(lines.filter((l) => l.message === "remove-share").length).toBeGreaterThan(0);
    expect(lines.some((l) => l.message === "create-pipeline")).toBe(true);
    const everything = [JSON.stringify(lines), ...runs.flatMap((r) => [r.ack, ...r.posted])].join("\n");
    for (const secret of [...Object.values(SECRETS), VARIABLE_VALUE, "/commands/T0001/777/", "x-slack-signature"]) {
      expect(everything.toLowerCase()).not.toContain(secret.toLowerCase());
    }
  });
});
