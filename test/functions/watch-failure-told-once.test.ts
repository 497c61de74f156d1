/**
 * A watch poll that fails for a reason that lasts (the jobs' token expired or revoked, GitLab's audit
 * listing answering 500 for one corrupt row, a proxy's loop) fails every minute, and each failed poll
 * posted "Warden enforce failed" to the deployment's Slack channel: 1,440 identical posts a day (the
 * second watch review's finding). A Watch poll's summary is told once in 6 hours now, as a stream run's
 * (functions/shared/runs/told-once.ts); an alarm notifies once as its state changes.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { WatchResult } from "../../functions/watch.ts";
import { JOB_SECRETS, lambdaContext } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/slack-webhook-receiver.ts";
import { watchPolicyText, watchWorld } from "../support/watch-world.ts";

let slack: WebhookReceiver;
beforeAll(async () => {
  slack = await startWebhookReceiver("webhook0secret0part0000w");
});
afterAll(() => slack.close());
const world = lambdaWorld({
  secret: () => JSON.stringify({ ...JOB_SECRETS, slackWebhookUrl: slack.webhookUrl }),
  dynamo: true,
  policy: watchPolicyText(),
  // The jobs' token (glpat-sim-admin) is not among the tokens GitLab takes: it expired, or was revoked.
  gitlab: () => ({ dataset: watchWorld(), tokens: { root: { admin: true } } }),
  env: () => ({ WARDEN_REPORT_ONLY: "false", WARDEN_SLACK_RESPONSE_ORIGIN: slack.origin }),
});
beforeEach(() => {
  slack.posts = [];
});

async function scheduledPoll(): Promise<WatchResult | Error> {
  vi.resetModules();
  const { handler } = await import("../../functions/watch.ts");
  return (handler({ source: "schedule" } as never, lambdaContext()) as Promise<WatchResult>).catch((err: Error) => err);
}

describe("the same watch failure, minute after minute", () => {
  it("is posted to Slack once, not at every poll", async () => {
    for (let minute = 0; minute < 5; minute++) expect(await scheduledPoll()).toBeInstanceOf(Error);
    expect(world.gitlab.url).toBeTruthy();
    expect(slack.posts.length).toBeGreaterThan(0);
    expect(JSON.stringify(slack.posts[0])).toContain("Warden enforce failed");
    expect(slack.posts).toHaveLength(1);
  });
});
