import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { WorkerEvent } from "../../functions/shared/runs/job-request.ts";
import { generateOrganisation, startGitLabSim } from "../../sim/gitlab/index.ts";
import { startN8nSim } from "../../sim/n8n/index.ts";
import { CHAT, CHAT_PIPELINE_POLICY } from "../support/policies.ts";
import { json, scriptedServer, type ScriptedServer } from "../support/server.ts";
import { captureLogs, lambdaContext, SECRETS, writePolicy } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";
import { ephemeralReply } from "../support/slack-webhook-receiver.ts";

const { applier: USER, viewer: VIEWER, channel: CHANNEL } = CHAT;
const POLICY = CHAT_PIPELINE_POLICY;

interface Posted {
  response_type: string;
  text: string;
  blocks?: { type: string; text?: { text: string }; elements?: { text: string }[] }[];
}

let slack: ScriptedServer;
let strays: number;
const world = lambdaWorld({
  dynamo: true,
  policy: POLICY,
  gitlab: () => {
    const { dataset, intents } = generateOrganisation({ projects: 120, seed: 7 });
    strays = intents.filter((i) => i.intent === "stray").length;
    return { dataset };
  },
  env: () => ({ WARDEN_SLACK_RESPONSE_ORIGIN: slack.origin, WARDEN_REPORT_ONLY: "false" }),
});

beforeAll(async () => {
  // Slack's response_url endpoint: 200 "ok".
  slack = await scriptedServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("ok");
  });
});
afterAll(() => slack.close());
beforeEach(() => {
  slack.received.length = 0;
});

function event(command: WorkerEvent["command"], over: Partial<WorkerEvent> = {}): WorkerEvent {
  return { command, responseUrl: `${slack.origin}/commands/T0001/1234/abcd`, user: { id: USER, name: "ada" }, channelId: CHANNEL, correlationId: "req-chatops-1", ...over };
}

async function invoke(payload: unknown, remainingMs?: number) {
  vi.resetModules();
  const { handler } = await import("../../functions/worker.ts");
  return handler(payload as never, lambdaContext({ functionName: "warden-test-Worker", remainingMs }));
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
    expect(message).toMatchObject({ response_type: "ephemeral", text: expect.stringMatching(/^Warden enforce \(dry run\): \d+ stray shares\./) });
    expect(message!.blocks![0]).toEqual({ type: "header", text: { type: "plain_text", text: `Warden enforce (dry run): ${strays} stray shares` } });
    expect(message!.blocks!.filter((b) => b.type === "section")).toHaveLength(1 + strays);
    expect(world.gitlab.counters.byRoute["DELETE /projects/:id/share/:group_id"]).toBeUndefined();
  });

  it("runs no chat command that waited in the queue more than 25 minutes (a flood before it): tells the user, and sends GitLab nothing", async () => {
    const sentAt = Math.floor(Date.now() / 1000) - 26 * 60;
    await expect(invoke(event({ job: "enforce", apply: true }, { sentAt }))).resolves.toEqual({ posted: true });
    expect(posted()).toEqual([ephemeralReply(":x: Warden did not run `enforce --apply`: it waited 26 minutes to start (more commands were queued than the Worker runs at once). Run it again if it is still wanted.")]);
    expect(world.gitlab.counters.requests).toBe(0);
    // One sent 20 minutes ago still runs.
    await invoke(event({ job: "enforce", apply: false }, { sentAt: sentAt + 6 * 60, correlationId: "req-chatops-2" }));
    expect(world.gitlab.counters.requests).toBeGreaterThan(0);
  });

  it("applies and posts the outcome to the channel", async () => {
    await invoke(event({ job: "enforce", apply: true }));
    const [message] = posted();
    expect(message).toMatchObject({ response_type: "in_channel", text: expect.stringMatching(/^Warden enforce: \d+ stray shares\./) });
    expect(world.gitlab.counters.byRoute["DELETE /projects/:id/share/:group_id"]).toBe(strays);
  });

  it("without --apply, checks a pipeline with GETs only and tells only the requester what would start", async () => {
    const project = world.gitlab.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/platform/"))!;
    await invoke(event({ job: "pipeline", project: project.path_with_namespace, ref: "main", variables: [{ key: "DEPLOY_ENV", value: "staging" }], apply: false }));
    expect(world.gitlab.pipelines).toEqual([]);
    expect(Object.keys(world.gitlab.counters.byRoute).filter((route) => !route.startsWith("GET "))).toEqual([]);
    expect(world.gitlab.counters.byRoute["GET /projects/:id/repository/branches/:branch"]).toBe(1);
    const [message] = posted();
    expect(message).toMatchObject({ response_type: "ephemeral", text: expect.stringMatching(/^Warden pipeline \(dry run\): 1 pipeline request\. allowed by .*; dry run: nothing started \(--apply starts it\)/) });
    expect(JSON.stringify(message)).toContain("branch main @ ");
  });

  it("starts an allowed pipeline with --apply and posts its link to the channel", async () => {
    const project = world.gitlab.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/platform/"))!;
    await invoke(event({ job: "pipeline", project: project.path_with_namespace, ref: "main", variables: [{ key: "DEPLOY_ENV", value: "staging" }], apply: true }));
    expect(world.gitlab.pipelines).toEqual([expect.objectContaining({ project_id: project.id, ref: "main" })]);
    const [message] = posted();
    expect(message!.response_type).toBe("in_channel");
    expect(JSON.stringify(message)).toMatch(/-\/pipelines\/\d+/);
  });

  it("refuses a pipeline on a branch GitLab does not protect, telling the requester why and how to fix it, and starts none", async () => {
    const project = world.gitlab.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/platform/"))!;
    project.protected_branches = [];
    await invoke(event({ job: "pipeline", project: project.path_with_namespace, ref: "main", variables: [], apply: true }));
    expect(world.gitlab.pipelines).toEqual([]);
    expect(world.gitlab.counters.byRoute["POST /projects/:id/pipeline"]).toBeUndefined();
    const text = JSON.stringify(posted());
    expect(text).toContain(`branch main of project ${project.path_with_namespace} is not protected`);
    expect(text).toMatch(/Protect the branch in GitLab .* or set unprotected: true on its rule/);
  });

  it("with a pipelineToken in the secret, checks and starts the pipeline with it alone: it runs as that token's user", async () => {
    const pipelineToken = "glpat-sim-pipelines-4Wq9";
    const { dataset } = generateOrganisation({ projects: 120, seed: 7 });
    await world.gitlab.close();
    world.gitlab = await startGitLabSim({ dataset, tokens: { [SECRETS.gitlabToken]: { admin: true }, [pipelineToken]: { admin: true, username: "warden-pipelines" } }, recordRequests: true });
    vi.stubEnv("GITLAB_URL", world.gitlab.url);
    world.secretsManager.secretString = JSON.stringify({ ...SECRETS, pipelineToken });
    const project = world.gitlab.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/platform/"))!;
    await invoke(event({ job: "pipeline", project: project.path_with_namespace, ref: "main", variables: [], apply: true }));
    expect(world.gitlab.pipelines).toEqual([expect.objectContaining({ ref: "main", user: "warden-pipelines" })]);
    expect(world.gitlab.requests.every((r) => r.headers["private-token"] === pipelineToken)).toBe(true);
    expect(JSON.stringify(posted())).not.toContain(pipelineToken);
  });

  it("posts a failure as an ephemeral message without a stack, and returns normally so AWS does not retry it", async () => {
    world.gitlab.addFaults({ kind: "status", status: 403, route: "GET /user", times: 1 });
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    await expect(invoke(event({ job: "enforce", apply: true }))).resolves.toEqual({ posted: true });
    const [message] = posted();
    expect(message).toEqual(ephemeralReply(expect.stringMatching(/^:x: Warden `enforce --apply` failed: GET \/api\/v4\/user answered 403/)));
    expect(message!.text).not.toMatch(/\n\s+at /);
    expect(logs.lines()).toContainEqual(expect.objectContaining({ level: "ERROR", message: "job failed", correlation_id: "req-chatops-1" }));
    logs.restore();
  });

  it("posts a failure's server text escaped for mrkdwn: a proxy's answer cannot ping the channel or show a link of its choosing", async () => {
    // A proxy (or GitLab) chooses the words of its error answer; the failure reply quotes them.
    world.gitlab.addFaults({ kind: "status", status: 403, route: "GET /user", times: 1, message: "<!channel> sign in again at <https://evil.example|Warden> & retry" });
    await expect(invoke(event({ job: "enforce", apply: false }))).resolves.toEqual({ posted: true });
    const [message] = posted();
    expect(message!.text).toContain("&lt;!channel&gt; sign in again at &lt;https://evil.example|Warden&gt; &amp; retry");
    expect(message!.text).not.toMatch(/<!channel>|<https:/);
  });

  it("authorises again: a user the policy does not allow to apply gets a refusal, and nothing runs", async () => {
    await invoke(event({ job: "enforce", apply: true }, { user: { id: VIEWER, name: "bob" } }));
    expect(posted()).toEqual([ephemeralReply(":no_entry: you may run Warden commands, but not with --apply")]);
    expect(world.gitlab.counters.requests).toBe(0);
  });

  it("refuses pipeline --apply to a user the policy does not allow to apply, as it does any --apply", async () => {
    const project = world.gitlab.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/platform/"))!;
    await invoke(event({ job: "pipeline", project: project.path_with_namespace, ref: "main", variables: [], apply: true }, { user: { id: VIEWER, name: "bob" } }));
    expect(posted()).toEqual([ephemeralReply(":no_entry: you may run Warden commands, but not with --apply")]);
    expect(world.gitlab.counters.requests).toBe(0);
  });

  it("on a report-only stage, refuses a pipeline --apply and starts none", async () => {
    vi.stubEnv("WARDEN_REPORT_ONLY", "true");
    const project = world.gitlab.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/platform/"))!;
    await invoke(event({ job: "pipeline", project: project.path_with_namespace, ref: "main", variables: [], apply: true }));
    expect(posted()).toEqual([ephemeralReply(":no_entry: this Warden deployment is report-only: it starts no pipelines (run without --apply for a dry run)")]);
    expect(world.gitlab.pipelines).toEqual([]);
    expect(world.gitlab.counters.requests).toBe(0);
  });

  it("on a deployment without n8n, answers a workflows command naming what is missing", async () => {
    world.secretsManager.secretString = JSON.stringify({ gitlabToken: SECRETS.gitlabToken, slackSigningSecret: SECRETS.slackSigningSecret });
    await expect(invoke(event({ job: "workflows", apply: false }))).resolves.toEqual({ posted: true });
    expect(posted()).toEqual([
      ephemeralReply(":x: Warden `workflows` failed: n8n is not configured on this deployment: N8N_URL is not set, and the secret has no n8nApiKey"),
    ]);
  });

  it.each([
    ["a response_url on another origin", { responseUrl: "https://evil.example/commands/T0001/1234/abcd" }, "responseUrl: not a Slack response_url"],
    ["a response_url on Slack's host over plain http", { responseUrl: "http://hooks.slack.com/commands/x" }, "responseUrl: not a Slack response_url"],
    ["an unknown field", { extra: true }, 'unknown field "extra"'],
  ])("refuses an event with %s: it runs nothing and posts nothing", async (_, over, message) => {
    await expect(invoke({ ...event({ job: "enforce", apply: true }), ...over })).rejects.toThrow(message);
    expect(world.gitlab.counters.requests).toBe(0);
    expect(slack.received).toEqual([]);
  });

  it("refuses every event while WARDEN_SLACK_RESPONSE_ORIGIN names anything but a loopback origin, even one on that origin", async () => {
    vi.stubEnv("WARDEN_SLACK_RESPONSE_ORIGIN", "https://evil.example");
    await expect(invoke(event({ job: "enforce", apply: true }, { responseUrl: "https://evil.example/commands/T0001/1234/abcd" }))).rejects.toThrow(
      /WARDEN_SLACK_RESPONSE_ORIGIN is for tests only and must be a loopback origin/,
    );
    expect(world.gitlab.counters.requests).toBe(0);
    expect(slack.received).toEqual([]);
  });

  it("the EventsWorker (WARDEN_WORKER_TAKES=subject) refuses a chat command before anything, naming the Worker: nothing runs, nothing is posted", async () => {
    vi.stubEnv("WARDEN_WORKER_TAKES", "subject");
    await expect(invoke(event({ job: "enforce", apply: true }))).rejects.toThrow(/takes subject events .*not a chat event: nothing was run; invoke the stage's Worker function/);
    expect(world.gitlab.counters.requests).toBe(0);
    expect(slack.received).toEqual([]);
    // A value sst.config.ts never sets is a deployment gone wrong: refused too, naming it.
    vi.stubEnv("WARDEN_WORKER_TAKES", "events");
    await expect(invoke(event({ job: "enforce", apply: true }))).rejects.toThrow('WARDEN_WORKER_TAKES must be "chat" or "subject", not "events"');
    expect(world.gitlab.counters.requests).toBe(0);
    expect(slack.received).toEqual([]);
    vi.stubEnv("WARDEN_WORKER_TAKES", "chat");
    await expect(invoke(event({ job: "enforce", apply: false }))).resolves.toEqual({ posted: true });
  });

  it("runs nothing, and tells the user, when it cannot make sure the event runs once (the claims table unreachable)", async () => {
    vi.stubEnv("WARDEN_CLAIMS_TABLE", "no-such-table");
    await expect(invoke(event({ job: "enforce", apply: true }))).resolves.toEqual({ posted: false });
    expect(posted()).toEqual([ephemeralReply(":x: Warden could not make sure `enforce --apply` runs only once, so it did not run it.")]);
    expect(world.gitlab.counters.requests).toBe(0);
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

describe("worker Lambda under hostile conditions", () => {
  it.each([
    ["a token exported with its newline", { gitlabToken: `${SECRETS.gitlabToken}\n` }, {}, "the secret's gitlabToken ends with a newline: check how it was set"],
    ["a token with a space", { gitlabToken: `${SECRETS.gitlabToken} x` }, {}, "the secret's gitlabToken contains a space: check how it was set"],
    ["GITLAB_URL with /api/v4", {}, { GITLAB_URL: "https://gitlab.example.com/api/v4" }, "GITLAB_URL ends with /api/v4"],
    ["GITLAB_URL without a scheme", {}, { GITLAB_URL: "gitlab.example.com" }, "GITLAB_URL is not an http:// or https:// address"],
  ])("%s: refused before any request, naming the setting and not the token", async (_name, secret, vars, message) => {
    world.secretsManager.secretString = JSON.stringify({ ...SECRETS, ...secret });
    for (const [name, value] of Object.entries(vars)) vi.stubEnv(name, value);
    await expect(invoke(event({ job: "enforce", apply: false }))).resolves.toEqual({ posted: true });
    const [message_] = posted();
    expect(message_!.text).toContain(`:x: Warden \`enforce\` failed: ${message}`);
    expect(message_!.text).not.toContain(SECRETS.gitlabToken.slice(0, 6));
    expect(world.gitlab.counters.requests).toBe(0);
  });

  it("logs a long wait as it starts (\"waiting\", with the message)", async () => {
    world.gitlab.addFaults({ kind: "429", headers: "retry-after", seconds: 30, route: "GET /user", times: 1 });
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    // The deadline (10 s before the timeout) stops the job half a second in, so the test need not wait 30 s.
    await invoke(event({ job: "enforce", apply: false }), 10_500);
    expect(logs.lines()).toContainEqual(
      expect.objectContaining({ level: "INFO", message: "waiting", kind: "retry", route: "GET /user", detail: expect.stringMatching(/asked to wait 3\d s \(Retry-After\) on GET \/user/) }),
    );
    const waiting = logs.lines().find((l) => l["message"] === "waiting")!;
    expect(String(waiting["waitMs"])).toMatch(/^\d+$/);
    logs.restore();
  });

  it("masks the credential in the Slack post and every log line, wherever a service echoes it", async () => {
    const at = "2025-01-01T00:00:00.000Z";
    const key = SECRETS.n8nApiKey;
    // Whole, glued to other text, and inside what Slack's escaping rewrites; and a piece of it on its own.
    const names = [`${key}`, `x${key}y`, `<${key}>&`, `part ${key.slice(3, 11)}`];
    const n8n = await startN8nSim({
      generation: 1,
      apiKeys: { [key]: {} },
      workflows: names.map((name, i) => ({ id: `wf${i}`, name, active: true, isArchived: false, tags: [], hasTrigger: true, createdAt: at, updatedAt: at })),
    });
    vi.stubEnv("N8N_URL", n8n.url);
    vi.stubEnv("WARDEN_POLICY", await writePolicy(`${POLICY}n8n:\n  workflows: { keepActive: [], unlisted: deactivate }\n  guard: { maxChanges: 10 }\n`));
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    await invoke(event({ job: "workflows", apply: true }));
    const lines = logs.lines();
    logs.restore();
    await n8n.close();
    const [message_] = posted();
    expect(message_!.response_type).toBe("in_channel");
    expect(lines.filter((l) => l["message"] === "workflow-change")).toHaveLength(names.length);
    const everything = JSON.stringify(lines) + slack.received.map((r) => r.body).join("");
    expect(everything.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&")).not.toContain(key);
    // A piece is masked no more than any other text: whether it were would tell whoever named the workflow.
    expect(everything).toContain(`part ${key.slice(3, 11)}`);
    expect(everything).not.toMatch(/part \[REDACTED\]/);
  });

  // A system hook token (which an administrator types) left in the jobs' secret by a deployment from before the
  // split is neither used nor masked: masked, a reply would come back "[REDACTED]" for a project path written
  // like it, and tell any chat user who may run a dry run that their guess was the token.
  it("names a project written like an endpoint's token left in the jobs' secret as it names any other", async () => {
    const [token, guess] = ["correct-horse-battery-staple", "correct-horse-battery-stable"];
    const reply = async (written: string) => {
      world.secretsManager.secretString = JSON.stringify({ ...SECRETS, gitlabSystemHookToken: token });
      slack.received.length = 0;
      await invoke(event({ job: "pipeline", project: `acme/platform/${written}`, ref: "main", variables: [], apply: false }, { user: { id: VIEWER, name: "eve" }, correlationId: crypto.randomUUID() }));
      return JSON.stringify(posted()).replaceAll(written, "GUESS").replace(/ in \d+\.\d s/g, " in T s");
    };
    const [theToken, another] = [await reply(token), await reply(guess)];
    expect(another).toContain("refused: project acme/platform/GUESS not found");
    expect(theToken).toBe(another);
  });
});
