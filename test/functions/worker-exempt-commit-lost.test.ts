/**
 * `/warden exempt` in the Worker when the commit's answer is lost after GitLab made it (the exempt10 review).
 * Warden's branch and commit are on the policy repository, made with the administrator's token: told as
 * a change, in the channel (and on the webhook, should the thread not take it), as a lost merge request
 * answer is (worker-exempt-thread-gone.test.ts), naming the branch, with an `exemption-committed` audit line
 * saying the commit may have been made.
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
  slack = await scriptedServer((_req, res) => void res.writeHead(200, { "content-type": "text/plain" }).end("ok"));
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

const exemption = (): WorkerEvent => ({
  command: { job: "exempt", project: "acme/app/api", group: "strangers", until: "2099-12-31", reason: "pen test", apply: true },
  responseUrl: `${slack.origin}/commands/T0001/1234/abcd`,
  user: { id: APPLIER, name: "ada" },
  channelId: CHANNEL,
  correlationId: crypto.randomUUID(),
  sentAt: Math.floor(Date.now() / 1000),
});

async function work(event: WorkerEvent): Promise<unknown> {
  vi.resetModules();
  const { handler } = await import("../../functions/worker.ts");
  return handler(event as never, lambdaContext({ functionName: "warden-test-Worker" }));
}

describe("/warden exempt whose commit's answer is lost", () => {
  it("the branch and commit GitLab made are told in the channel and in an exemption-committed audit line, naming the branch", async () => {
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
    // The change was made on the policy repository: Warden's branch, with the commit.
    expect(made).toEqual([expect.stringMatching(/^warden\/exempt-acme-app-api-strangers-[0-9a-f]{8}$/)]);
    const posts = slack.received.map((r) => JSON.parse(r.body) as { text?: string; response_type?: string });
    // Told as a change (in the channel, as a lost merge request answer is), naming the branch: not an ephemeral ":x: … failed".
    expect(posts.some((p) => p.response_type === "in_channel" && (p.text ?? "").includes(made[0]!)), `posted: ${JSON.stringify(posts)}`).toBe(true);
    expect(lines).toContainEqual(expect.objectContaining({ message: "exemption-committed" }));
    // Read back, the branch's head is Warden's commit: the line says it was made.
    expect(lines).toContainEqual(expect.objectContaining({ message: "exemption-committed", committed: "yes", error: expect.stringContaining(made[0]!) }));
  });
});
