/**
 * The chat Worker's read of a repository policy is cut at the invocation's deadline: a GitLab (or a proxy)
 * that answers the read 429 with a long Retry-After (GitLab asks for 60-900 s; lib/http waits up to 15
 * minutes) would otherwise hold the Worker until Lambda ends it (here: middy's own timeout, as the real
 * runtime would), with nobody told: no post to the command's response_url, no `job failed` line, no metric.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { WorkerEvent } from "../../functions/shared/runs/job-request.ts";
import { compareWorld, POLICY_PROJECT } from "../support/compare-world.ts";
import { scriptedServer, type ScriptedServer } from "../support/server.ts";
import { emfRecords } from "../support/emf.ts";
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
`;

let slack: ScriptedServer;
beforeAll(async () => {
  slack = await scriptedServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("ok");
  });
});
afterAll(() => slack.close());
const world = lambdaWorld({
  dynamo: true,
  gitlab: () => ({ dataset: compareWorld(), tokens: { [SECRETS.gitlabToken]: { admin: true } } }),
  env: () => ({ WARDEN_SLACK_RESPONSE_ORIGIN: slack.origin, WARDEN_REPORT_ONLY: "false", WARDEN_POLICY: undefined, WARDEN_POLICY_PROJECT: POLICY_PROJECT, WARDEN_POLICY_PATH: PATH }),
});
beforeEach(() => {
  const repo = world.gitlab.dataset.projects.find((p) => p.path_with_namespace === POLICY_PROJECT)!;
  world.gitlab.repositories.commit(repo, { [PATH]: POLICY });
  slack.received.length = 0;
});

describe("the Worker's repository policy read and the invocation's deadline", () => {
  it("a policy read GitLab answers 429 with a 10-minute Retry-After is cut at the deadline: the invocation ends normally, the user told, the failure logged", { timeout: 40_000 }, async () => {
    world.gitlab.addFaults({ kind: "429", headers: "retry-after", seconds: 600, method: "GET", times: 100 });
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    vi.stubEnv("POWERTOOLS_METRICS_DISABLED", "false");
    vi.resetModules();
    const { handler } = await import("../../functions/worker.ts");
    const event: WorkerEvent = {
      command: { job: "enforce", apply: false },
      responseUrl: `${slack.origin}/commands/T0001/1234/abcd`,
      user: { id: APPLIER, name: "ada" },
      channelId: CHANNEL,
      correlationId: "req-chatops-deadline",
      sentAt: Math.floor(Date.now() / 1000),
    };
    // 15 s left in the invocation: the deadline signal (deadline.ts) fires at 5 s, 10 s kept for reporting.
    const remainingMs = 15_000;
    const outcome = await handler(event as never, lambdaContext({ functionName: "warden-test-Worker", remainingMs })).then(
      () => "returned",
      (err: unknown) => `failed: ${String(err)}`,
    );
    const lines = logs.lines();
    logs.restore();
    // Before: "failed: TimeoutError" at 15 s (middy ending the invocation, as Lambda would), nothing posted, no `job failed`.
    expect(outcome).toBe("returned");
    expect(slack.received).toHaveLength(1);
    expect(lines).toContainEqual(expect.objectContaining({ message: expect.stringMatching(/job failed|chat-command not run/) as string }));
    // The log names what was cut; the caller, not yet checked against the policy, learns nothing of why.
    expect(lines).toContainEqual(expect.objectContaining({ message: "job failed", error: expect.stringContaining(`the policy's read from ${POLICY_PROJECT} was cut off (the Lambda times out in 10 s)`) as string }));
    expect(slack.received[0]!.body).toContain("could not check `enforce` against its policy");
    expect(emfRecords(lines)).toEqual([expect.objectContaining({ RunFailed: 1 })]);
  });
});
