import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { WorkerEvent } from "../../functions/lib/job-request.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../sim/gitlab/index.ts";
import { standardPolicy } from "../support/policies.ts";
import { json, scriptedServer, type ScriptedServer } from "../support/server.ts";
import { captureLogs, lambdaContext, SECRETS, startSecretsManager, stubAwsEnv, writePolicy, type SecretsManagerStub } from "./support.ts";

const USER = "U012ABCDEF";
const VIEWER = "U034GHIJKL";
const CHANNEL = "C0123456";
const POLICY = `${standardPolicy()}
pipelines:
  allow:
    - project: "acme/platform/**"
      refs: ["main"]
      variables: ["DEPLOY_ENV"]
chatops:
  slack:
    users: ["${USER}", "${VIEWER}"]
    channels: ["${CHANNEL}"]
    applyUsers: ["${USER}"]
`;

interface Posted {
  response_type: string;
  text: string;
  blocks?: { type: string; text?: { text: string }; elements?: { text: string }[] }[];
}

let secretsManager: SecretsManagerStub;
let slack: ScriptedServer;
let policyPath: string;
let gitlab: GitLabSim;
let strays: number;

beforeAll(async () => {
  secretsManager = await startSecretsManager(JSON.stringify(SECRETS));
  // Slack's response_url endpoint: 200 "ok".
  slack = await scriptedServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("ok");
  });
  policyPath = await writePolicy(POLICY);
});
afterAll(async () => {
  await secretsManager.close();
  await slack.close();
});
beforeEach(async () => {
  const { dataset, intents } = generateOrganisation({ projects: 120, seed: 7 });
  gitlab = await startGitLabSim({ dataset });
  strays = intents.filter((i) => i.intent === "stray").length;
  slack.received.length = 0;
  secretsManager.secretString = JSON.stringify(SECRETS);
  stubAwsEnv({ AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.url, WARDEN_POLICY: policyPath, GITLAB_URL: gitlab.url, WARDEN_SLACK_RESPONSE_ORIGIN: slack.origin, WARDEN_REPORT_ONLY: "false" });
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await gitlab.close();
});

function event(command: WorkerEvent["command"], over: Partial<WorkerEvent> = {}): WorkerEvent {
  return { command, responseUrl: `${slack.origin}/commands/T0001/1234/abcd`, user: { id: USER, name: "ada" }, channelId: CHANNEL, correlationId: "req-chatops-1", ...over };
}

async function invoke(payload: unknown) {
  vi.resetModules();
  const { handler } = await import("../../functions/worker.ts");
  return handler(payload as never, lambdaContext({ functionName: "warden-test-Worker" }));
}

function posted(): Posted[] {
  return slack.received.map((r) => {
    expect(r.method).toBe("POST");
    expect(r.url).toBe("/commands/T0001/1234/abcd");
    expect(r.headers["content-type"]).toMatch(/^application\/json/);
    return JSON.parse(r.body) as Posted;
  });
}

describe("worker Lambda", () => {
  it("runs a dry run and posts the report as Block Kit, only to the user who asked", async () => {
    await expect(invoke(event({ job: "enforce", apply: false }))).resolves.toEqual({ posted: true });
    const [message, ...more] = posted();
    expect(more).toEqual([]);
    expect(message).toMatchObject({ response_type: "ephemeral", text: expect.stringMatching(/^Warden enforce \(dry run\): \d+ stray project shares\./) });
    expect(message!.blocks![0]).toEqual({ type: "header", text: { type: "plain_text", text: `Warden enforce (dry run): ${strays} stray project shares` } });
    expect(message!.blocks!.filter((b) => b.type === "section")).toHaveLength(1 + strays);
    expect(gitlab.counters.byRoute["DELETE /projects/:id/share/:group_id"]).toBeUndefined();
  });

  it("applies and posts the outcome to the channel", async () => {
    await invoke(event({ job: "enforce", apply: true }));
    const [message] = posted();
    expect(message).toMatchObject({ response_type: "in_channel", text: expect.stringMatching(/^Warden enforce: \d+ stray project shares\./) });
    expect(gitlab.counters.byRoute["DELETE /projects/:id/share/:group_id"]).toBe(strays);
  });

  it("starts an allowed pipeline and posts its link to the channel", async () => {
    const project = gitlab.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/platform/"))!;
    await invoke(event({ job: "pipeline", project: project.path_with_namespace, ref: "main", variables: [{ key: "DEPLOY_ENV", value: "staging" }] }));
    expect(gitlab.pipelines).toEqual([expect.objectContaining({ project_id: project.id, ref: "main" })]);
    const [message] = posted();
    expect(message!.response_type).toBe("in_channel");
    expect(JSON.stringify(message)).toMatch(/-\/pipelines\/\d+/);
  });

  it("posts a failure as an ephemeral message without a stack, and returns normally so AWS does not retry it", async () => {
    gitlab.addFaults({ kind: "status", status: 403, route: "GET /user", times: 1 });
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    await expect(invoke(event({ job: "enforce", apply: true }))).resolves.toEqual({ posted: true });
    const [message] = posted();
    expect(message).toEqual({ response_type: "ephemeral", text: expect.stringMatching(/^:x: Warden `enforce --apply` failed: GET \/api\/v4\/user answered 403/) });
    expect(message!.text).not.toMatch(/\n\s+at /);
    expect(logs.lines()).toContainEqual(expect.objectContaining({ level: "ERROR", message: "job failed", correlation_id: "req-chatops-1" }));
    logs.restore();
  });

  it("authorises again: a user the policy does not allow to apply gets a refusal, and nothing runs", async () => {
    await invoke(event({ job: "enforce", apply: true }, { user: { id: VIEWER, name: "bob" } }));
    expect(posted()).toEqual([{ response_type: "ephemeral", text: ":no_entry: you may run Warden commands, but not with --apply" }]);
    expect(gitlab.counters.requests).toBe(0);
  });

  it("on a report-only stage, refuses a pipeline and starts none", async () => {
    vi.stubEnv("WARDEN_REPORT_ONLY", "true");
    const project = gitlab.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/platform/"))!;
    await invoke(event({ job: "pipeline", project: project.path_with_namespace, ref: "main", variables: [] }));
    expect(posted()).toEqual([{ response_type: "ephemeral", text: ":no_entry: this Warden deployment is report-only: it starts no pipelines" }]);
    expect(gitlab.pipelines).toEqual([]);
    expect(gitlab.counters.requests).toBe(0);
  });

  it("on a deployment without n8n, answers a workflows command naming what is missing", async () => {
    secretsManager.secretString = JSON.stringify({ gitlabToken: SECRETS.gitlabToken, slackSigningSecret: SECRETS.slackSigningSecret });
    await expect(invoke(event({ job: "workflows", apply: false }))).resolves.toEqual({ posted: true });
    expect(posted()).toEqual([
      { response_type: "ephemeral", text: ":x: Warden `workflows` failed: n8n is not configured on this deployment: N8N_URL is not set, and the secret has no n8nApiKey" },
    ]);
  });

  it.each([
    ["a response_url on another origin", { responseUrl: "https://evil.example/commands/T0001/1234/abcd" }, "responseUrl: not a Slack response_url"],
    ["a response_url on Slack's host over plain http", { responseUrl: "http://hooks.slack.com/commands/x" }, "responseUrl: not a Slack response_url"],
    ["an unknown field", { extra: true }, 'unknown field "extra"'],
  ])("refuses an event with %s: it runs nothing and posts nothing", async (_, over, message) => {
    await expect(invoke({ ...event({ job: "enforce", apply: true }), ...over })).rejects.toThrow(message);
    expect(gitlab.counters.requests).toBe(0);
    expect(slack.received).toEqual([]);
  });

  it("refuses every event while WARDEN_SLACK_RESPONSE_ORIGIN names anything but a loopback origin, even one on that origin", async () => {
    vi.stubEnv("WARDEN_SLACK_RESPONSE_ORIGIN", "https://evil.example");
    await expect(invoke(event({ job: "enforce", apply: true }, { responseUrl: "https://evil.example/commands/T0001/1234/abcd" }))).rejects.toThrow(
      /WARDEN_SLACK_RESPONSE_ORIGIN is for tests only and must be a loopback origin/,
    );
    expect(gitlab.counters.requests).toBe(0);
    expect(slack.received).toEqual([]);
  });

  it("says when Slack refused the result, without failing the invocation", async () => {
    const expired = await scriptedServer((_req, res) => json(res, 404, { ok: false, error: "expired_url" }));
    vi.stubEnv("WARDEN_SLACK_RESPONSE_ORIGIN", expired.origin);
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    await expect(invoke(event({ job: "enforce", apply: false }, { responseUrl: `${expired.origin}/commands/x` }))).resolves.toEqual({ posted: false });
    expect(logs.lines()).toContainEqual(expect.objectContaining({ level: "ERROR", message: "posting the result to Slack failed", error: expect.stringMatching(/404.*expired_url/) }));
    logs.restore();
    await expired.close();
  });
});
