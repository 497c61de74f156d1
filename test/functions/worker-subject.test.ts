/**
 * The worker's run for a subject of GitLab's events (functions/shared/events/subject-run.ts), against the
 * GitLab simulator: it judges and removes that project's or group's strays only, dry unless the stage
 * applies, once per event, with the run's end (Slack summary, metrics with the time to enforcement).
 * And the whole way, as AWS runs it: a streamed event to the Events function, whose async invoke
 * (the Lambda stand-in) runs the worker while the Events answer has long gone back to GitLab.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { SubjectWorkerEvent } from "../../functions/shared/runs/job-request.ts";
import { GITLAB_EVENT_TOKENS, streamDelivery, streamedAuditEvent } from "../../sim/aws/gitlab-deliveries.ts";
import { generateOrganisation, startGitLabSim, type SimProject } from "../../sim/gitlab/index.ts";
import { standardPolicy } from "../support/policies.ts";
import { emfRecords } from "../support/emf.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/slack-webhook-receiver.ts";
import { captureLogs, ENDPOINT_SECRETS, JOB_SECRETS, lambdaContext } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";

const WEBHOOK_TOKEN = "webhook0secret0part0000x";
const POLICY = `${standardPolicy()}
notify:
  slack: changes
`;
let slack: WebhookReceiver;
// Started first: the jobs' secret names its webhook.
beforeAll(async () => {
  slack = await startWebhookReceiver(WEBHOOK_TOKEN);
});
afterAll(() => slack.close());
const world = lambdaWorld({
  secret: () => JSON.stringify({ ...JOB_SECRETS, slackWebhookUrl: slack.webhookUrl }),
  // The Events function reads the endpoints' secret alone: the stream's and the hooks' tokens are there.
  eventsSecret: JSON.stringify(GITLAB_EVENT_TOKENS),
  dynamo: true,
  s3: true,
  lambdaApi: true,
  policy: POLICY,
  gitlab: () => ({ dataset: generateOrganisation({ projects: 120, seed: 7 }).dataset }),
  env: () => ({ WARDEN_RUN_HISTORY_BUCKET: "warden-runs", WARDEN_WORKER_FUNCTION: "warden-test-Worker", WARDEN_SLACK_RESPONSE_ORIGIN: slack.origin, WARDEN_REPORT_ONLY: "false" }),
});
beforeEach(() => {
  slack.posts = [];
});

type Invoke = (payload: unknown) => Promise<unknown>;
async function workerHandler(): Promise<Invoke> {
  vi.resetModules();
  const { handler } = await import("../../functions/worker.ts");
  return (payload) => handler(payload as never, lambdaContext({ functionName: "warden-test-Worker" }));
}

const projectShares = () => new Map(world.gitlab.dataset.projects.map((p) => [p.id, p.shared_with_groups.map((s) => s.group_id).sort()]));
const nonGet = () => Object.keys(world.gitlab.counters.byRoute).filter((r) => !r.startsWith("GET "));

/** A person shares the project with a group the policy does not allow: a stray, and the audit event GitLab records for it. */
async function addStray(project: SimProject) {
  const group = world.gitlab.dataset.groups.find((g) => g.full_path.startsWith("partners/") && g.full_path !== "partners/contractor-x" && !project.shared_with_groups.some((s) => s.group_id === g.id))!;
  const res = await fetch(`${world.gitlab.url}/api/v4/projects/${project.id}/share`, {
    method: "POST",
    headers: { "private-token": world.gitlab.token, "content-type": "application/json" },
    body: JSON.stringify({ group_id: group.id, group_access: 30 }),
  });
  expect(res.status).toBe(201);
  return { groupId: group.id, event: world.gitlab.auditEvents.at(-1)! };
}

function subjectEvent(project: SimProject, eventId: string, over: Partial<SubjectWorkerEvent> = {}): SubjectWorkerEvent {
  return { kind: "subject", subject: { kind: "project", id: project.id }, events: [{ id: eventId, name: "project_group_link_created", createdAt: new Date().toISOString() }], correlationId: `req-events-1:project:${project.id}`, ...over };
}

/** A project of acme/platform (no exemption, no share allowed but acme's). */
const platformProject = () => world.gitlab.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/platform/"))!;

describe("the worker's run for a subject", () => {
  it("removes the new stray of that project and touches no other project, with a Slack summary and the time to enforcement", async () => {
    const project = platformProject();
    const { groupId, event } = await addStray(project);
    const before = projectShares();
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    vi.stubEnv("POWERTOOLS_METRICS_DISABLED", "false");
    const result = await (await workerHandler())(subjectEvent(project, String(event.id), { events: [{ id: String(event.id), name: "project_group_link_created", createdAt: event.created_at }] }));
    expect(result).toMatchObject({ ran: true, removed: expect.any(Number) });
    const after = projectShares();
    expect(after.get(project.id)).not.toContain(groupId);
    for (const [id, groups] of before) if (id !== project.id) expect(after.get(id), `project ${id}`).toEqual(groups);
    // The person's share, then the run's removals: the project's strays alone.
    expect(nonGet()).toEqual(["POST /projects/:id/share", "DELETE /projects/:id/share/:group_id"]);
    expect(world.gitlab.counters.byRoute["DELETE /projects/:id/share/:group_id"]).toBe((result as { removed: number }).removed);
    // Only that project was read: no listing of the scope.
    expect(world.gitlab.counters.byRoute["GET /groups/:id/projects"]).toBeUndefined();
    expect(slack.posts).toHaveLength(1);
    expect(JSON.stringify(slack.posts[0])).toMatch(/trigger event/);
    const latency = emfRecords(logs.lines()).find((r) => "SecondsToRemoval" in r);
    expect(latency).toMatchObject({ job: "enforce", trigger: "event" });
    expect(latency!["SecondsToRemoval"]).toBeGreaterThanOrEqual(0);
    expect(latency!["SecondsToRemoval"]).toBeLessThan(30);
    expect(logs.lines()).toContainEqual(expect.objectContaining({ message: "job finished", trigger: "event", subject: `project ${project.id}` }));
    logs.restore();
  });

  it("is dry on a report-only stage (the Enforce schedule's setting): GETs only, nothing removed", async () => {
    vi.stubEnv("WARDEN_REPORT_ONLY", undefined);
    const project = platformProject();
    const { event } = await addStray(project);
    const before = projectShares();
    const requests = world.gitlab.counters.requests;
    const result = await (await workerHandler())(subjectEvent(project, String(event.id)));
    expect(result).toEqual({ subject: `project ${project.id}`, ran: true, removed: 0 });
    expect(projectShares()).toEqual(before);
    expect(nonGet()).toEqual(["POST /projects/:id/share"]);
    expect(world.gitlab.counters.requests).toBeGreaterThan(requests);
  });

  it("runs a worker event once: the same one again is dropped", async () => {
    const project = platformProject();
    const { event } = await addStray(project);
    const invoke = await workerHandler();
    await invoke(subjectEvent(project, String(event.id)));
    const requests = world.gitlab.counters.requests;
    expect(await invoke(subjectEvent(project, String(event.id)))).toEqual({ subject: `enforce project ${project.id}`, ran: false, removed: 0 });
    expect(world.gitlab.counters.requests).toBe(requests);
  });

  it("the chat-ops Worker (WARDEN_WORKER_TAKES=chat, its own queue) refuses a subject's event before anything, naming the EventsWorker; the EventsWorker runs it", async () => {
    const project = platformProject();
    const { groupId, event } = await addStray(project);
    const requests = world.gitlab.counters.requests;
    vi.stubEnv("WARDEN_WORKER_TAKES", "chat");
    await expect((await workerHandler())(subjectEvent(project, String(event.id)))).rejects.toThrow(/takes chat events .*not a subject event: nothing was run; invoke the stage's EventsWorker function/);
    // Not a request to GitLab, and no claim taken: the same event still runs where it belongs.
    expect(world.gitlab.counters.requests).toBe(requests);
    vi.stubEnv("WARDEN_WORKER_TAKES", "subject");
    expect(await (await workerHandler())(subjectEvent(project, String(event.id)))).toMatchObject({ ran: true });
    expect(projectShares().get(project.id)).not.toContain(groupId);
  });

  it("a subject outside the scope (found by id) is logged and left: nothing changed, no summary, no failure", async () => {
    const outside = world.gitlab.dataset.projects.find((p) => !p.path_with_namespace.startsWith("acme/"))!;
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const result = await (await workerHandler())(subjectEvent(outside, "77"));
    expect(result).toEqual({ subject: `project ${outside.id}`, ran: false, removed: 0 });
    expect(nonGet()).toEqual([]);
    expect(slack.posts).toEqual([]);
    expect(logs.lines()).toContainEqual(expect.objectContaining({ message: "subject not enforced", reason: expect.stringContaining("outside the policy's scope") }));
    logs.restore();
  });

  it("a subject GitLab fails to read (a 500 every time) fails the run: not logged as a subject left alone", async () => {
    const project = platformProject();
    world.gitlab.addFaults({ kind: "status", status: 500, method: "GET", path: `/api/v4/projects/${project.id}`, times: 1_000 });
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    await expect((await workerHandler())(subjectEvent(project, "78"))).rejects.toThrow(`project ${project.id} could not be read: GET /api/v4/projects/${project.id} answered 500`);
    expect(logs.lines()).not.toContainEqual(expect.objectContaining({ message: "subject not enforced" }));
    logs.restore();
  });

  it("refuses a subject event of the wrong shape before anything runs", async () => {
    const invoke = await workerHandler();
    await expect(invoke({ kind: "subject", subject: { kind: "user", id: 1 }, events: [], correlationId: "x" })).rejects.toThrow(/invalid event: subject.kind: expected "project" or "group"; events: too small/);
    expect(world.gitlab.counters.requests).toBe(0);
  });
});

describe("from GitLab's stream to the removal, as AWS runs it", () => {
  it("the Events function answers in well under a second while a slow worker run (GitLab at 150 ms a request) goes on, and the stray is gone after", async () => {
    await world.gitlab.close();
    world.gitlab = await startGitLabSim({ dataset: generateOrganisation({ projects: 120, seed: 7 }).dataset, latencyMs: 150 });
    vi.stubEnv("GITLAB_URL", world.gitlab.url);
    const project = platformProject();
    const { groupId, event } = await addStray(project);
    const worker = await workerHandler();
    let run: Promise<unknown> | undefined;
    let workerDone = false;
    // What AWS does with an asynchronous invoke: runs the function, on its own time.
    world.lambdaApi.onAccepted = ({ payload }) => {
      run = worker(JSON.parse(payload)).finally(() => (workerDone = true));
    };
    const { handler } = await import("../../functions/events.ts");
    const started = performance.now();
    const response = await handler(streamDelivery(streamedAuditEvent(event)), lambdaContext({ functionName: "warden-test-Events" }));
    const answeredMs = performance.now() - started;
    expect(response).toMatchObject({ statusCode: 200 });
    expect(answeredMs).toBeLessThan(1_000);
    expect(workerDone).toBe(false);
    expect(await run).toMatchObject({ ran: true });
    expect(world.gitlab.dataset.projects.find((p) => p.id === project.id)!.shared_with_groups.map((s) => s.group_id)).not.toContain(groupId);
  });

  it("a forged event only names where to look: one that lies about a project's path and share makes a run that reads GitLab's truth and removes nothing the policy allows", async () => {
    // acme/mobile/** may be shared with partners/contractor-x as developer: an allowed share.
    const contractor = world.gitlab.dataset.groups.find((g) => g.full_path === "partners/contractor-x")!;
    const project = world.gitlab.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/mobile/") && !p.shared_with_groups.some((s) => s.group_id === contractor.id))!;
    const res = await fetch(`${world.gitlab.url}/api/v4/projects/${project.id}/share`, {
      method: "POST",
      headers: { "private-token": world.gitlab.token, "content-type": "application/json" },
      body: JSON.stringify({ group_id: contractor.id, group_access: 30 }),
    });
    expect(res.status).toBe(201);
    const before = projectShares();
    const worker = await workerHandler();
    const runs: Promise<unknown>[] = [];
    world.lambdaApi.onAccepted = ({ payload }) => void runs.push(worker(JSON.parse(payload)));
    // A holder of the streaming token says the project is under acme/platform (where contractor-x is not allowed).
    const forged = { id: 999_999, entity_id: contractor.id, entity_type: "Group", event_type: "project_group_link_created", created_at: new Date().toISOString(), details: { target_id: project.id, target_type: "Project", target_details: "acme/platform/lie" }, target_details: "acme/platform/lie" };
    const { handler } = await import("../../functions/events.ts");
    expect(await handler(streamDelivery(forged), lambdaContext({ functionName: "warden-test-Events" }))).toMatchObject({ statusCode: 200 });
    expect(await Promise.all(runs)).toEqual([{ subject: `project ${project.id}`, ran: true, removed: 0 }]);
    expect(projectShares()).toEqual(before);
    expect(nonGet()).toEqual(["POST /projects/:id/share"]);
  });
});
