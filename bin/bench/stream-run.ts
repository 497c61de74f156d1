/**
 * The stream row's run, in a process of its own (`node bin/bench/stream-run.ts <events> <latencyMs>`):
 * the Events and EventsWorker functions' handlers as Lambda runs them, with what they find around them in
 * AWS stood in for on loopback (Secrets Manager, S3, dynalite for the claims, and Lambda's Invoke API,
 * which runs the EventsWorker on its own time as an asynchronous invoke does), and a GitLab simulator at the
 * given latency. One share at a time: a person adds a stray share, GitLab streams its audit event, and
 * the time runs until the share is gone. Prints one JSON line: each share's milliseconds from its
 * creation to its removal, and the GitLab requests each cost (the person's POST left out).
 */
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Context } from "aws-lambda";
import { startDynalite } from "../../sim/aws/dynalite.ts";
import { GITLAB_EVENT_TOKENS, streamDelivery, streamedAuditEvent } from "../../sim/aws/gitlab-deliveries.ts";
import { generateOrganisation, startGitLabSim } from "../../sim/gitlab/index.ts";
import { ISOLATED_AWS_ENV } from "./aws-stand-ins.ts";

const [events = "20", latency = "20", policyFile = ""] = process.argv.slice(2);
const SECRET_ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:warden-bench-stream";
const EVENTS_SECRET_ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:warden-bench-stream-events";
const WAIT_MS = 60_000;

const gitlab = await startGitLabSim({ dataset: generateOrganisation({ projects: 1_000, seed: 7 }).dataset, latencyMs: Number(latency) });
const dynamo = await startDynalite();
const context = (functionName: string): Context =>
  ({ functionName, awsRequestId: crypto.randomUUID(), getRemainingTimeInMillis: () => 600_000, invokedFunctionArn: `arn:aws:lambda:eu-west-1:123456789012:function:${functionName}` }) as Context;

let worker: ((event: unknown, context: Context) => Promise<unknown>) | undefined;
const runs: Promise<unknown>[] = [];
const aws = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk: Buffer) => (body += chunk.toString()));
  req.on("end", () => {
    if (req.headers["x-amz-target"] === "secretsmanager.GetSecretValue") {
      res.writeHead(200, { "content-type": "application/x-amz-json-1.1" });
      // The Events function reads the events' secret, the EventsWorker the jobs'.
      const ofEvents = (JSON.parse(body) as { SecretId?: string }).SecretId === EVENTS_SECRET_ARN;
      const secret = ofEvents ? GITLAB_EVENT_TOKENS : { gitlabToken: gitlab.token };
      res.end(JSON.stringify({ ARN: ofEvents ? EVENTS_SECRET_ARN : SECRET_ARN, Name: "warden", VersionId: "v1", SecretString: JSON.stringify(secret), VersionStages: ["AWSCURRENT"], CreatedDate: 1.7e9 }));
    } else if (req.method === "POST" && req.url?.endsWith("/invocations")) {
      res.writeHead(202).end();
      runs.push(worker!(JSON.parse(body), context("warden-bench-EventsWorker")));
    } else if (req.method === "PUT") {
      res.writeHead(200, { etag: '"0"' }).end();
    } else {
      res.writeHead(400).end();
    }
  });
});
aws.listen(0, "127.0.0.1");
await once(aws, "listening");
const awsUrl = `http://127.0.0.1:${(aws.address() as AddressInfo).port}`;
Object.assign(process.env, {
  ...ISOLATED_AWS_ENV,
  ...(await dynamo.freshClaimsEnv()),
  AWS_ENDPOINT_URL_SECRETS_MANAGER: awsUrl,
  AWS_ENDPOINT_URL_LAMBDA: awsUrl,
  AWS_ENDPOINT_URL_S3: awsUrl,
  WARDEN_SECRET_ARN: SECRET_ARN,
  WARDEN_EVENTS_SECRET_ARN: EVENTS_SECRET_ARN,
  WARDEN_RUN_HISTORY_BUCKET: "warden-bench-runs",
  WARDEN_WORKER_FUNCTION: "warden-bench-EventsWorker",
  // As sst.config.ts deploys it: the events' worker takes subjects alone.
  WARDEN_WORKER_TAKES: "subject",
  WARDEN_POLICY: policyFile,
  WARDEN_REPORT_ONLY: "false",
  GITLAB_URL: gitlab.url,
  POWERTOOLS_LOG_LEVEL: "SILENT",
  POWERTOOLS_METRICS_DISABLED: "true",
});
worker = (await import("../../functions/worker.ts")).handler as never;
const { handler: events_ } = await import("../../functions/events.ts");

const projects = gitlab.dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/platform/"));
const outside = gitlab.dataset.groups.filter((g) => g.full_path.startsWith("partners/") && g.full_path !== "partners/contractor-x");
const samples: { ms: number; answerMs: number; requests: number }[] = [];
let error: string | undefined;
const started = performance.now();
try {
  for (let i = 0; i < Number(events); i++) {
    const project = projects[i % projects.length]!;
    const group = outside.find((g) => !project.shared_with_groups.some((s) => s.group_id === g.id))!;
    const before = gitlab.counters.requests;
    const t0 = performance.now();
    const res = await fetch(`${gitlab.url}/api/v4/projects/${project.id}/share`, {
      method: "POST",
      headers: { "private-token": gitlab.token, "content-type": "application/json" },
      body: JSON.stringify({ group_id: group.id, group_access: 30 }),
    });
    if (res.status !== 201) throw new Error(`the share answered ${res.status}`);
    // GitLab streams the event it recorded (its own delay before sending is not GitLab's to show here).
    const a0 = performance.now();
    const answer = (await events_(streamDelivery(streamedAuditEvent(gitlab.auditEvents.at(-1)!)), context("warden-bench-Events"))) as { statusCode: number };
    const answerMs = performance.now() - a0;
    if (answer.statusCode !== 200) throw new Error(`the Events function answered ${answer.statusCode}`);
    while (project.shared_with_groups.some((s) => s.group_id === group.id)) {
      if (performance.now() - t0 > WAIT_MS) throw new Error(`share ${i + 1} still there after ${WAIT_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const ms = performance.now() - t0;
    await Promise.all(runs);
    samples.push({ ms, answerMs, requests: gitlab.counters.requests - before - 1 });
  }
} catch (err) {
  error = (err as Error).message;
}
process.stdout.write(`${JSON.stringify({ wallMs: performance.now() - started, maxRssKB: process.resourceUsage().maxRSS, removed: samples.length, samples, error })}\n`);
await Promise.all([gitlab.close(), dynamo.close(), new Promise((resolve) => aws.close(resolve))]);
process.exit(0);
