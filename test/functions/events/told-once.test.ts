/**
 * The stream's summaries, each finding told once (functions/shared/runs/told-once.ts). Whoever holds the
 * streaming token can name the same subject in delivery after delivery (a new id each: a new claim); on
 * a report-only stage nothing is removed, so every run finds the same stray, and each posted it to the
 * channel again (a hostile review's finding: ten deliveries, ten identical summaries). Now a run posts
 * only a summary no stream run posted in the last 6 hours; a new finding is posted at once.
 *
 * The path an event gives its subject is the sender's text too (delivery.ts). It named the subject in the
 * error of a run GitLab failed to read, the failure summary's text and what told-once hashes: so while
 * GitLab failed to answer for a subject, the token's holder had Warden post that a project it named by any
 * path could not be read, and a new post for every new label (a third review of the events path).
 * Subjects are named by kind and id now (subject-run.ts); the path is logged as `eventPath` alone.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { SubjectWorkerEvent } from "../../../functions/shared/runs/job-request.ts";
import { streamDelivery } from "../../../sim/aws/gitlab-deliveries.ts";
import { JOB_SECRETS, lambdaContext } from "../../support/lambda.ts";
import { lambdaWorld } from "../../support/lambda-world.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../../support/slack-webhook-receiver.ts";
import { forgedShareEvent, IDS, share, WATCH_TOKENS, watchPolicyText, watchWorld } from "../../support/watch-world.ts";

let slack: WebhookReceiver;
beforeAll(async () => {
  slack = await startWebhookReceiver("webhook0secret0part0000y");
});
afterAll(() => slack.close());
const world = lambdaWorld({
  secret: () => JSON.stringify({ ...JOB_SECRETS, slackWebhookUrl: slack.webhookUrl }),
  dynamo: true,
  lambdaApi: true,
  policy: `${watchPolicyText()}notify:\n  slack: changes\n`,
  gitlab: () => ({ dataset: watchWorld(), tokens: WATCH_TOKENS }),
  // Report-only: the stage's strays are reported, never removed.
  env: () => ({ WARDEN_REPORT_ONLY: "true", WARDEN_WORKER_FUNCTION: "warden-test-EventsWorker", WARDEN_WORKER_TAKES: "subject", WARDEN_SLACK_RESPONSE_ORIGIN: slack.origin }),
});
beforeEach(() => {
  slack.posts = [];
});

/** Each event delivered alone, then each run by the EventsWorker as Lambda would (`failing`: its failure swallowed, as Lambda does not retry it). */
async function deliverAndRun(events: object[], failing = false): Promise<void> {
  world.lambdaApi.invokes = [];
  for (const event of events) {
    vi.resetModules();
    const { handler } = await import("../../../functions/events.ts");
    await handler(streamDelivery(event), lambdaContext({ functionName: "warden-test-Events" }));
  }
  for (const invoke of world.lambdaApi.invokes) {
    vi.resetModules();
    const { handler: worker } = await import("../../../functions/worker.ts");
    const run = worker(JSON.parse(invoke.payload) as SubjectWorkerEvent as never, lambdaContext({ functionName: "warden-test-EventsWorker" })) as Promise<unknown>;
    await (failing ? run.catch(() => undefined) : run);
  }
}

describe("the stream's summaries of one subject, named again and again", () => {
  it("ten deliveries about one unchanged stray post it once; another stray's is posted at once", async () => {
    await share(world.gitlab, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    await deliverAndRun(Array.from({ length: 10 }, (_, i) => forgedShareEvent(880_000 + i, IDS.app)));
    expect(slack.posts).toHaveLength(1);
    expect(JSON.stringify(slack.posts[0])).toContain("trigger event");
    await share(world.gitlab, "jane", `/projects/${IDS.api}/share`, IDS.partners);
    await deliverAndRun([forgedShareEvent(880_100, IDS.api), forgedShareEvent(880_101, IDS.app)]);
    expect(slack.posts).toHaveLength(2);
    expect(slack.problems).toEqual([]);
  });
});

describe("a stream run GitLab failed to read, as Slack is told of it", () => {
  /** A forged share event about acme/app, its target path the sender's text. */
  const labelled = (id: number, path: string) => ({ ...forgedShareEvent(id, IDS.app), details: { target_id: IDS.app, target_type: "Project", target_details: path } });
  // A 403 (a proxy's rule, say): not retried, so the run fails at once.
  const unreadable = () => world.gitlab.addFaults({ kind: "status", status: 403, method: "GET", path: `/api/v4/projects/${IDS.app}`, times: 1_000 });

  it("names the subject by its id, never by the path the sender wrote", async () => {
    unreadable();
    await deliverAndRun([labelled(870_001, "acme/payroll-secrets")], true);
    expect(slack.posts).toHaveLength(1);
    expect(JSON.stringify(slack.posts)).toContain(`project ${IDS.app} could not be read`);
    expect(JSON.stringify(slack.posts)).not.toContain("payroll-secrets");
  });

  it("posts the same failure of the same project once, whatever label each event gives it", async () => {
    unreadable();
    await deliverAndRun(Array.from({ length: 5 }, (_, i) => labelled(871_000 + i, `acme/label-${i}`)), true);
    expect(slack.posts).toHaveLength(1);
  });

  it("posts one GitLab failure once, not once per project id a holder of the streaming token names (ids of no project included: the stream12 review)", async () => {
    // A proxy's rule (or GitLab failing): every GET /projects/:id answered 403, which is not retried.
    world.gitlab.addFaults({ kind: "status", status: 403, method: "GET", route: "GET /projects/:id", times: 10_000 });
    await deliverAndRun(Array.from({ length: 10 }, (_, i) => forgedShareEvent(860_000 + i, 7_000_000 + i)), true);
    const failures = slack.posts.filter((p) => JSON.stringify(p).includes("could not be read"));
    expect(failures.length, `each id named made its own post to the channel: ${failures.length} posts about projects that do not exist`).toBeLessThanOrEqual(1);
  }, 60_000);
});
