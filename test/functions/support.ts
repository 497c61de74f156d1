/** Real-shaped Lambda inputs and loopback AWS/Slack stand-ins for the handler tests. */
import { mkdtemp, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import { vi } from "vitest";
import { slackSignature } from "../../functions/lib/slack-signature.ts";

export const SECRET_ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:warden-AbCdEf";

/**
 * Values distinctive enough that finding one in a log, an error or a response is never a coincidence,
 * in the shapes test/support/no-credentials.ts looks for in every test's output.
 */
export const SECRETS = {
  gitlabToken: "glpat-sim-admin",
  n8nApiKey: "n8n-key-zq81xlw3",
  slackSigningSecret: "slack-signing-secret-8f14e45fceea167a",
};

/** A Lambda context as the Node.js runtime passes it. */
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

export interface SlashCommand {
  text: string;
  user_id?: string;
  channel_id?: string;
  response_url?: string;
}

/** The form Slack posts for a slash command, field for field. */
export function slashCommandBody(cmd: SlashCommand): string {
  return new URLSearchParams({
    token: "deprecated-verification-token",
    team_id: "T0001",
    team_domain: "acme",
    channel_id: cmd.channel_id ?? "C0123456",
    channel_name: "ops",
    user_id: cmd.user_id ?? "U012ABCDEF",
    user_name: "ada",
    command: "/warden",
    text: cmd.text,
    api_app_id: "A0001",
    is_enterprise_install: "false",
    response_url: cmd.response_url ?? "https://hooks.slack.com/commands/T0001/1234/abcd",
    trigger_id: "1234.5678.abcd",
  }).toString();
}

/** A Function URL (payload v2) event carrying a form body, base64-encoded as Function URLs do. */
export function functionUrlEvent(body: string, headers: Record<string, string>): APIGatewayProxyEventV2 {
  const now = Date.now();
  return {
    version: "2.0",
    routeKey: "$default",
    rawPath: "/",
    rawQueryString: "",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "content-length": String(Buffer.byteLength(body)),
      host: "abcdefghijklmnop.lambda-url.eu-west-1.on.aws",
      "user-agent": "Slackbot 1.0 (+https://api.slack.com/robots)",
      "x-forwarded-for": "3.92.1.1",
      "x-forwarded-proto": "https",
      "x-amzn-trace-id": "Root=1-5759e988-bd862e3fe1be46a994272793",
      ...headers,
    },
    requestContext: {
      accountId: "anonymous",
      apiId: "abcdefghijklmnop",
      domainName: "abcdefghijklmnop.lambda-url.eu-west-1.on.aws",
      domainPrefix: "abcdefghijklmnop",
      http: { method: "POST", path: "/", protocol: "HTTP/1.1", sourceIp: "3.92.1.1", userAgent: "Slackbot 1.0 (+https://api.slack.com/robots)" },
      requestId: crypto.randomUUID(),
      routeKey: "$default",
      stage: "$default",
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    body: Buffer.from(body).toString("base64"),
    isBase64Encoded: true,
  };
}

/** The slash command as Slack sends it: signed now (or `ageSeconds` ago) with `secret`. Header names as Slack writes them. */
export function signedCommand(cmd: SlashCommand, opts: { secret?: string; ageSeconds?: number } = {}): APIGatewayProxyEventV2 {
  const body = slashCommandBody(cmd);
  const timestamp = String(Math.floor(Date.now() / 1000) - (opts.ageSeconds ?? 0));
  return functionUrlEvent(body, {
    "X-Slack-Request-Timestamp": timestamp,
    "X-Slack-Signature": slackSignature(opts.secret ?? SECRETS.slackSigningSecret, timestamp, body),
  });
}

export interface SecretsManagerStub {
  url: string;
  /** SecretIds asked for, in order. */
  reads: string[];
  /** What GetSecretValue answers from now on... */
  secretString: string;
  /** ...after these, one per read. */
  queued: string[];
  close(): Promise<void>;
}

/** Secrets Manager's GetSecretValue (AWS JSON 1.1) on 127.0.0.1, for the real SDK client. */
export async function startSecretsManager(secretString: string, arn = SECRET_ARN): Promise<SecretsManagerStub> {
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
          : SecretId !== arn
            ? [400, { __type: "ResourceNotFoundException", Message: "Secrets Manager can't find the specified secret." }]
            : [200, { ARN: arn, Name: "warden", VersionId: "v1", SecretString: stub.queued.shift() ?? stub.secretString, VersionStages: ["AWSCURRENT"], CreatedDate: 1.7e9 }];
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
    close: () => new Promise((resolve) => server.close(() => resolve())),
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
    // Tests that look at the log lines capture them at INFO; the others keep the output readable.
    POWERTOOLS_LOG_LEVEL: "SILENT",
  };
  for (const [name, value] of Object.entries({ ...base, ...vars })) vi.stubEnv(name, value);
}

/** The JSON lines Powertools Logger writes while capturing (info to stdout, warn and error to stderr); they still go out too. */
export function captureLogs(): { lines(): Record<string, unknown>[]; restore(): void } {
  const spies = [vi.spyOn(process.stdout, "write"), vi.spyOn(process.stderr, "write")];
  return {
    lines: () =>
      spies
        .flatMap((spy) => spy.mock.calls.map(([chunk]) => (typeof chunk === "string" ? chunk : Buffer.from(chunk).toString())))
        .join("")
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    restore: () => spies.forEach((spy) => spy.mockRestore()),
  };
}

/** Writes a policy file for WARDEN_POLICY and returns its path. */
export async function writePolicy(text: string): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), "warden-policy-")), "warden.yaml");
  await writeFile(path, text);
  return path;
}
