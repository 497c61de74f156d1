/** Real-shaped Lambda inputs and loopback AWS/Slack stand-ins for the handler tests. */
import { mkdtemp, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Context } from "aws-lambda";
import { expect, vi } from "vitest";
import type { EnforceReport, RestoreReport } from "../../lib/jobs/index.ts";
import { CREDENTIAL_PATTERNS } from "./no-credentials.ts";
import { ENDPOINT_SECRET_ARN, ENDPOINT_SECRETS, EVENTS_SECRET_ARN, JOB_SECRETS, N8N_SECRET_ARN, SECRET_ARN } from "../../sim/aws/events.ts";
import { GITLAB_EVENT_TOKENS } from "../../sim/aws/gitlab-deliveries.ts";

export * from "../../sim/aws/events.ts";

export function lambdaContext(opts: { remainingMs?: number; requestId?: string; functionName?: string } = {}): Context {
  const deadline = Date.now() + (opts.remainingMs ?? 900_000);
  const functionName = opts.functionName ?? "warden-test-Function";
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: "$LATEST",
    invokedFunctionArn: `arn:aws:lambda:eu-west-1:123456789012:function:${functionName}`,
    memoryLimitInMB: "1024",
    awsRequestId: opts.requestId ?? crypto.randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: "2025/01/01/[$LATEST]0123456789abcdef",
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export interface SecretsManagerStub {
  url: string;
  /** SecretIds asked for, in order. */
  reads: string[];
  /** What GetSecretValue answers for the jobs' secret (`arn`) from now on... */
  secretString: string;
  /** ...after these, one per read. */
  queued: string[];
  /** What it answers for the chat-ops secret (ENDPOINT_SECRET_ARN): by default, ENDPOINT_SECRETS. */
  endpointSecretString: string;
  /** What it answers for the events' secret (EVENTS_SECRET_ARN): by default, GITLAB_EVENT_TOKENS. */
  eventsSecretString: string;
  /** What it answers for the n8n secret (N8N_SECRET_ARN): by default, the n8n key alone. */
  n8nSecretString: string;
  close(): Promise<void>;
}

/** Secrets Manager's GetSecretValue (AWS JSON 1.1) on 127.0.0.1, for the real SDK client: the jobs' secret, the n8n one, the chat-ops one and the events'. */
export async function startSecretsManager(secretString: string, arn = SECRET_ARN): Promise<SecretsManagerStub> {
  const others = (): Record<string, string> => ({ [ENDPOINT_SECRET_ARN]: stub.endpointSecretString, [EVENTS_SECRET_ARN]: stub.eventsSecretString, [N8N_SECRET_ARN]: stub.n8nSecretString });
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk));
    req.on("end", () => {
      const target = req.headers["x-amz-target"];
      const { SecretId } = JSON.parse(body) as { SecretId: string };
      stub.reads.push(SecretId);
      const [status, answer] =
        target !== "secretsmanager.GetSecretValue"
          ? [400, { __type: "UnknownOperationException", message: `unsupported ${String(target)}` }]
          : SecretId === arn
            ? [200, { ARN: arn, Name: "warden", VersionId: "v1", SecretString: stub.queued.shift() ?? stub.secretString, VersionStages: ["AWSCURRENT"], CreatedDate: 1.7e9 }]
            : SecretId in others()
              ? [200, { ARN: SecretId, Name: "warden-others", VersionId: "v1", SecretString: others()[SecretId], VersionStages: ["AWSCURRENT"], CreatedDate: 1.7e9 }]
              : [400, { __type: "ResourceNotFoundException", Message: "Secrets Manager can't find the specified secret." }];
      res.writeHead(status, { "content-type": "application/x-amz-json-1.1", "x-amzn-requestid": crypto.randomUUID() });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const stub: SecretsManagerStub = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    reads: [],
    secretString,
    queued: [],
    endpointSecretString: JSON.stringify(ENDPOINT_SECRETS),
    eventsSecretString: JSON.stringify(GITLAB_EVENT_TOKENS),
    n8nSecretString: JSON.stringify({ n8nApiKey: JOB_SECRETS.n8nApiKey }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return stub;
}

/** How the Lambda stand-in answers an Invoke, once it has read the whole request. */
export type InvokeAnswer = "accept" | "reset" | "server-error" | "throttle";

export interface LambdaApiStub {
  url: string;
  /** The Invoke requests that arrived, in order, whatever they were answered. */
  invokes: { functionName: string; invocationType: string | undefined; payload: string }[];
  answer: InvokeAnswer;
  /** Called with each invoke accepted, once its 202 is sent: where a test runs the invoked handler, as AWS would. */
  onAccepted?: (invoke: { functionName: string; payload: string }) => void;
  close(): Promise<void>;
}

/**
 * Lambda's Invoke API (REST JSON) on 127.0.0.1, for the real SDK client (through AWS_ENDPOINT_URL_LAMBDA),
 * as bin/bench/cold-start.ts stands in for it. Besides accepting (202), it can act out what happens
 * after AWS has queued an asynchronous invoke: the socket reset before any answer, a 500, or it can
 * refuse with a throttling 429. Every request is counted before it is answered, as AWS would have it.
 */
export async function startLambdaApi(answer: InvokeAnswer = "accept"): Promise<LambdaApiStub> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk));
    req.on("end", () => {
      const match = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(req.url ?? "");
      const json = (status: number, headers: Record<string, string>, answer: object) => {
        res.writeHead(status, { "content-type": "application/json", "x-amzn-requestid": crypto.randomUUID(), ...headers });
        res.end(JSON.stringify(answer));
      };
      if (req.method !== "POST" || !match) return json(400, { "x-amzn-errortype": "UnknownOperationException" }, { message: `${req.method} ${req.url} is not stood in for` });
      const invocationType = req.headers["x-amz-invocation-type"];
      stub.invokes.push({ functionName: decodeURIComponent(match[1]!), invocationType: typeof invocationType === "string" ? invocationType : undefined, payload: body });
      switch (stub.answer) {
        case "accept":
          res.writeHead(202, { "x-amzn-requestid": crypto.randomUUID() }).end();
          return void stub.onAccepted?.(stub.invokes.at(-1)!);
        case "reset":
          return void req.socket.destroy();
        case "server-error":
          return json(500, { "x-amzn-errortype": "ServiceException" }, { Type: "Service", message: "An internal error occurred." });
        case "throttle":
          return json(429, { "x-amzn-errortype": "TooManyRequestsException" }, { Type: "User", message: "Rate Exceeded.", Reason: "CallerRateLimitExceeded" });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const stub: LambdaApiStub = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    invokes: [],
    answer,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return stub;
}

/** The environment a handler test runs in, independent of the machine's AWS configuration. */
export function stubAwsEnv(vars: Record<string, string | undefined>): void {
  const base = {
    AWS_REGION: "eu-west-1",
    AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
    AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    AWS_SESSION_TOKEN: undefined,
    AWS_PROFILE: undefined,
    AWS_CONFIG_FILE: "/dev/null",
    AWS_SHARED_CREDENTIALS_FILE: "/dev/null",
    WARDEN_SECRET_ARN: SECRET_ARN,
    WARDEN_ENDPOINT_SECRET_ARN: ENDPOINT_SECRET_ARN,
    WARDEN_EVENTS_SECRET_ARN: EVENTS_SECRET_ARN,
    // Tests that look at the log lines capture them at INFO; the others keep the output readable.
    POWERTOOLS_LOG_LEVEL: "SILENT",
    // Likewise the runs' EMF records: tests that look at them turn them on and capture them.
    POWERTOOLS_METRICS_DISABLED: "true",
  };
  for (const [name, value] of Object.entries({ ...base, ...vars })) vi.stubEnv(name, value);
}

/**
 * The JSON lines written while capturing (Powertools Logger: info to stdout, warn and error to stderr;
 * Powertools Metrics' EMF records: stdout). They are held back from the runner's output, so it stays
 * readable, and checked for credentials here instead, as test/support/no-credentials.ts checks what
 * does reach the output.
 */
export function captureLogs(): { lines(): Record<string, unknown>[]; restore(): void } {
  const spies = [vi.spyOn(process.stdout, "write").mockImplementation(() => true), vi.spyOn(process.stderr, "write").mockImplementation(() => true)];
  const text = () => spies.flatMap((spy) => spy.mock.calls.map(([chunk]) => (typeof chunk === "string" ? chunk : Buffer.from(chunk).toString()))).join("");
  return {
    lines: () =>
      text()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    restore: () => {
      const leaked = CREDENTIAL_PATTERNS.map((p) => text().match(p)?.[0]).filter(Boolean);
      spies.forEach((spy) => spy.mockRestore());
      expect(leaked, "a credential appeared in the captured log lines").toEqual([]);
    },
  };
}

/** Writes a policy file for WARDEN_POLICY and returns its path. */
export async function writePolicy(text: string): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), "warden-policy-")), "warden.yaml");
  await writeFile(path, text);
  return path;
}

export interface S3Stub {
  url: string;
  /** Objects by "bucket/key". */
  objects: Map<string, string>;
  close(): Promise<void>;
}

/**
 * The three S3 calls the run history makes (PutObject, GetObject, ListObjectsV2), path-style on
 * 127.0.0.1, for the real SDK client through AWS_ENDPOINT_URL_S3 (the SDK addresses an IP endpoint
 * path-style), from this process or from a child such as the CLI.
 */
export async function startS3(): Promise<S3Stub> {
  const xml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://s3");
      const [bucket = "", ...rest] = url.pathname.slice(1).split("/");
      const key = decodeURIComponent(rest.join("/"));
      const error = (status: number, code: string) => res.writeHead(status, { "content-type": "application/xml" }).end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`);
      if (req.method === "PUT" && key) {
        stub.objects.set(`${bucket}/${key}`, Buffer.concat(chunks).toString("utf8"));
        return void res.writeHead(200, { etag: '"0"' }).end();
      }
      if (req.method === "GET" && key) {
        const body = stub.objects.get(`${bucket}/${key}`);
        return body === undefined ? error(404, "NoSuchKey") : void res.writeHead(200, { "content-type": "application/json" }).end(body);
      }
      if (req.method === "GET" && url.searchParams.get("list-type") === "2") {
        const prefix = url.searchParams.get("prefix") ?? "";
        const keys = [...stub.objects.keys()].filter((k) => k.startsWith(`${bucket}/${prefix}`)).map((k) => k.slice(bucket.length + 1)).sort();
        const contents = keys.map((k) => `<Contents><Key>${xml(k)}</Key><Size>1</Size></Contents>`).join("");
        return void res
          .writeHead(200, { "content-type": "application/xml" })
          .end(`<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>${xml(bucket)}</Name><Prefix>${xml(prefix)}</Prefix><KeyCount>${keys.length}</KeyCount><IsTruncated>false</IsTruncated>${contents}</ListBucketResult>`);
      }
      error(400, "NotImplemented");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const stub: S3Stub = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    objects: new Map(),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return stub;
}

/** The Enforce handler as a fresh container loads it: module state (secret and policy caches) starts empty. */
export async function coldEnforce<Report = EnforceReport | RestoreReport>(): Promise<(event: unknown) => Promise<Report>> {
  vi.resetModules();
  const { handler } = await import("../../functions/enforce.ts");
  return (event) => handler(event as never, lambdaContext()) as Promise<Report>;
}
