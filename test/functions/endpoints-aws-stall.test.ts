/**
 * The public endpoints answer their callers in time whatever AWS does: GitLab waits 8 seconds for the
 * Events function, Slack 3 for chat-ops. An Invoke API or a claims table that takes the connection and
 * never answers (a network path gone quiet, a VPC without its endpoint) would otherwise hold the call
 * until Lambda ends the invocation: the caller gets no answer, and nobody is told. Here each is a
 * loopback server that reads the request and never answers.
 *
 * And whatever such an endpoint answers: a Lambda's role credentials are in its environment
 * (AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), the session token in a header of every AWS request. One
 * that quotes the request in its error (a proxy or VPC endpoint before the Invoke API) had the SDK's
 * message, and so the function's log line, carry them: whoever may read the logs, and not the secret,
 * could act as the role (and read the jobs' secret: the GitLab token) until they expire.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import { createServer } from "node:http";
import { describe, expect, it, vi } from "vitest";
import { streamDelivery } from "../../sim/aws/gitlab-deliveries.ts";
import { fragmentsOf } from "../support/fragments.ts";
import { captureLogs, lambdaContext, signedCommand } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";
import { CHAT_POLICY, loopbackEndpoints, NO_ANSWER, within } from "../support/stalling-aws.ts";

const world = lambdaWorld({
  secret: "",
  dynamo: true,
  lambdaApi: true,
  policy: CHAT_POLICY,
  env: () => ({ WARDEN_WORKER_FUNCTION: "warden-test-EventsWorker", WARDEN_REPORT_ONLY: "false" }),
});

const endpoints = loopbackEndpoints();
const silentEndpoint = () => endpoints.silent();

/** The handler's answer, or NO_ANSWER once the caller has stopped waiting. */
async function answerWithin(ms: number, fn: "events" | "chatops", event: APIGatewayProxyEventV2, context: Context): Promise<APIGatewayProxyStructuredResultV2 | typeof NO_ANSWER> {
  vi.resetModules();
  const { handler } = fn === "events" ? await import("../../functions/events.ts") : await import("../../functions/chatops.ts");
  return within(ms, handler(event, context) as Promise<APIGatewayProxyStructuredResultV2>);
}
const eventsContext = () => lambdaContext({ functionName: "warden-test-Events", remainingMs: 10_000 });

const groupShare = {
  id: 4242,
  author_id: 5,
  entity_id: 77,
  entity_type: "Group",
  event_type: "group_share_with_group_link_created",
  created_at: new Date(Date.now() - 60_000).toISOString(),
  details: { target_id: 9, target_type: "Group" },
};

describe("the Events function, when AWS stalls", () => {
  it("an Invoke API that never answers: it still answers GitLab within its 8 seconds, and logs the subject it could not start", async () => {
    vi.stubEnv("AWS_ENDPOINT_URL_LAMBDA", await silentEndpoint());
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const answer = await answerWithin(8_000, "events", streamDelivery(groupShare), eventsContext());
    const lines = logs.lines();
    logs.restore();
    expect(answer, "no answer within GitLab's 8 seconds: the Invoke call has no bound, Lambda's 10 s timeout ends the invocation").not.toBe(NO_ANSWER);
    expect(answer).toMatchObject({ statusCode: 200 });
    expect(JSON.parse(String((answer as APIGatewayProxyStructuredResultV2).body))).toMatchObject({ started: [], failed: ["group:77"] });
    expect(lines).toContainEqual(expect.objectContaining({ level: "ERROR", message: "starting the worker for a subject failed; the scheduled run will find its strays", subject: "group:77" }));
  }, 20_000);

  it("a claims table that takes the connection and never answers: it still answers GitLab within its 8 seconds, and starts the subject (a claim cut off is taken as new)", async () => {
    vi.stubEnv("AWS_ENDPOINT_URL_DYNAMODB", await silentEndpoint());
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const answer = await answerWithin(8_000, "events", streamDelivery({ ...groupShare, id: 4243 }), eventsContext());
    const lines = logs.lines();
    logs.restore();
    expect(answer, "no answer within GitLab's 8 seconds: the claims table's calls are bounded only past the invocation's own timeout").not.toBe(NO_ANSWER);
    expect(answer).toMatchObject({ statusCode: 200 });
    // A claim cut off is taken as new.
    expect(JSON.parse(String((answer as APIGatewayProxyStructuredResultV2).body))).toMatchObject({ started: ["group:77"], failed: [] });
    expect(lines).toContainEqual(expect.objectContaining({ level: "WARN", message: "the claims table could not be reached: the event is handled as new", error: expect.stringMatching(/^cut off 6 s into the delivery/) }));
  }, 20_000);

  it("an Invoke API that never answers, for more subjects than the invokes' own bound leaves time for: the invokes are cut too, each subject logged as not started", async () => {
    vi.stubEnv("AWS_ENDPOINT_URL_LAMBDA", await silentEndpoint());
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    // Ten invokes at a time, 2 s each: the fourth ten are cut, the fifth never sent.
    const shares = Array.from({ length: 50 }, (_, i) => ({ ...groupShare, id: 5000 + i, entity_id: 100 + i }));
    const answer = await answerWithin(8_000, "events", streamDelivery(shares), eventsContext());
    const lines = logs.lines();
    logs.restore();
    expect(answer, "no answer within GitLab's 8 seconds").not.toBe(NO_ANSWER);
    expect(JSON.parse(String((answer as APIGatewayProxyStructuredResultV2).body))).toMatchObject({ events: 50, started: [], failed: expect.arrayContaining(shares.map((s) => `group:${s.entity_id}`)) });
    expect(lines.filter((l) => l["level"] === "ERROR" && l["message"] === "starting the worker for a subject failed; the scheduled run will find its strays")).toHaveLength(50);
  }, 20_000);
});

describe("chat-ops, when the Invoke API never answers", () => {
  it("still answers within Slack's 3 seconds, telling the user the start is uncertain", async () => {
    vi.stubEnv("AWS_ENDPOINT_URL_LAMBDA", await silentEndpoint());
    const answer = await answerWithin(3_000, "chatops", signedCommand({ text: "enforce" }), lambdaContext({ functionName: "warden-test-Chatops" }));
    expect(answer, "no answer within Slack's 3 seconds").not.toBe(NO_ANSWER);
    expect(JSON.parse(String((answer as APIGatewayProxyStructuredResultV2).body))).toMatchObject({ text: expect.stringContaining("Warden may or may not have started `enforce`") });
  }, 20_000);
});

describe("the Events function, when an AWS endpoint quotes the function's credentials back", () => {
  const SESSION_TOKEN = `IQoJb3JpZ2luX2VjEHoaCWV1LXdlc3QtMSJHMEUCIQD7${"sEssIonToKen0xKq9vLmN8pR2wZ".repeat(12)}`;
  const SECRET_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8sK2mVb3";

  it("an Invoke API that refuses quoting the request's session token and the secret key: the log line names the refusal, and neither credential, whole or in part", async () => {
    vi.stubEnv("AWS_SESSION_TOKEN", SESSION_TOKEN);
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", SECRET_KEY);
    const seen: string[] = [];
    const quoting = createServer((req, res) => {
      seen.push(String(req.headers["x-amz-security-token"]));
      const quoted = `token ${String(req.headers["x-amz-security-token"])}, key ${SECRET_KEY}`;
      res.writeHead(403, { "content-type": "application/json", "x-amzn-errortype": "AccessDeniedException" }).end(JSON.stringify({ message: `denied for ${quoted}` }));
    });
    vi.stubEnv("AWS_ENDPOINT_URL_LAMBDA", await endpoints.listen(quoting));
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    await answerWithin(8_000, "events", streamDelivery(groupShare), eventsContext());
    const text = logs.lines().map((l) => JSON.stringify(l)).join("\n");
    logs.restore();

    expect(seen[0], "the SDK sent the session token").toBe(SESSION_TOKEN);
    expect(text, "the refusal is logged").toContain("denied for token [REDACTED], key [REDACTED]");
    for (const piece of [...fragmentsOf(SESSION_TOKEN), ...fragmentsOf(SECRET_KEY)]) expect(text).not.toContain(piece);
  }, 20_000);
});
