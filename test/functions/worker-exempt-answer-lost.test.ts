/**
 * The today8 review, on 6f108ce ("an exemption Slack's thread did not take is told on the webhook"). The
 * fallback ran only when exempt() returned normally. When the merge request's POST reached GitLab and its
 * answer was lost (or GitLab failed it after the branch and commit were made), exempt() threw a refusal
 * ("the exemption was committed on branch …"), answered to the requester alone, and a thread that did not
 * take it left the branch, the commit and (here) the merge request itself on the policy repository with
 * nobody in Slack told. It is an ExemptCommittedError now: a change, told in the channel or on the webhook.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { WorkerEvent } from "../../functions/shared/runs/job-request.ts";
import { compareWorld, POLICY_PROJECT } from "../support/compare-world.ts";
import { scriptedServer, type ScriptedServer } from "../support/server.ts";
import { lambdaContext, SECRETS } from "../support/lambda.ts";
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
  gitlab: () => ({
    dataset: compareWorld(),
    tokens: { [SECRETS.gitlabToken]: { admin: true } },
    // GitLab opens the merge request, and its answer is lost on the way back.
    faults: [{ kind: "apply-then-drop", method: "POST", route: "POST /projects/:id/merge_requests", times: 1 }],
  }),
  env: () => ({ WARDEN_SLACK_RESPONSE_ORIGIN: slack.origin, WARDEN_REPORT_ONLY: "false", WARDEN_POLICY: undefined, WARDEN_POLICY_PROJECT: POLICY_PROJECT, WARDEN_POLICY_PATH: PATH }),
});
beforeEach(() => {
  const repo = world.gitlab.dataset.projects.find((p) => p.path_with_namespace === POLICY_PROJECT)!;
  world.gitlab.repositories.commit(repo, { [PATH]: POLICY });
  slack.received.length = 0;
});

describe("/warden exempt whose merge request's answer is lost, and whose thread does not take the answer", () => {
  it("tells the deployment's webhook that a branch and commit (and perhaps a merge request) were made on the policy repository", async () => {
    const event: WorkerEvent = {
      command: { job: "exempt", project: "acme/app/api", group: "strangers", until: "2099-12-31", reason: "pen test", apply: true },
      responseUrl: `${slack.origin}/commands/T0001/1234/abcd`,
      user: { id: APPLIER, name: "ada" },
      channelId: CHANNEL,
      correlationId: crypto.randomUUID(),
      sentAt: Math.floor(Date.now() / 1000),
    };
    vi.resetModules();
    const { handler } = await import("../../functions/worker.ts");
    const result = (await handler(event as never, lambdaContext({ functionName: "warden-test-Worker" }))) as { posted: boolean };
    // The change was made: a commit on a new branch, and the merge request GitLab opened.
    expect(world.gitlab.counters.byRoute["POST /projects/:id/merge_requests"]).toBeGreaterThanOrEqual(1);
    expect(result.posted).toBe(false);
    const webhook = slack.received.filter((r) => r.url.startsWith("/services/"));
    expect(webhook, "a branch, a commit and a merge request were made on the policy repository and nobody in Slack was told").toHaveLength(1);
    expect(webhook[0]!.body).toMatch(/committed on branch/);
  });
});
