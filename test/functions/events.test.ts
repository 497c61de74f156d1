/**
 * The Events Function URL as GitLab calls it (sim/aws/gitlab-deliveries.ts): real Function URL events,
 * the real DynamoDB client on dynalite, the real Lambda client on a loopback Invoke API, and the
 * GitLab simulator recording the events its shares make. The token comes before anything; each event
 * is claimed once; one worker invoke per subject; nothing from the body reaches the logs.
 */
import { ScanCommand } from "@aws-sdk/client-dynamodb";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { describe, expect, it, vi } from "vitest";
import type { SubjectWorkerEvent } from "../../functions/shared/runs/job-request.ts";
import { HOOK_CLAIM_AFTER_MS } from "../../functions/shared/events/delivery.ts";
import { GITLAB_EVENT_TOKENS, groupCreateHook, projectCreateHook, projectTransferHook, streamDelivery, streamedAuditEvent, systemHookDelivery } from "../../sim/aws/gitlab-deliveries.ts";
import { generateOrganisation, type SimAuditEvent } from "../../sim/gitlab/index.ts";
import { standardPolicy } from "../support/policies.ts";
import { captureLogs, EVENTS_SECRET_ARN, lambdaContext } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";

const WORKER = "warden-test-Worker";
// The Events function reads the events' secret alone: the jobs' is empty.
const world = lambdaWorld({
  secret: "",
  eventsSecret: JSON.stringify(GITLAB_EVENT_TOKENS),
  dynamo: true,
  lambdaApi: true,
  policy: standardPolicy(),
  gitlab: () => ({ dataset: generateOrganisation({ projects: 60, seed: 7 }).dataset }),
  env: () => ({ WARDEN_WORKER_FUNCTION: WORKER }),
});

async function deliver(event: APIGatewayProxyEventV2): Promise<{ status: number; body: Record<string, unknown> | string; ms: number }> {
  vi.resetModules();
  const { handler } = await import("../../functions/events.ts");
  const started = performance.now();
  const response = (await handler(event, lambdaContext({ functionName: "warden-test-Events" }))) as APIGatewayProxyStructuredResultV2;
  const ms = performance.now() - started;
  const text = String(response.body ?? "");
  return { status: response.statusCode!, body: text.startsWith("{") ? (JSON.parse(text) as Record<string, unknown>) : text, ms };
}

const claimsWritten = async () => {
  const client = world.dynamo.client();
  const { Items } = await client.send(new ScanCommand({ TableName: world.table }));
  client.destroy();
  // The events' claims; not the record of the last delivery (heard:…, for the sweep's silence check).
  return Items?.filter((item) => !item["id"]?.S?.startsWith("heard:")).length ?? 0;
};
const invoked = () => world.lambdaApi.invokes.map((i) => ({ functionName: i.functionName, invocationType: i.invocationType, ...(JSON.parse(i.payload) as SubjectWorkerEvent) }));

/** Shares a project of acme with a group outside it, as a person does, and returns the audit event GitLab records. */
async function shareProject(path: string, groupPath = "partners/agency-y"): Promise<{ event: SimAuditEvent; projectId: number }> {
  const project = world.gitlab.dataset.projects.find((p) => p.path_with_namespace === path) ?? world.gitlab.dataset.projects.find((p) => p.path_with_namespace.startsWith(path))!;
  const group = world.gitlab.dataset.groups.find((g) => g.full_path === groupPath) ?? world.gitlab.dataset.groups.find((g) => !g.full_path.startsWith("acme") && !project.shared_with_groups.some((s) => s.group_id === g.id))!;
  const res = await fetch(`${world.gitlab.url}/api/v4/projects/${project.id}/share`, {
    method: "POST",
    headers: { "private-token": world.gitlab.token, "content-type": "application/json" },
    body: JSON.stringify({ group_id: group.id, group_access: 30 }),
  });
  expect(res.status).toBe(201);
  return { event: world.gitlab.auditEvents.at(-1)!, projectId: project.id };
}

describe("the Events function: who may call it", () => {
  it.each([
    ["a forged streaming token", streamDelivery("{not json", { token: "STREAM-TOKEN-forged000000000" })],
    ["no token at all", (() => {
      const e = streamDelivery("{not json");
      delete e.headers["x-gitlab-event-streaming-token"];
      return e;
    })()],
    ["the streaming token sent as a system hook's", systemHookDelivery({ event_name: "project_create", project_id: 1 }, { token: GITLAB_EVENT_TOKENS.gitlabStreamingToken })],
    ["the system hook's token sent as a stream's", streamDelivery("{}", { token: GITLAB_EVENT_TOKENS.gitlabSystemHookToken })],
    ["both token headers", { ...streamDelivery("{}"), headers: { ...streamDelivery("{}").headers, "x-gitlab-token": GITLAB_EVENT_TOKENS.gitlabSystemHookToken } }],
  ])("refuses %s with 401: no claim written, no invoke, no GitLab request, no read of the jobs' secret, the body not even parsed", async (_, event) => {
    world.secretsManager.reads.length = 0;
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const { status, body } = await deliver(event);
    expect(status).toBe(401);
    expect(body).toBe("Unauthorized");
    expect(await claimsWritten()).toBe(0);
    expect(world.lambdaApi.invokes).toEqual([]);
    expect(world.gitlab.counters.requests).toBe(0);
    // The tokens come from the events' secret; the jobs' (the GitLab token) and chat-ops' (Slack's signing secret) are not this function's to read.
    expect(world.secretsManager.reads).toEqual([EVENTS_SECRET_ARN]);
    expect(logs.lines()).toContainEqual(expect.objectContaining({ level: "WARN", message: "request refused: not GitLab's" }));
    const text = JSON.stringify(logs.lines());
    for (const token of Object.values(GITLAB_EVENT_TOKENS)) expect(text).not.toContain(token);
    logs.restore();
  });

  it("refuses each kind of request when the secret lacks its token, and takes the other", async () => {
    world.secretsManager.eventsSecretString = JSON.stringify({ gitlabSystemHookToken: GITLAB_EVENT_TOKENS.gitlabSystemHookToken });
    const { event } = await shareProject("acme/mobile/");
    expect((await deliver(streamDelivery(streamedAuditEvent(event)))).status).toBe(401);
    const project = world.gitlab.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/platform/"))!;
    expect((await deliver(systemHookDelivery(projectCreateHook(project)))).status).toBe(200);
    expect(invoked()).toEqual([expect.objectContaining({ subject: { kind: "project", id: project.id, path: project.path_with_namespace } })]);
  });

  // A 500 would tell anyone without a token which deployments are broken, and a read per request would let
  // them turn requests into GetSecretValue calls (cost, and the account's quota).
  it("answers a forged token as a working deployment does when its secret cannot be used, logs why at ERROR, and reads the secret once for many requests", async () => {
    const forged = () => streamDelivery("{}", { token: "STREAM-TOKEN-forged000000000" });
    const working = await deliver(forged());
    // A field of another secret makes it unusable, as a KMS key the role may not use or a deleted secret would.
    world.secretsManager.eventsSecretString = JSON.stringify({ ...GITLAB_EVENT_TOKENS, slackSigningSecret: "y".repeat(32) });
    world.secretsManager.reads.length = 0;
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    vi.resetModules();
    const { handler } = await import("../../functions/events.ts");
    const answers: { status?: number; body?: string }[] = [];
    for (let i = 0; i < 5; i++) {
      const response = (await handler(forged(), lambdaContext({ functionName: "warden-test-Events" }))) as APIGatewayProxyStructuredResultV2;
      answers.push({ status: response.statusCode, body: response.body });
    }
    expect(answers).toEqual(Array(5).fill({ status: working.status, body: working.body }));
    expect(working).toMatchObject({ status: 401, body: "Unauthorized" });
    // The read the container starts at init, its failure kept for the next 30 s (test/functions/config/secrets.test.ts).
    expect(world.secretsManager.reads).toEqual([EVENTS_SECRET_ARN]);
    const failures = logs.lines().filter((line) => line.message === "gitlab-events failed");
    logs.restore();
    expect(failures).toHaveLength(5);
    expect(failures[0]).toMatchObject({ level: "ERROR" });
    expect(JSON.stringify(failures[0])).toMatch(/holds slackSigningSecret, which belongs in the jobs' secret/);
    expect(JSON.stringify(failures)).not.toContain("y".repeat(32));
  });
});

describe("the Events function: a system hook token short enough to guess", () => {
  it("refuses every system hook, saying why, and takes streamed events and the rest as before: an echoed guess of a short token coming back masked would say it is the token", async () => {
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    world.secretsManager.eventsSecretString = JSON.stringify({ gitlabStreamingToken: GITLAB_EVENT_TOKENS.gitlabStreamingToken, gitlabSystemHookToken: "warden-hook" });
    const project = world.gitlab.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/platform/"))!;
    expect((await deliver(systemHookDelivery(projectCreateHook(project), { token: "warden-hook" }))).status).toBe(401);
    expect(invoked()).toEqual([]);
    expect(JSON.stringify(logs.lines())).toContain("the secret's gitlabSystemHookToken is shorter than 24 characters, short enough to guess: system hooks are refused");
    const { event } = await shareProject("acme/mobile/");
    expect((await deliver(streamDelivery(streamedAuditEvent(event)))).status).toBe(200);
    logs.restore();
  });
});

describe("the Events function: audit event streaming", () => {
  it("takes a form-encoded JSON event (base64, as a Function URL passes it), claims it, and starts one worker run for its project, in well under a second", async () => {
    const { event, projectId } = await shareProject("acme/mobile/");
    const requestsBefore = world.gitlab.counters.requests;
    const { status, body, ms } = await deliver(streamDelivery(streamedAuditEvent(event)));
    expect(status).toBe(200);
    expect(body).toEqual({ events: 1, ignored: 0, duplicates: 0, started: [`project:${projectId}`], failed: [] });
    expect(ms).toBeLessThan(1_000);
    expect(invoked()).toEqual([
      {
        functionName: WORKER,
        invocationType: "Event",
        kind: "subject",
        subject: { kind: "project", id: projectId, path: event.details["target_details"] },
        events: [{ id: String(event.id), name: "project_group_link_created", createdAt: event.created_at }],
        correlationId: expect.stringMatching(new RegExp(`:project:${projectId}$`)),
      },
    ]);
    expect(await claimsWritten()).toBe(1);
    // The endpoint itself calls no GitLab.
    expect(world.gitlab.counters.requests).toBe(requestsBefore);
  });

  it("a plain-text body (not base64) and a JSON Content-Type are the same to it", async () => {
    const { event } = await shareProject("acme/mobile/");
    const plain = streamDelivery(streamedAuditEvent(event), { contentType: "application/json" });
    plain.body = Buffer.from(plain.body!, "base64").toString("utf8");
    plain.isBase64Encoded = false;
    expect((await deliver(plain)).status).toBe(200);
    expect(world.lambdaApi.invokes).toHaveLength(1);
  });

  it("a duplicate delivery (GitLab may send an event twice) is acknowledged and starts nothing more", async () => {
    const { event } = await shareProject("acme/mobile/");
    const first = await deliver(streamDelivery(streamedAuditEvent(event)));
    const again = await deliver(streamDelivery(streamedAuditEvent(event)));
    expect(first.body).toMatchObject({ duplicates: 0, started: [expect.any(String)] });
    expect(again).toMatchObject({ status: 200, body: { events: 1, duplicates: 1, started: [] } });
    expect(world.lambdaApi.invokes).toHaveLength(1);
  });

  it("an array: events about one project make one run, a group's share its own, and events naming no subject are acknowledged and left", async () => {
    const a = await shareProject("acme/mobile/");
    const b = await shareProject(world.gitlab.dataset.projects.find((p) => p.id === a.projectId)!.path_with_namespace, "partners/contractor-x");
    const acme = world.gitlab.dataset.groups.find((g) => g.full_path === "acme/platform")!;
    const groupShare = { ...streamedAuditEvent(b.event), id: b.event.id + 1000, entity_id: acme.id, entity_path: acme.full_path, event_type: "group_share_with_group_link_created", details: { entity_path: acme.full_path, target_id: 5, target_type: "Group" } };
    const login = { ...streamedAuditEvent(a.event), id: a.event.id + 2000, entity_type: "User", event_type: "user_logged_in", details: {} };
    const { status, body } = await deliver(streamDelivery([streamedAuditEvent(a.event), login, streamedAuditEvent(b.event), groupShare, streamedAuditEvent(a.event)]));
    expect(status).toBe(200);
    expect(body).toMatchObject({ events: 5, ignored: 1, duplicates: 1, failed: [] });
    const runs = invoked();
    expect(runs.map((r) => `${r.subject.kind}:${r.subject.id}`).sort()).toEqual([`group:${acme.id}`, `project:${a.projectId}`].sort());
    expect(runs.find((r) => r.subject.kind === "project")!.events.map((e) => e.id)).toEqual([String(a.event.id), String(b.event.id)]);
  });

  it("out of order: a later event delivered before an earlier one, each handled (no cursor drops the older)", async () => {
    const older = await shareProject("acme/mobile/");
    const newer = await shareProject("acme/platform/");
    expect(newer.event.id).toBeGreaterThan(older.event.id);
    await deliver(streamDelivery(streamedAuditEvent(newer.event)));
    await deliver(streamDelivery(streamedAuditEvent(older.event)));
    expect(invoked().map((r) => r.subject.id)).toEqual([newer.projectId, older.projectId]);
  });

  it("an event of a GitLab before event_type (its type only in the header), and an old project-share row without a name", async () => {
    const { event, projectId } = await shareProject("acme/mobile/");
    const { event_type: _, ...untyped } = streamedAuditEvent(event);
    await deliver(streamDelivery(untyped, { eventType: "project_group_link_created" }));
    const { event_name: __, ...details } = untyped["details"] as Record<string, unknown>;
    const legacy = { ...untyped, id: event.id + 500, details };
    await deliver(streamDelivery(legacy, { eventType: "" }));
    expect(invoked().map((r) => r.subject.id)).toEqual([projectId, projectId]);
  });

  it("after the token: malformed JSON is a 400 naming the cause (not quoting the body), an event without an id too, a huge body 413; nothing claimed", async () => {
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const bad = await deliver(streamDelivery("id=7&secret-body-marker"));
    expect(bad).toMatchObject({ status: 400, body: "Bad Request: the body is not JSON (GitLab sends each event as a JSON object, whatever the Content-Type says)" });
    expect(await deliver(streamDelivery([{ id: 1 }, { entity_type: "Project" }]))).toMatchObject({ status: 400, body: expect.stringMatching(/^Bad Request: event \[1\] has no id/) });
    expect(await deliver(streamDelivery([{ id: 1 }, "text"]))).toMatchObject({ status: 400, body: "Bad Request: event [1] is not a JSON object" });
    expect(await deliver(streamDelivery({ id: 1, pad: "x".repeat(1024 * 1024) }))).toMatchObject({ status: 413 });
    expect(await claimsWritten()).toBe(0);
    expect(world.lambdaApi.invokes).toEqual([]);
    expect(JSON.stringify(logs.lines())).not.toContain("secret-body-marker");
    logs.restore();
  });

  it("a deeply nested event (well under the size limit) is a 400 naming the cause, not a crash; nothing claimed", async () => {
    const depth = 100_000;
    const nested = `{"id":1,"created_at":"2024-01-01T00:00:00Z","details":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    expect(await deliver(streamDelivery(nested))).toMatchObject({ status: 400, body: expect.stringMatching(/^Bad Request: the event is nested more than \d+ levels deep/) });
    expect(await claimsWritten()).toBe(0);
    expect(world.lambdaApi.invokes).toEqual([]);
  });

  it("logs ids and names only: nothing else of the body, however long", async () => {
    const { event } = await shareProject("acme/mobile/");
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const streamed = streamedAuditEvent(event);
    await deliver(streamDelivery({ ...streamed, details: { ...(streamed["details"] as object), custom_message: "body-marker-9f3", note: "y".repeat(50_000) } }));
    const lines = logs.lines();
    expect(lines).toContainEqual(expect.objectContaining({ message: "gitlab-events", sender: "stream", ids: [`project_group_link_created ${event.id}`] }));
    expect(JSON.stringify(lines)).not.toContain("body-marker-9f3");
    expect(JSON.stringify(lines).length).toBeLessThan(20_000);
    logs.restore();
  });

  it("when the worker cannot be started, answers 200 all the same (GitLab does not retry) and logs the subject for the sweep", async () => {
    world.lambdaApi.answer = "throttle";
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const { event, projectId } = await shareProject("acme/mobile/");
    expect(await deliver(streamDelivery(streamedAuditEvent(event)))).toMatchObject({ status: 200, body: { started: [], failed: [`project:${projectId}`] } });
    expect(world.lambdaApi.invokes).toHaveLength(1);
    expect(logs.lines()).toContainEqual(expect.objectContaining({ level: "ERROR", message: "starting the worker for a subject failed; the scheduled run will find its strays", subject: `project:${projectId}` }));
    logs.restore();
  });
});

describe("the Events function: system hooks (self-managed)", () => {
  it("project_create, project_transfer and group_create start a check of their subject; other hooks are acknowledged and left", async () => {
    const project = world.gitlab.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/mobile/"))!;
    const group = world.gitlab.dataset.groups.find((g) => g.full_path === "acme/platform")!;
    for (const hook of [projectCreateHook(project), projectTransferHook(project, "elsewhere/app"), groupCreateHook(group)]) expect((await deliver(systemHookDelivery(hook))).status).toBe(200);
    expect((await deliver(systemHookDelivery({ event_name: "user_create", user_id: 4, email: "x@example.com" }))).body).toMatchObject({ events: 1, ignored: 1 });
    // A project webhook sent here by mistake carries the token too, but is not a system hook.
    expect((await deliver(systemHookDelivery(projectCreateHook(project), { event: "Push Hook" }))).body).toMatchObject({ events: 0 });
    expect(invoked().map((r) => [r.subject.kind, r.subject.id, r.events[0]!.name])).toEqual([
      ["project", project.id, "project_create"],
      ["project", project.id, "project_transfer"],
      ["group", group.id, "group_create"],
    ]);
  });

  // A hook is claimed only once past its whole second and the clocks' difference (HOOK_CLAIM_AFTER_MS):
  // within it, a repeat runs again (removing nothing more), as one sent before the change it records must.
  it("the same hook delivered twice is one run once it is claimable; within its first seconds each delivery runs", async () => {
    const project = world.gitlab.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/mobile/"))!;
    const settled = projectCreateHook(project, new Date(Date.now() - HOOK_CLAIM_AFTER_MS - 1_000));
    await deliver(systemHookDelivery(settled));
    expect((await deliver(systemHookDelivery(settled))).body).toMatchObject({ duplicates: 1 });
    expect(world.lambdaApi.invokes).toHaveLength(1);
    const fresh = projectCreateHook(project);
    await deliver(systemHookDelivery(fresh));
    expect((await deliver(systemHookDelivery(fresh))).body).toMatchObject({ duplicates: 0 });
    expect(world.lambdaApi.invokes).toHaveLength(3);
  });
});

describe("the Events function: what a holder of the streaming token cannot do", () => {
  /** A streamed share event as a token holder would write it: its id, its type, and the project it names. */
  const shareEvent = (id: number, projectId: number, createdAt = new Date().toISOString()) => ({
    id,
    entity_id: 1,
    entity_type: "Group",
    event_type: "project_group_link_created",
    created_at: createdAt,
    details: { target_id: projectId, target_type: "Project" },
  });

  it("cannot suppress GitLab's real event by claiming its id first: a forged event with that id naming a harmless project, then the real one about a stray share, each enforced", async () => {
    const { event, projectId } = await shareProject("acme/mobile/");
    const harmless = world.gitlab.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/platform/"))!;
    // GitLab's ids are sequential: the holder sends "the next id" before GitLab's event with it arrives.
    const forged = await deliver(streamDelivery({ ...streamedAuditEvent(event), target_id: harmless.id, target_details: harmless.path_with_namespace, details: { ...event.details, target_id: harmless.id, target_details: harmless.path_with_namespace } }));
    expect(forged.body).toMatchObject({ started: [`project:${harmless.id}`] });
    const real = await deliver(streamDelivery(streamedAuditEvent(event)));
    expect(real).toMatchObject({ status: 200, body: { events: 1, duplicates: 0, started: [`project:${projectId}`] } });
    expect(invoked().map((r) => r.subject.id)).toEqual([harmless.id, projectId]);
    // The id is GitLab's, kept for the run's log lines; what was claimed is each whole event.
    expect(invoked().map((r) => r.events[0]!.id)).toEqual([String(event.id), String(event.id)]);
    expect(await claimsWritten()).toBe(2);
  });

  it("a redelivery of the identical event (its keys in another order, other spacing) is still one run", async () => {
    const { event } = await shareProject("acme/mobile/");
    const streamed = streamedAuditEvent(event);
    await deliver(streamDelivery(streamed));
    const reordered = Object.fromEntries(Object.entries(streamed).reverse());
    const again = streamDelivery(JSON.stringify(reordered, null, 2), { eventType: String(streamed["event_type"]) });
    expect(await deliver(again)).toMatchObject({ status: 200, body: { events: 1, duplicates: 1, started: [] } });
    expect(world.lambdaApi.invokes).toHaveLength(1);
  });

  it("cannot claim an event ahead of GitLab: the identical event sent before its created_at is handled but not claimed, so GitLab's own delivery after the change is enforced too", async () => {
    const { event, projectId } = await shareProject("acme/mobile/");
    vi.useFakeTimers({ toFake: ["Date"], now: Date.parse(event.created_at) - 60_000 });
    try {
      expect((await deliver(streamDelivery(streamedAuditEvent(event)))).body).toMatchObject({ started: [`project:${projectId}`] });
    } finally {
      vi.useRealTimers();
    }
    expect(await claimsWritten()).toBe(0);
    expect((await deliver(streamDelivery(streamedAuditEvent(event)))).body).toMatchObject({ duplicates: 0, started: [`project:${projectId}`] });
    expect((await deliver(streamDelivery(streamedAuditEvent(event)))).body).toMatchObject({ duplicates: 1, started: [] });
    expect(world.lambdaApi.invokes).toHaveLength(2);
  });

  it("the path an event gives is only a label: one too long to be GitLab's is not carried to the Worker (which finds the subject by id)", async () => {
    const { projectId } = await shareProject("acme/mobile/");
    const long = "acme/" + "x".repeat(200_000);
    await deliver(streamDelivery({ ...shareEvent(1, projectId), details: { target_id: projectId, target_type: "Project", target_details: long } }));
    expect(invoked().map((r) => r.subject)).toEqual([{ kind: "project", id: projectId }]);
  });

  it.each([
    ["5,000 events, each about a subject of its own", Array.from({ length: 5_000 }, (_, i) => shareEvent(900_000 + i, 1 + i)), /holds 5000 events/],
    ["2,000 events about one subject", Array.from({ length: 2_000 }, (_, i) => shareEvent(900_000 + i, 1)), /holds 2000 events/],
    ["500 events naming 500 subjects", Array.from({ length: 500 }, (_, i) => shareEvent(900_000 + i, 1 + i)), /names 500 subjects/],
  ])("a flood (%s in one delivery) is refused whole with 413: no claim, no invoke, a WARN line naming the count", async (_, flood, count) => {
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const answer = await deliver(streamDelivery(flood));
    expect(answer).toMatchObject({ status: 413, body: expect.stringMatching(count) });
    expect(world.lambdaApi.invokes).toEqual([]);
    expect(await claimsWritten()).toBe(0);
    expect(logs.lines()).toContainEqual(expect.objectContaining({ level: "WARN", message: "gitlab-events refused", status: 413, reason: expect.stringMatching(count) }));
    logs.restore();
  });
});
