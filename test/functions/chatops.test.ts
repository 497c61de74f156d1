import { InvokeCommand, LambdaClient, TooManyRequestsException } from "@aws-sdk/client-lambda";
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { WorkerEvent } from "../../functions/shared/runs/job-request.ts";
import { NOT_CHECKED } from "../../functions/shared/slack/once.ts";
import { MAX_FORM_BYTES } from "../../functions/shared/slack/form.ts";
import { startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { standardPolicy } from "../support/policies.ts";
import { captureLogs, ENDPOINT_SECRET_ARN, ENDPOINT_SECRETS, functionUrlEvent, type SlashCommand, SECRET_ARN, SECRETS, signedCommand, slashCommandBody } from "../support/lambda.ts";
import { coldChatops } from "../support/chatops.ts";
import { fragmentsOf } from "../support/fragments.ts";
import { lambdaWorld } from "../support/lambda-world.ts";

const APPLIER = "U012ABCDEF";
const VIEWER = "U034GHIJKL";
const CHANNEL = "C0123456";
const POLICY = `${standardPolicy()}
chatops:
  slack:
    users: ["${APPLIER}", "${VIEWER}"]
    channels: ["${CHANNEL}"]
    applyUsers: ["${APPLIER}"]
`;
const WORKER = "warden-test-Worker";

const lambda = mockClient(LambdaClient);
let gitlab: GitLabSim;
// As sst.config.ts sets it on a stage that may apply (unset would be report-only); and, with a table of
// claims of its own for each test, a command signed in one test is new to the next.
const world = lambdaWorld({ dynamo: true, policy: POLICY, env: () => ({ WARDEN_WORKER_FUNCTION: WORKER, GITLAB_URL: gitlab.url, WARDEN_REPORT_ONLY: "false" }) });

beforeAll(async () => {
  // Slow on purpose: an acknowledgement that waited on GitLab would miss Slack's 3 seconds.
  gitlab = await startGitLabSim({ latencyMs: 5_000 });
});
afterAll(() => gitlab.close());
beforeEach(() => {
  lambda.reset();
  lambda.on(InvokeCommand).resolves({ StatusCode: 202 });
});

/** A cold container: fresh module state, the secret and policy read at init. */
const coldHandler = () => coldChatops();

const invocations = () => lambda.commandCalls(InvokeCommand).map((call) => call.args[0].input);
const slackText = (response: APIGatewayProxyStructuredResultV2) => {
  const body = JSON.parse(String(response.body)) as { response_type: string; text: string };
  expect(body.response_type).toBe("ephemeral");
  return body.text;
};

describe("chat-ops Lambda", () => {
  it("quotes no word of a bad command back, so not even a whole secret pasted into it", async () => {
    const handler = await coldHandler();
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const response = await handler(signedCommand({ text: `${SECRETS.slackSigningSecret} help` }));
    const lines = JSON.stringify(logs.lines());
    logs.restore();
    expect(slackText(response)).toMatch(/^unknown command: the first word is one of enforce, workflows, pipeline, exempt and help\n/);
    for (const secret of Object.values(SECRETS)) {
      for (const piece of fragmentsOf(secret)) expect(String(response.body) + lines).not.toContain(piece);
    }
    expect(invocations()).toEqual([]);
  });

  // Issue 28: a reply that quoted the words, masked where they are part of a secret, told any user on the
  // list the GitLab token one character a command. Every word here is a piece of a secret, or not.
  it("answers a command of pieces of a secret exactly as one of pieces of nothing, quoting neither", async () => {
    const handler = await coldHandler();
    const probes: [string, string][] = [
      ["lpat-s", "lpat-t"],
      ["sim-admin", "sim-admix"],
      ["key-zq81x", "key-zq81y"],
      ["SIGNING-SECRET-8F14E45", "SIGNING-SECRET-8F14E46"],
    ];
    const commands = (word: string) => [word, `enforce ${word}`, `enforce --${word}`, `workflows ${word} ${word}`, `pipeline acme/x main ${word}`, `pipeline acme/x main X=1 --${word}`, `pipeline acme/x ${word}..${word}`,
      `exempt ${word}`, `exempt acme/x ${word}* reason r`, `exempt acme/x g until ${word} reason r`, `exempt acme/x g ${word} reason r`, `exempt acme/x g reason ${word}`];
    for (const [inside, outside] of probes) {
      expect(Object.values(SECRETS).some((s) => s.includes(inside)) && !Object.values(SECRETS).some((s) => s.includes(outside))).toBe(true);
      for (const [a, b] of commands(inside).map((text, i) => [text, commands(outside)[i]!])) {
        const [replyA, replyB] = [slackText(await handler(signedCommand({ text: a! }))), slackText(await handler(signedCommand({ text: b! })))];
        expect(replyA).toBe(replyB);
        expect(replyA).not.toContain(inside);
        expect(replyA).not.toContain("[REDACTED]");
      }
    }
    expect(invocations()).toEqual([]);
  });

  it("acknowledges a signed command at once, with one asynchronous invoke of the worker and no GitLab call", async () => {
    const handler = await coldHandler();
    const started = Date.now();
    const response = await handler(signedCommand({ text: "enforce --apply" }));
    expect(Date.now() - started).toBeLessThan(2_000);

    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject({ "content-type": "application/json" });
    expect(slackText(response)).toBe(":hourglass_flowing_sand: Running `enforce --apply`; the result will be posted here.");
    expect(gitlab.counters.requests).toBe(0);

    expect(invocations()).toHaveLength(1);
    const [invoke] = invocations();
    expect(invoke).toMatchObject({ FunctionName: WORKER, InvocationType: "Event" });
    expect(JSON.parse(Buffer.from(invoke!.Payload as Uint8Array).toString())).toEqual({
      command: { job: "enforce", apply: true },
      responseUrl: "https://hooks.slack.com/commands/T0001/1234/abcd",
      user: { id: APPLIER, name: "ada" },
      channelId: CHANNEL,
      correlationId: "req-chatops-1",
      sentAt: expect.closeTo(Date.now() / 1000, -1) as number,
    } satisfies WorkerEvent);
  });

  it("says a dry run is one, a pipeline's too, and passes a pipeline's variables and --apply to the worker", async () => {
    const handler = await coldHandler();
    expect(slackText(await handler(signedCommand({ text: "workflows", user_id: VIEWER })))).toMatch(/Running `workflows` \(dry run\)/);
    expect(slackText(await handler(signedCommand({ text: "pipeline acme/platform/api main DEPLOY_ENV=staging" })))).toMatch(/Running `pipeline acme\/platform\/api main DEPLOY_ENV=…` \(dry run\);/);
    const response = await handler(signedCommand({ text: "pipeline acme/platform/api main DEPLOY_ENV=staging --apply" }));
    expect(slackText(response)).toMatch(/Running `pipeline acme\/platform\/api main DEPLOY_ENV=… --apply`;/);
    const [, dry, applying] = invocations().map((i) => (JSON.parse(Buffer.from(i.Payload as Uint8Array).toString()) as WorkerEvent).command);
    expect(dry).toEqual({ job: "pipeline", project: "acme/platform/api", ref: "main", variables: [{ key: "DEPLOY_ENV", value: "staging" }], apply: false });
    expect(applying).toEqual({ ...dry, apply: true });
  });

  it("quotes the command's ref as text: a <!channel> or a mention typed in it, or a backtick, is not Slack markup", async () => {
    const handler = await coldHandler();
    // As Slack sends what the user typed: pipeline acme/platform/api main`<!channel>`<@U0OTHER> (git allows each of these in a ref).
    const text = slackText(await handler(signedCommand({ text: "pipeline acme/platform/api main`&lt;!channel&gt;`&lt;@U0OTHER&gt;" })));
    expect(text).toBe(":hourglass_flowing_sand: Running `pipeline acme/platform/api main\uff40&lt;!channel&gt;\uff40&lt;@U0OTHER&gt;` (dry run); the result will be posted here.");
  });

  it.each([
    ["signed with another secret", () => signedCommand({ text: "enforce --apply" }, { secret: "slack-signing-secret-not-ours" })],
    ["replayed after six minutes", () => signedCommand({ text: "enforce --apply" }, { ageSeconds: 360 })],
    ["unsigned", () => functionUrlEvent(slashCommandBody({ text: "enforce --apply" }), {})],
  ])("answers 401 to a request %s, and starts nothing", async (_, event) => {
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const response = await (await coldHandler())(event());
    expect(response).toMatchObject({ statusCode: 401, body: "Unauthorized" });
    expect(invocations()).toHaveLength(0);
    expect(logs.lines()).toContainEqual(expect.objectContaining({ level: "WARN", message: "request refused: not signed by Slack" }));
    logs.restore();
  });

  it.each([
    ["an unlisted user", { text: "enforce", user_id: "U999UNKNOWN" }, ":no_entry: user U999UNKNOWN may not run commands"],
    ["a listed user in an unlisted channel", { text: "enforce", channel_id: "C999OTHER" }, ":no_entry: commands are not accepted in channel C999OTHER"],
    ["a user who may not apply, asking to", { text: "enforce --apply", user_id: VIEWER }, ":no_entry: you may run Warden commands, but not with --apply"],
  ])("refuses %s with an ephemeral message, logged, and starts nothing", async (_, command: SlashCommand, text) => {
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const response = await (await coldHandler())(signedCommand(command));
    expect(response.statusCode).toBe(200);
    expect(slackText(response)).toBe(text);
    expect(invocations()).toHaveLength(0);
    expect(logs.lines()).toContainEqual(expect.objectContaining({ level: "WARN", message: "chat-command", outcome: "refused", user: command.user_id ?? APPLIER }));
    logs.restore();
  });

  it("answers a malformed command with the error and the usage, logged, and starts nothing", async () => {
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const text = slackText(await (await coldHandler())(signedCommand({ text: "enforce --force" })));
    expect(text).toMatch(/^enforce takes only the option --apply, and 1 other option was given\n\nUsage:\n`\/warden enforce \[--apply\]`/);
    expect(invocations()).toHaveLength(0);
    expect(logs.lines()).toContainEqual(expect.objectContaining({ message: "chat-command", outcome: "malformed", reason: "enforce takes only the option --apply, and 1 other option was given" }));
    logs.restore();
  });

  it("answers help with the usage", async () => {
    expect(slackText(await (await coldHandler())(signedCommand({ text: "help" })))).toMatch(/^Usage:/);
    expect(invocations()).toHaveLength(0);
  });

  it("refuses --apply on a report-only stage", async () => {
    vi.stubEnv("WARDEN_REPORT_ONLY", "true");
    expect(slackText(await (await coldHandler())(signedCommand({ text: "workflows --apply" })))).toMatch(/report-only: --apply is refused/);
    expect(invocations()).toHaveLength(0);
  });

  it("refuses pipeline --apply on a report-only stage, and to a user who may not apply", async () => {
    vi.stubEnv("WARDEN_REPORT_ONLY", "true");
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const response = await (await coldHandler())(signedCommand({ text: "pipeline acme/platform/api main DEPLOY_ENV=staging --apply" }));
    expect(slackText(response)).toBe(":no_entry: this Warden deployment is report-only: it starts no pipelines (run without --apply for a dry run)");
    expect(invocations()).toHaveLength(0);
    expect(logs.lines()).toContainEqual(expect.objectContaining({ message: "chat-command", outcome: "refused", command: "pipeline acme/platform/api main DEPLOY_ENV=… --apply" }));
    vi.stubEnv("WARDEN_REPORT_ONLY", "false");
    const viewer = await (await coldHandler())(signedCommand({ text: "pipeline acme/platform/api main --apply", user_id: VIEWER }));
    expect(slackText(viewer)).toBe(":no_entry: you may run Warden commands, but not with --apply");
    expect(invocations()).toHaveLength(0);
    logs.restore();
  });

  it("tells the user when Lambda refused to start the worker, so nothing was run", async () => {
    // A 4xx answer: Lambda refused the invoke, so nothing was queued.
    lambda.on(InvokeCommand).rejects(new TooManyRequestsException({ message: "Rate Exceeded.", $metadata: { httpStatusCode: 429 } }));
    expect(slackText(await (await coldHandler())(signedCommand({ text: "enforce" })))).toBe(":x: Warden could not start `enforce`; nothing was run.");
  });

  it("says the start is uncertain, not that nothing ran, when the invoke failed without an answer", async () => {
    // No answer (a reset connection): the event may have been queued. test/functions/chatops-invoke.test.ts
    // does this over a real socket, and checks the invoke is not retried.
    lambda.on(InvokeCommand).rejects(Object.assign(new Error("socket hang up"), { code: "ECONNRESET", $metadata: { attempts: 1 } }));
    const text = slackText(await (await coldHandler())(signedCommand({ text: "pipeline acme/platform/api main" })));
    expect(text).toMatch(/^:warning: Warden may or may not have started `pipeline acme\/platform\/api main`: .* check the channel before running the command again\.$/);
    expect(invocations()).toHaveLength(1);
  });

  it.each([
    ["on another origin", "https://evil.example/commands/T0001/1234/abcd"],
    ["on Slack's host over plain http", "http://hooks.slack.com/commands/T0001/1234/abcd"],
    ["that is not a URL", "hooks.slack.com/commands/T0001/1234/abcd"],
  ])("refuses a command whose response_url is %s, with an ephemeral message, logged, and starts nothing", async (_, responseUrl) => {
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const response = await (await coldHandler())(signedCommand({ text: "enforce --apply", response_url: responseUrl }));
    expect(response.statusCode).toBe(200);
    expect(slackText(response)).toBe(":no_entry: Warden cannot post a result for this command (the response_url is not on https://hooks.slack.com), so it did not run `enforce --apply`.");
    expect(invocations()).toHaveLength(0);
    expect(logs.lines()).toContainEqual(expect.objectContaining({ level: "WARN", message: "chat-command", outcome: "refused", reason: "the response_url is not on https://hooks.slack.com" }));
    // The response_url is a capability for the channel: neither logged nor echoed.
    expect(JSON.stringify(logs.lines())).not.toContain(responseUrl);
    logs.restore();
  });

  it("answers 500 and starts nothing when WARDEN_SLACK_RESPONSE_ORIGIN names anything but a loopback origin", async () => {
    vi.stubEnv("WARDEN_SLACK_RESPONSE_ORIGIN", "https://evil.example");
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    // Even for a response_url on the origin it names: the override is refused, not applied.
    const response = await (await coldHandler())(signedCommand({ text: "enforce", response_url: "https://evil.example/commands/T0001/1234/abcd" }));
    expect(response).toMatchObject({ statusCode: 500, body: "Internal Server Error" });
    expect(invocations()).toHaveLength(0);
    const failure = logs.lines().find((line) => line.message === "chat-command failed");
    expect(JSON.stringify(failure)).toMatch(/WARDEN_SLACK_RESPONSE_ORIGIN is for tests only and must be a loopback origin/);
    logs.restore();
  });

  // A 500 would tell anyone without a credential that this deployment is broken: the operator reads why in the log.
  it("answers 401 as a working deployment does when the chat-ops secret cannot be used, signed or not; logs why at ERROR, never a secret", async () => {
    const unsigned = () => functionUrlEvent(slashCommandBody({ text: "enforce --apply" }), {});
    const working = await (await coldHandler())(unsigned());
    expect(working).toMatchObject({ statusCode: 401, body: "Unauthorized" });
    world.secretsManager.endpointSecretString = JSON.stringify({});
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const broken = await coldHandler();
    for (const response of [await broken(unsigned()), await broken(signedCommand({ text: "enforce" }))]) {
      expect({ status: response.statusCode, body: response.body }).toEqual({ status: working.statusCode, body: working.body });
    }
    expect(invocations()).toHaveLength(0);
    const failure = logs.lines().find((line) => line.message === "chat-command failed");
    expect(failure).toMatchObject({ level: "ERROR" });
    expect(JSON.stringify(failure)).toMatch(/the chat-ops secret has no slackSigningSecret, which chat-ops needs/);
    logs.restore();
  });

  // Anyone may post to the Function URL: a body of Lambda's 6 MB, decoded, split into a form and hashed before
  // the 401, cost a container about a hundred times a small one's CPU, against a reserved concurrency of 10.
  it("refuses a body over a form's bound (512 KiB) 413, saying nothing more, before anything parses it", async () => {
    const handler = await coldHandler();
    const parsed: number[] = [];
    const Original = globalThis.URLSearchParams;
    vi.stubGlobal("URLSearchParams", class extends Original {
      constructor(init?: ConstructorParameters<typeof Original>[0]) {
        super(init);
        if (typeof init === "string" && init.length > MAX_FORM_BYTES) parsed.push(init.length);
      }
    });
    try {
      const padded = (size: number) => `ssl_check=1&token=x&pad=${"a".repeat(size - 24)}`;
      expect(await handler(functionUrlEvent(padded(MAX_FORM_BYTES + 1), {}))).toMatchObject({ statusCode: 413, body: "Content Too Large" });
      expect(await handler(functionUrlEvent("a=1&".repeat(1_000_000), {}))).toMatchObject({ statusCode: 413, body: "Content Too Large" });
      expect(await handler(signedCommand({ text: `enforce ${"x".repeat(MAX_FORM_BYTES)}` }))).toMatchObject({ statusCode: 413, body: "Content Too Large" });
      expect(parsed, "forms parsed from a body over the bound").toEqual([]);
      // Within the bound, Slack's ssl_check is answered as ever.
      expect(await handler(functionUrlEvent(padded(MAX_FORM_BYTES), {}))).toMatchObject({ statusCode: 200, body: "" });
    } finally {
      vi.unstubAllGlobals();
    }
    expect(invocations()).toHaveLength(0);
  });

  it("starts nothing, and says so, when it cannot make sure the command runs once (the claims table unreachable)", async () => {
    vi.stubEnv("WARDEN_CLAIMS_TABLE", "no-such-table");
    const response = await (await coldHandler())(signedCommand({ text: "enforce --apply" }));
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(String(response.body)).text).toBe(NOT_CHECKED);
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(0);
  });

  it("answers 415 to a signed body that is not a form", async () => {
    const body = JSON.stringify({ text: "enforce" });
    const event = signedCommand({ text: "enforce" });
    const timestamp = event.headers["X-Slack-Request-Timestamp"]!;
    const { slackSignature } = await import("../../functions/shared/slack/signature.ts");
    const json = functionUrlEvent(body, { "content-type": "application/json", "X-Slack-Request-Timestamp": timestamp, "X-Slack-Signature": slackSignature(SECRETS.slackSigningSecret, timestamp, body) });
    expect(await (await coldHandler())(json)).toMatchObject({ statusCode: 415 });
    expect(invocations()).toHaveLength(0);
  });

  it("refuses a chat-ops secret that holds the GitLab token (401, the log naming the field, never the value), and starts nothing", async () => {
    world.secretsManager.endpointSecretString = JSON.stringify({ ...ENDPOINT_SECRETS, gitlabToken: SECRETS.gitlabToken });
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const response = await (await coldHandler())(signedCommand({ text: "enforce" }));
    expect(response).toMatchObject({ statusCode: 401, body: "Unauthorized" });
    expect(invocations()).toHaveLength(0);
    const failure = JSON.stringify(logs.lines().find((line) => line.message === "chat-command failed"));
    logs.restore();
    // (The variable's name is matched loosely: today's redaction masks any fragment of a secret, "SECRET" included.)
    expect(failure).toMatch(/holds gitlabToken, which belongs in the jobs' secret \(WARDEN_SECRET_ARN\) or the events' \(WARDEN_EVENTS_SECRET_ARN\) alone/);
    expect(failure).not.toContain(SECRETS.gitlabToken);
  });
});

describe("chat-ops Lambda with the policy in a GitLab repository", () => {
  beforeEach(() => {
    world.secretsManager.reads.length = 0;
    vi.stubEnv("WARDEN_POLICY", undefined);
    vi.stubEnv("WARDEN_POLICY_PROJECT", "security/warden-policy");
  });

  it.each([
    ["signed with another secret", () => signedCommand({ text: "enforce --apply" }, { secret: "slack-signing-secret-not-ours" })],
    ["unsigned", () => functionUrlEvent(slashCommandBody({ text: "enforce --apply" }), {})],
  ])("answers a request %s with 401 having read nothing but the chat-ops secret: no GitLab request, no read of the jobs' secret", async (_, event) => {
    const response = await (await coldHandler())(event());
    expect(response).toMatchObject({ statusCode: 401 });
    expect(gitlab.counters.requests).toBe(0);
    expect(world.secretsManager.reads).not.toContain(SECRET_ARN);
    expect(world.secretsManager.reads).toContain(ENDPOINT_SECRET_ARN);
    expect(invocations()).toHaveLength(0);
  });

  it("never reads the policy or the jobs' secret itself: the worker judges the caller, and the acknowledgement says so", async () => {
    const handler = await coldHandler();
    const response = await handler(signedCommand({ text: "enforce --apply", user_id: "U999UNKNOWN" }));
    expect(slackText(response)).toBe(":hourglass_flowing_sand: Checking `enforce --apply` against the policy; the result, or why it was refused, will be posted here.");
    expect(gitlab.counters.requests).toBe(0);
    expect(world.secretsManager.reads).not.toContain(SECRET_ARN);
    expect(invocations()).toHaveLength(1);
  });

  it("still refuses --apply on a report-only stage at once: that needs no policy", async () => {
    vi.stubEnv("WARDEN_REPORT_ONLY", "true");
    expect(slackText(await (await coldHandler())(signedCommand({ text: "enforce --apply" })))).toMatch(/report-only: --apply is refused/);
    expect(invocations()).toHaveLength(0);
  });

  // Issue 30.4: an exemption request, judged by the worker against the policy it reads; its grammar at once.
  it("passes /warden exempt to the worker with the reason as typed, and names the command without its reason", async () => {
    const handler = await coldHandler();
    const response = await handler(signedCommand({ text: "exempt acme/app/api strangers until 2099-12-31 reason &lt;!channel&gt; legacy &amp; vendor — contract", user_id: "U999UNKNOWN" }));
    expect(slackText(response)).toBe(":hourglass_flowing_sand: Checking `exempt acme/app/api strangers until 2099-12-31 reason …` against the policy; the result, or why it was refused, will be posted here.");
    expect(gitlab.counters.requests).toBe(0);
    const [invoke] = invocations();
    expect((JSON.parse(Buffer.from(invoke!.Payload as Uint8Array).toString()) as WorkerEvent).command).toEqual({
      job: "exempt", project: "acme/app/api", group: "strangers", until: "2099-12-31", reason: "<!channel> legacy & vendor — contract", apply: true,
    });
  });

  it("refuses an exemption request with a bad date at once, naming the position, quoting nothing", async () => {
    const text = slackText(await (await coldHandler())(signedCommand({ text: "exempt acme/app/api strangers until 2099-13-01 reason r" })));
    expect(text).toMatch(/^word 5 \(the date after until\) is not a date YYYY-MM-DD\n\nUsage:/);
    expect(text).not.toContain("2099-13-01");
    expect(invocations()).toHaveLength(0);
  });

  it("refuses an exemption request on a report-only stage at once", async () => {
    vi.stubEnv("WARDEN_REPORT_ONLY", "true");
    expect(slackText(await (await coldHandler())(signedCommand({ text: "exempt acme/app/api strangers reason r" })))).toBe(
      ":no_entry: this Warden deployment is report-only: it opens no merge requests (propose the exemption with warden exempt from a laptop or CI)",
    );
    expect(invocations()).toHaveLength(0);
  });
});

describe("chat-ops Lambda: /warden exempt with a bundled policy", () => {
  it("refuses a user who may not apply before anything is read or started", async () => {
    const response = await (await coldHandler())(signedCommand({ text: "exempt acme/app/api strangers reason legacy", user_id: VIEWER }));
    expect(slackText(response)).toBe(":no_entry: you may run Warden commands, but not request exemptions: an exemption request is a change to the policy repository, for the policy's applyUsers");
    expect(gitlab.counters.requests).toBe(0);
    expect(invocations()).toHaveLength(0);
  });

  it("tells an applyUser the deployment has no policy repository, and how to name one", async () => {
    const response = await (await coldHandler())(signedCommand({ text: "exempt acme/app/api strangers reason legacy" }));
    expect(slackText(response)).toMatch(/^:no_entry: this Warden deployment reads its policy from the file bundled at deploy, so there is no policy repository to propose an exemption to: deploy again with WARDEN_POLICY_PROJECT/);
    expect(invocations()).toHaveLength(0);
  });
});
