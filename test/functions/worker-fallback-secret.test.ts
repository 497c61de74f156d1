/**
 * The Worker's fallback (a chat run whose answer the thread did not take is told on the deployment's webhook)
 * first read the secret at the run's end, unbounded. The cache keeps a read 5 minutes (secrets.ts TTL_MS), and
 * the fallback is for runs that took long, so that was a fresh GetSecretValue, through a client with no
 * timeout, with no slice of the time left: a Secrets Manager (or the path to it) that did not answer held the
 * Worker until Lambda ended it, the channel untold (a review of 833dbc3's finding). The webhook's URL is read
 * with the run's start now.
 *
 * Time: only `Date` is faked. The GitLab simulator moves it 6 minutes on at its first request (a sweep of a
 * large scope), past the secret cache's 5 minutes; from then on the Secrets Manager stand-in takes requests
 * and never answers. The Slack stand-in answers 503 to the one post to the response_url.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { SECRET_ARN } from "../../sim/aws/events.ts";
import { generateOrganisation } from "../../sim/gitlab/index.ts";
import { applyingEnforce } from "../support/chat-command.ts";
import { CHAT_PIPELINE_POLICY } from "../support/policies.ts";
import { scriptedServer, type ScriptedServer } from "../support/server.ts";
import { lambdaContext, SECRETS } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";

let slack: ScriptedServer;
const webhook: string[] = [];
let secretsManager: Server;
let secretsUrl = "";
let hang = false;
const held: ServerResponse[] = [];
const reads: string[] = [];

beforeAll(async () => {
  slack = await scriptedServer((req, res) => {
    if (req.url.startsWith("/commands/")) return void res.writeHead(503, { "content-type": "text/plain" }).end("service_unavailable");
    webhook.push(req.body);
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
  });
  secretsManager = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk));
    req.on("end", () => {
      reads.push(hang ? "held" : "answered");
      if (hang) return void held.push(res);
      const { SecretId } = JSON.parse(body) as { SecretId: string };
      const secret = JSON.stringify({ ...SECRETS, slackWebhookUrl: `${slack.origin}/services/T0001/B0001/hook-secret-0123456789abcdef` });
      res.writeHead(200, { "content-type": "application/x-amz-json-1.1" }).end(JSON.stringify({ ARN: SecretId, Name: "warden", VersionId: "v1", SecretString: secret, VersionStages: ["AWSCURRENT"], CreatedDate: 1.7e9 }));
    });
  });
  await new Promise<void>((resolve) => secretsManager.listen(0, "127.0.0.1", resolve));
  secretsUrl = `http://127.0.0.1:${(secretsManager.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const res of held) res.destroy();
  secretsManager.closeAllConnections();
  await new Promise<void>((resolve) => secretsManager.close(() => resolve()));
  await slack.close();
});

const world = lambdaWorld({
  dynamo: true,
  policy: CHAT_PIPELINE_POLICY,
  gitlab: () => ({ dataset: generateOrganisation({ projects: 60, seed: 11 }).dataset }),
  env: () => ({ WARDEN_SLACK_RESPONSE_ORIGIN: slack.origin, WARDEN_REPORT_ONLY: "false", AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsUrl, WARDEN_SECRET_ARN: SECRET_ARN }),
});

afterEach(() => vi.useRealTimers());

describe("the Worker's fallback to the webhook, when Secrets Manager does not answer at the run's end", () => {
  it("ends within the invocation and tells the webhook, its URL read with the run's start", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now());
    let moved = false;
    world.gitlab.beforeAnswer(() => {
      if (moved) return;
      moved = true;
      vi.setSystemTime(Date.now() + 6 * 60_000);
      hang = true;
    });
    const event = applyingEnforce(slack.origin);
    vi.resetModules();
    const { handler } = await import("../../functions/worker.ts");
    // 20 s left once the sweep's 6 minutes have passed.
    const context = lambdaContext({ functionName: "warden-test-Worker", remainingMs: 6 * 60_000 + 20_000 });
    const ended = await Promise.race([
      (handler(event as never, context) as Promise<{ posted: boolean }>).then((r) => ({ ended: "returned", ...r })),
      new Promise<{ ended: string }>((resolve) => setTimeout(() => resolve({ ended: "still running 22 s (real) after the sweep, which left the invocation 20 s" }), 22_000)),
    ]);
    const removed = world.gitlab.counters.byRoute["DELETE /projects/:id/share/:group_id"] ?? 0;
    expect(removed).toBeGreaterThan(0);
    expect({ ended, told: webhook.length, reads }).toEqual({ ended: { ended: "returned", posted: false }, told: 1, reads: ["answered"] });
  }, 60_000);
});
