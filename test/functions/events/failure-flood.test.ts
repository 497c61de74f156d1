/**
 * The stream's Slack summaries while GitLab (or a proxy before it) fails to answer a subject's read. A
 * stream run whose subject GitLab could not read fails with "project <id> could not be read: …"
 * (functions/shared/events/subject-run.ts), and told-once.ts posted a failure once per 6 hours per
 * distinct error text (until the stream12 review; it is told as one failure now). The id is the sender's: a holder of the streaming token names as many ids as they
 * like (ids of nothing at all: GitLab never gets to say "not found"), each a new text, each a new post to
 * the deployment's channel, bounded only by the hour's request budget (3,600 by default, one request a run
 * when the answer is a 403). One failure of GitLab's is one thing to tell, not one per id a sender names.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { SubjectWorkerEvent } from "../../../functions/shared/runs/job-request.ts";
import { streamDelivery } from "../../../sim/aws/gitlab-deliveries.ts";
import { JOB_SECRETS, lambdaContext } from "../../support/lambda.ts";
import { lambdaWorld } from "../../support/lambda-world.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../../support/slack-webhook-receiver.ts";
import { forgedShareEvent, WATCH_TOKENS, watchPolicyText, watchWorld } from "../../support/watch-world.ts";

let slack: WebhookReceiver;
beforeAll(async () => {
  slack = await startWebhookReceiver("webhook0secret0part0000z");
});
afterAll(() => slack.close());
const world = lambdaWorld({
  secret: () => JSON.stringify({ ...JOB_SECRETS, slackWebhookUrl: slack.webhookUrl }),
  dynamo: true,
  lambdaApi: true,
  policy: `${watchPolicyText()}notify:\n  slack: changes\n`,
  gitlab: () => ({ dataset: watchWorld(), tokens: WATCH_TOKENS }),
  env: () => ({ WARDEN_REPORT_ONLY: "false", WARDEN_WORKER_FUNCTION: "warden-test-EventsWorker", WARDEN_WORKER_TAKES: "subject", WARDEN_SLACK_RESPONSE_ORIGIN: slack.origin }),
});
beforeEach(() => {
  slack.posts = [];
});

async function deliverAndRun(events: object[]): Promise<void> {
  world.lambdaApi.invokes = [];
  for (const event of events) {
    vi.resetModules();
    const { handler } = await import("../../../functions/events.ts");
    await handler(streamDelivery(event), lambdaContext({ functionName: "warden-test-Events" }));
  }
  for (const invoke of world.lambdaApi.invokes) {
    vi.resetModules();
    const { handler: worker } = await import("../../../functions/worker.ts");
    await (worker(JSON.parse(invoke.payload) as SubjectWorkerEvent as never, lambdaContext({ functionName: "warden-test-EventsWorker" })) as Promise<unknown>).catch(() => undefined);
  }
}

describe("the stream's failure summaries while GitLab refuses every project read", () => {
  it("one GitLab failure is posted once, not once per project id a holder of the streaming token names (ids of no project included)", async () => {
    // A proxy's rule (or GitLab failing): every GET /projects/:id answered 403, which is not retried.
    world.gitlab.addFaults({ kind: "status", status: 403, method: "GET", route: "GET /projects/:id", times: 10_000 });
    // Ten forged events, each naming an id no project has.
    await deliverAndRun(Array.from({ length: 10 }, (_, i) => forgedShareEvent(860_000 + i, 7_000_000 + i)));
    const failures = slack.posts.filter((p) => JSON.stringify(p).includes("could not be read"));
    expect(failures.length, `each id named made its own post to the channel: ${failures.length} posts about projects that do not exist`).toBeLessThanOrEqual(1);
  }, 60_000);
});
