/**
 * What a cold start of the chat-ops Lambda costs, the one function with a deadline (Slack gives up
 * after 3 s). Bundles functions/chatops.ts as SST does, then, in a fresh Node process with the
 * deployed function's environment, times the import of the bundle (module init, which also starts
 * the secret prefetch), the first acknowledgement of a signed slash command, and 20 warm ones, each
 * from a Slack user of its own.
 * Secrets Manager and Lambda's Invoke API are loopback stand-ins reached through the AWS SDK's own
 * per-service endpoint variables, so the real SDK clients run and nothing leaves the machine.
 *
 *   npx node bin/bench/cold-start.ts      # prints the ColdStart as JSON
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { signedCommand } from "../../sim/aws/events.ts";
import { startDynalite } from "../../sim/aws/dynalite.ts";
import { ISOLATED_AWS_ENV } from "./aws-stand-ins.ts";

export interface ColdStart {
  bundleKB: number;
  initMs: number;
  firstAckMs: number;
  warmAckMs: number;
  note: string;
}

const ROOT = join(import.meta.dirname, "../..");
const SECRET_ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:warden-AbCdEf";
const WORKER = "warden-production-WorkerFunction";
const SIGNING_SECRET = "bench-signing-secret-5d41402abc4b2a76";
const CHANNEL = "C0123456";
const WARM_CALLS = 20;
/**
 * One Slack user a command: chat-ops starts at most 5 commands a minute for each person
 * (functions/shared/slack/command-rate.ts), and each command takes its sender's first slot, as a
 * person's first command of the minute does.
 */
const USERS = Array.from({ length: 1 + WARM_CALLS }, (_, i) => `U012ABCDEF${i}`);

const POLICY = `version: 1
chatops:
  slack:
    users: [${USERS.map((user) => `"${user}"`).join(", ")}]
    channels: ["${CHANNEL}"]
`;

/**
 * The fresh process. Plain JavaScript written next to the bundle rather than a mode of this file,
 * because loading this file (esbuild, node:http, ...) would warm up what the bundle then finds ready.
 * It imports only node:fs and node:url, which Node has loaded anyway before running any module.
 */
const CHILD = `
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [bundle, eventsFile, resultFile] = process.argv.slice(2);
const events = JSON.parse(readFileSync(eventsFile, "utf8"));

// A Lambda context as the Node.js runtime passes it (the chat-ops timeout is 10 s).
const context = (event) => ({
  callbackWaitsForEmptyEventLoop: true,
  functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
  functionVersion: "$LATEST",
  invokedFunctionArn: "arn:aws:lambda:eu-west-1:123456789012:function:" + process.env.AWS_LAMBDA_FUNCTION_NAME,
  memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
  awsRequestId: event.requestContext.requestId,
  logGroupName: "/aws/lambda/" + process.env.AWS_LAMBDA_FUNCTION_NAME,
  logStreamName: "2026/11/21/[$LATEST]0123456789abcdef",
  getRemainingTimeInMillis: () => 10000,
  done() {}, fail() {}, succeed() {},
});

let handler;
async function acknowledge(event) {
  const started = performance.now();
  const response = await handler(event, context(event));
  const ms = performance.now() - started;
  // A refusal or a 401 is fast too: only the real acknowledgement counts.
  const text = response.statusCode === 200 ? JSON.parse(response.body).text : "";
  if (!text.startsWith(":hourglass_flowing_sand: Running")) throw new Error("not acknowledged: " + JSON.stringify(response));
  return ms;
}

const started = performance.now();
({ handler } = await import(pathToFileURL(bundle).href));
const initMs = performance.now() - started;
const firstAckMs = await acknowledge(events[0]);
const warmMs = [];
for (const event of events.slice(1)) warmMs.push(await acknowledge(event));
writeFileSync(resultFile, JSON.stringify({ initMs, firstAckMs, warmMs }));
`;

export async function measureColdStart(): Promise<ColdStart> {
  const dir = await mkdtemp(join(tmpdir(), "warden-cold-start-"));
  const aws = await startAwsStandIns();
  // The claims table that keeps each command to one run (DynamoDB's conditional write is on the path).
  const dynamo = await startDynalite();
  try {
    // The Lambda package's layout: the handler under functions/, the policy at the root (copyFiles).
    const bundle = join(dir, "functions", "chatops.mjs");
    await build({
      entryPoints: [join(ROOT, "functions/chatops.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node24",
      outfile: bundle,
      write: true,
      // SST's default (nodejs.minify); a smaller file is also less to parse at init.
      minify: true,
      logLevel: "error",
      banner: { js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);" },
    });
    await writeFile(join(dir, "warden.yaml"), POLICY);
    await writeFile(join(dir, "child.mjs"), CHILD);
    // Signed just before the run: Slack's signature is only good for 5 minutes.
    const events = USERS.map((user) => signedCommand({ text: "enforce", user_id: user, channel_id: CHANNEL }, { secret: SIGNING_SECRET }));
    await writeFile(join(dir, "events.json"), JSON.stringify(events));

    const child = spawn(process.execPath, [join(dir, "child.mjs"), bundle, join(dir, "events.json"), join(dir, "result.json")], {
      // Only what the deployed function has (sst.config.ts, the Lambda runtime): nothing from this shell.
      env: {
        ...ISOLATED_AWS_ENV,
        // The SDK's per-service endpoints (AWS_ENDPOINT_URL_ + the service id in capitals, spaces as _).
        AWS_ENDPOINT_URL_SECRETS_MANAGER: aws.url,
        AWS_ENDPOINT_URL_LAMBDA: aws.url,
        ...(await dynamo.freshClaimsEnv()),
        AWS_EXECUTION_ENV: "AWS_Lambda_nodejs24.x",
        AWS_LAMBDA_FUNCTION_NAME: "warden-production-ChatopsFunction",
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: "1024",
        AWS_LAMBDA_INITIALIZATION_TYPE: "on-demand",
        LAMBDA_TASK_ROOT: dir,
        WARDEN_ENDPOINT_SECRET_ARN: SECRET_ARN,
        WARDEN_WORKER_FUNCTION: WORKER,
        GITLAB_URL: "https://gitlab.example.com",
        N8N_URL: "https://n8n.example.com",
        WARDEN_REPORT_ONLY: "false",
      },
      // The JSON log lines are still written (their cost is part of the timing), then dropped; stderr explains a failure.
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, "exit")) as [number | null];
    if (code !== 0) throw new Error(`the cold-start process failed (exit ${code}):\n${stderr.slice(-4000)}`);

    // The stand-ins were really used: one secret read (then cached), one worker invoke per command.
    if (aws.secretReads !== 1 || aws.invokes !== events.length) {
      throw new Error(`expected 1 secret read and ${events.length} invokes through the loopback endpoints, saw ${aws.secretReads} and ${aws.invokes}`);
    }
    const result = JSON.parse(await readFile(join(dir, "result.json"), "utf8")) as { initMs: number; firstAckMs: number; warmMs: number[] };
    return {
      bundleKB: Math.round((await stat(bundle)).size / 1024),
      initMs: round(result.initMs),
      firstAckMs: round(result.firstAckMs),
      warmAckMs: round(median(result.warmMs)),
      note:
        "Node process on loopback: module init and handler time only. Not included: Lambda's own sandbox start " +
        "(micro-VM, code download and unpacking, Node runtime start), the slower CPU of a 1024 MB function (about 0.6 vCPU), " +
        "the round trips (TLS included) to Secrets Manager and to the Lambda Invoke API in a real region, " +
        "and Slack's round trip to the Function URL.",
    };
  } finally {
    await Promise.all([aws.close(), dynamo.close()]);
    await rm(dir, { recursive: true, force: true });
  }
}

interface AwsStandIns {
  url: string;
  secretReads: number;
  invokes: number;
  close(): Promise<void>;
}

/** Secrets Manager's GetSecretValue (AWS JSON 1.1) and Lambda's asynchronous Invoke (202), on one loopback port. */
async function startAwsStandIns(): Promise<AwsStandIns> {
  // The chat-ops secret, the only one Chatops reads.
  const secret = JSON.stringify({ slackSigningSecret: SIGNING_SECRET });
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      if (req.headers["x-amz-target"] === "secretsmanager.GetSecretValue" && (JSON.parse(body) as { SecretId?: string }).SecretId === SECRET_ARN) {
        stands.secretReads++;
        res.writeHead(200, { "content-type": "application/x-amz-json-1.1" });
        res.end(JSON.stringify({ ARN: SECRET_ARN, Name: "warden", VersionId: "v1", SecretString: secret, VersionStages: ["AWSCURRENT"], CreatedDate: 1.7e9 }));
      } else if (req.method === "POST" && req.url === `/2015-03-31/functions/${WORKER}/invocations` && req.headers["x-amz-invocation-type"] === "Event") {
        stands.invokes++;
        res.writeHead(202).end();
      } else {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ __type: "UnknownOperationException", message: `${req.method} ${req.url} is not stood in for` }));
      }
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const stands: AwsStandIns = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    secretReads: 0,
    invokes: 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return stands;
}

function median(values: number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

if (import.meta.main) console.log(JSON.stringify(await measureColdStart(), null, 2));
