/**
 * When the durable Enforce gives its lease back. It gave it back before it stored its report and wrote
 * rules:last-sweep (the together review's suspicion): a console `{ "restore": "latest" }` that took the
 * lease in that window located the run before the one just finished, and a sweep starting then read the
 * last-sweep record before it. It gives it back once both are written now, and before the Slack summary,
 * whose post may take long.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Claims } from "../../../functions/shared/state/claims.ts";
import type { EnforceReport } from "../../../lib/jobs/index.ts";
import { generateOrganisation } from "../../../sim/gitlab/index.ts";
import { durableWorld, timedRunner } from "../../support/durable-world.ts";
import { SECRETS } from "../../support/lambda.ts";
import { standardPolicy } from "../../support/policies.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../../support/slack-webhook-receiver.ts";

const BUCKET = "warden-runs";
/** Started first: the jobs' secret names its webhook. */
let slack: WebhookReceiver;
beforeAll(async () => {
  slack = await startWebhookReceiver("Lr4sT8vX2nQ6wZ9cB3mK7pYd");
});
afterAll(() => slack.close());
const world = durableWorld({
  skipTime: true,
  s3: true,
  secret: () => JSON.stringify({ ...SECRETS, slackWebhookUrl: slack.webhookUrl }),
  policy: `${standardPolicy()}notify:\n  slack: always\n`,
  gitlab: () => ({ dataset: generateOrganisation({ projects: 40, seed: 5 }).dataset }),
  env: () => ({ WARDEN_REPORT_ONLY: "false", WARDEN_RUN_HISTORY_BUCKET: BUCKET, WARDEN_SLACK_RESPONSE_ORIGIN: slack.origin }),
});

describe("a durable sweep that removed shares", () => {
  it("gives its lease back after its report is stored and rules:last-sweep written, and before its Slack summary is posted", async () => {
    vi.resetModules();
    const { dynamoClaims } = await import("../../../functions/shared/state/claims.ts");
    const { dynamoLastSweep } = await import("../../../functions/shared/state/last-sweep.ts");
    const { durableJob } = await import("../../../functions/shared/durable/job.ts");
    // What another execution taking the lease just after the release would find.
    const seen: { stored: string[]; lastSweep: boolean; posts: number }[] = [];
    const claims = dynamoClaims();
    const observed: Claims = {
      ...claims,
      async release(key, holder, signal) {
        seen.push({ stored: [...world.s3.objects.keys()].filter((k) => k.startsWith(`${BUCKET}/runs/enforce/schedule/`)), lastSweep: (await dynamoLastSweep().read()) !== undefined, posts: slack.posts.length });
        return claims.release(key, holder, signal);
      },
    };
    const { runner } = timedRunner<EnforceReport>(durableJob("enforce", { claims: observed }) as never, 60_000);
    const execution = await runner.run({ payload: { source: "schedule" } });
    expect(execution.getStatus(), execution.getStatus() === "SUCCEEDED" ? "" : execution.getError()?.errorMessage).toBe("SUCCEEDED");
    expect(execution.getResult()!.summary.removed).toBeGreaterThan(0);
    expect(seen).toEqual([{ stored: [expect.stringMatching(/\.json$/)], lastSweep: true, posts: 0 }]);
    // Given back, and the summary posted after.
    expect(await claims.holder("lease:enforce")).toBeUndefined();
    expect(slack.posts).toHaveLength(1);
  }, 60_000);
});
