/**
 * `/warden exempt` opens a branch, a commit and a merge request on the policy repository (a change), and
 * answers in the command's thread. When Slack does not take that answer (a 503, or the response_url
 * expired after the command waited in the Worker's queue), the same message goes to the deployment's
 * webhook, as a run that changed something is told there (worker-thread-gone.test.ts), so the merge
 * request is not left unseen. So too when the merge request's answer is lost after the branch and commit
 * were made (the today8 review, on 6f108ce: that was answered to the requester alone, as a refusal), and
 * when the commit's own answer is lost after GitLab made it (the exempt10 review: that was a plain failure):
 * its branch is read back and named, with an `exemption-committed` audit line.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { WorkerEvent } from "../../functions/shared/runs/job-request.ts";
import { compareWorld, POLICY_PROJECT } from "../support/compare-world.ts";
import { scriptedServer, type ScriptedServer } from "../support/server.ts";
import { captureLogs, lambdaContext, SECRETS } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";

const APPLIER = "U012ABCDEF";
const CHANNEL = "C0123456";
const PATH = "policies/warden.yaml";
const POLICY = `version: 1
gitlab:
  scope: { groups: [acme] }
  shares:
    allow:
      - group: "acme/**"
chatops:
  slack:
    users: ["${APPLIER}"]
    channels: ["${CHANNEL}"]
    applyUsers: ["${APPLIER}"]
`;

let slack: ScriptedServer;
beforeAll(async () => {
  // Slack fails the response_url post (503); the deployment's incoming webhook takes posts.
  slack = await scriptedServer((req, res) => {
    if (req.url.startsWith("/commands/")) return void res.writeHead(503, { "content-type": "text/plain" }).end("service_unavailable");
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
  });
});
afterAll(() => slack.close());

const world = lambdaWorld({
  dynamo: true,
  secret: () => JSON.stringify({ ...SECRETS, slackWebhookUrl: `${slack.origin}/services/T0001/B0001/hook-secret-0123456789abcdef` }),
  gitlab: () => ({ dataset: compareWorld(), tokens: { [SECRETS.gitlabToken]: { admin: true } } }),
  env: () => ({ WARDEN_SLACK_RESPONSE_ORIGIN: slack.origin, WARDEN_REPORT_ONLY: "false", WARDEN_POLICY: undefined, WARDEN_POLICY_PROJECT: POLICY_PROJECT, WARDEN_POLICY_PATH: PATH }),
});
beforeEach(() => {
  const repo = world.gitlab.dataset.projects.find((p) => p.path_with_namespace === POLICY_PROJECT)!;
  world.gitlab.repositories.commit(repo, { [PATH]: POLICY });
  slack.received.length = 0;
});

/** The exemption asked of the Worker, its response_url the one Slack refuses. */
const exemption = (): WorkerEvent => ({
  command: { job: "exempt", project: "acme/app/api", group: "strangers", until: "2099-12-31", reason: "pen test", apply: true },
  responseUrl: `${slack.origin}/commands/T0001/1234/abcd`,
  user: { id: APPLIER, name: "ada" },
  channelId: CHANNEL,
  correlationId: crypto.randomUUID(),
  sentAt: Math.floor(Date.now() / 1000),
});

async function work(event: WorkerEvent): Promise<{ posted: boolean }> {
  vi.resetModules();
  const { handler } = await import("../../functions/worker.ts");
  return (await handler(event as never, lambdaContext({ functionName: "warden-test-Worker" }))) as { posted: boolean };
}

describe("/warden exempt whose answer Slack does not take", () => {
  it("opens the merge request, and tells the deployment's webhook of it since the thread did not take the answer", async () => {
    const result = await work(exemption());
    expect(world.gitlab.counters.byRoute["POST /projects/:id/merge_requests"]).toBe(1);
    expect(result.posted).toBe(false);
    const webhook = slack.received.filter((r) => r.url.startsWith("/services/"));
    expect(webhook, "a merge request was opened on the policy repository and nobody in Slack was told").toHaveLength(1);
    // The thread's own message: who asked, what, and the merge request (the one link); no response_type.
    const told = JSON.parse(webhook[0]!.body) as Record<string, unknown>;
    expect(told).toEqual({ text: expect.stringMatching(/^:memo: Exemption requested by Slack user U012ABCDEF: .*\nMerge request <http[^|>]+\|!\d+>: merging it is the approval\.\nReason: pen test$/), blocks: [expect.objectContaining({ type: "section" })] });
  });

  it("a merge request whose answer is lost after the branch and commit were made: the webhook is told of the branch and commit", async () => {
    // GitLab opens the merge request, and its answer is lost on the way back.
    world.gitlab.addFaults({ kind: "apply-then-drop", method: "POST", route: "POST /projects/:id/merge_requests", times: 1 });
    const result = await work(exemption());
    // The change was made: a commit on a new branch, and the merge request GitLab opened.
    expect(world.gitlab.counters.byRoute["POST /projects/:id/merge_requests"]).toBeGreaterThanOrEqual(1);
    expect(result.posted).toBe(false);
    const webhook = slack.received.filter((r) => r.url.startsWith("/services/"));
    expect(webhook, "a branch, a commit and a merge request were made on the policy repository and nobody in Slack was told").toHaveLength(1);
    expect(webhook[0]!.body).toMatch(/committed on branch/);
  });

  it("a commit whose answer is lost after GitLab made it: its branch, read back, is named to the webhook, and the audit line says it was committed", async () => {
    const repo = world.gitlab.dataset.projects.find((p) => p.path_with_namespace === POLICY_PROJECT)!;
    const before = [...repo.branches];
    world.gitlab.addFaults({ kind: "apply-then-drop", method: "POST", route: "POST /projects/:id/repository/commits", times: 1 });
    const logs = captureLogs();
    // Audit lines are info: the test setup's log level would drop them.
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    let lines: Record<string, unknown>[];
    try {
      await work(exemption());
      // Read before restore: restoring the spies clears what they caught.
      lines = logs.lines();
    } finally {
      logs.restore();
    }
    const made = repo.branches.filter((b) => !before.includes(b));
    expect(made).toEqual([expect.stringMatching(/^warden\/exempt-acme-app-api-strangers-[0-9a-f]{8}$/)]);
    expect(world.gitlab.counters.byRoute["POST /projects/:id/merge_requests"]).toBeUndefined();
    const webhook = slack.received.filter((r) => r.url.startsWith("/services/"));
    expect(webhook, "a branch and a commit were made on the policy repository and nobody in Slack was told").toHaveLength(1);
    expect(webhook[0]!.body).toContain(`committed on branch ${made[0]!}`);
    expect(lines).toContainEqual(expect.objectContaining({ message: "exemption-committed", committed: "yes", error: expect.stringContaining(made[0]!) }));
  });
});
