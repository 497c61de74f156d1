/** Real-shaped Slack slash-command events for Function URLs, and the secrets they are signed with. Free of vitest, so scripts use them too. */
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { createHmac } from "node:crypto";

/** The jobs' secret (WARDEN_SECRET_ARN), the n8n one (WARDEN_N8N_SECRET_ARN), the chat-ops one (WARDEN_ENDPOINT_SECRET_ARN) and the events' (WARDEN_EVENTS_SECRET_ARN). */
export const SECRET_ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:warden-AbCdEf";
export const N8N_SECRET_ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:warden-n8n-StUvWx";
export const ENDPOINT_SECRET_ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:warden-endpoints-GhIjKl";
export const EVENTS_SECRET_ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:warden-events-MnOpQr";

/**
 * Values distinctive enough that finding one in a log, an error or a response is never a coincidence,
 * in the shapes test/support/no-credentials.ts looks for in every test's output.
 */
export const JOB_SECRETS = {
  gitlabToken: "glpat-sim-admin",
  n8nApiKey: "n8n-key-zq81xlw3",
};
export const ENDPOINT_SECRETS = {
  slackSigningSecret: "SLACK-SIGNING-SECRET-8F14E45FCEEA167A",
};
/** Every credential of the jobs' and the chat-ops secrets, for the checks that none of them is ever shown (the events' tokens: gitlab-deliveries.ts). */
export const SECRETS = { ...JOB_SECRETS, ...ENDPOINT_SECRETS };

/** A Lambda context as the Node.js runtime passes it. */
export interface SlashCommand {
  text: string;
  user_id?: string;
  channel_id?: string;
  team_id?: string;
  /** An Enterprise Grid org's id, which Slack adds to a command typed in one of its workspaces. */
  enterprise_id?: string;
  response_url?: string;
  /** Slack gives every command its own; by default each body built here gets a new one. */
  trigger_id?: string;
}

let triggers = 0;

/** The form Slack posts for a slash command, field for field. */
export function slashCommandBody(cmd: SlashCommand): string {
  return new URLSearchParams({
    token: "deprecated-verification-token",
    team_id: cmd.team_id ?? "T0001",
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
    trigger_id: cmd.trigger_id ?? `1234.${++triggers}.abcd`,
    ...(cmd.enterprise_id && { enterprise_id: cmd.enterprise_id, enterprise_name: "Acme" }),
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
    "X-Slack-Signature": signed(opts.secret ?? SECRETS.slackSigningSecret, timestamp, body),
  });
}

/** Signed as Slack documents it, written here apart from the function's verifier so that a mistake in one is not in both. */
function signed(secret: string, timestamp: string, body: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}
