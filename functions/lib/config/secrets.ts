/**
 * Warden's credentials: one Secrets Manager secret (ARN in WARDEN_SECRET_ARN) holding JSON
 * `{ gitlabToken, pipelineToken, n8nApiKey, slackSigningSecret, slackWebhookUrl, gitlabStreamingToken, gitlabSystemHookToken }`, read through a cache with a time
 * to live so a rotated secret is picked up within minutes without a read per invocation. Each field
 * is optional, as a deployment may use GitLab or n8n alone, or no Slack: whoever needs a field asks
 * for it, and fails naming it when it is absent. Errors name the secret and the field, never a value.
 */
import { GetSecretValueCommand, SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { z } from "zod";
import { registerSecret } from "../../../lib/redact/index.ts";
import { check, describeIssues } from "../lambda/issues.ts";
import { webhookCredential } from "../slack/webhook.ts";

// Present but empty is a mistake worth naming, not a field left out on purpose.
const field = z.string().min(1).optional();

const SecretsSchema = z.object({
  gitlabToken: field,
  /** Checks and starts chat pipelines in place of gitlabToken when present: they run as its user (clients.ts). */
  pipelineToken: field,
  n8nApiKey: field,
  slackSigningSecret: field,
  /** An incoming webhook for run summaries (notify.ts): the channel chosen when it was installed. */
  slackWebhookUrl: field,
  /** The verification token of GitLab's audit event streaming destination (functions/events.ts). */
  gitlabStreamingToken: field,
  /** The secret token of a self-managed instance's system hook (functions/events.ts). */
  gitlabSystemHookToken: field,
});

export type Secrets = z.infer<typeof SecretsSchema>;

export class SecretsError extends Error {
  override name = "SecretsError";
}

/** A field the caller cannot do without; `purpose` says who needs it, for the error. */
export function requireSecret(secrets: Secrets, name: keyof Secrets, purpose: string): string {
  const value = secrets[name];
  if (value === undefined) throw new SecretsError(`the secret has no ${name}, which ${purpose} needs`);
  return value;
}

export interface SecretsCache {
  get(): Promise<Secrets>;
  /** Forgets the cached value: the next get() reads the secret again. */
  invalidate(): void;
}

export interface SecretsCacheOptions {
  client: Pick<SecretsManagerClient, "send">;
  /** Undefined: every get() fails saying WARDEN_SECRET_ARN is not set. */
  secretId: string | undefined;
  now?: () => number;
}

/** How long a read is trusted: a rotated secret reaches every warm container within this. */
const TTL_MS = 5 * 60_000;

export function secretsCache(opts: SecretsCacheOptions): SecretsCache {
  const now = opts.now ?? Date.now;
  let cached: { value: Promise<Secrets>; readAt: number } | undefined;

  return {
    get() {
      if (cached && now() - cached.readAt < TTL_MS) return cached.value;
      const entry = { value: read(opts), readAt: now() };
      // Concurrent callers share one read; a failed read is not kept, so the next call tries again.
      entry.value.catch(() => {
        if (cached === entry) cached = undefined;
      });
      cached = entry;
      return entry.value;
    },
    invalidate() {
      cached = undefined;
    },
  };
}

async function read({ client, secretId }: SecretsCacheOptions): Promise<Secrets> {
  if (!secretId) throw new SecretsError("WARDEN_SECRET_ARN is not set");
  let text: string | undefined;
  try {
    text = (await client.send(new GetSecretValueCommand({ SecretId: secretId }))).SecretString;
  } catch (err) {
    throw new SecretsError(`reading secret ${secretId} failed: ${(err as Error).name}: ${(err as Error).message}`, { cause: err });
  }
  if (text === undefined) throw new SecretsError(`secret ${secretId} has no SecretString (a binary secret is not supported)`);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    // JSON.parse's own message quotes the text it choked on: the secret.
    throw new SecretsError(`secret ${secretId} is not valid JSON`);
  }
  // Every field is registered as soon as it is read, valid or not: from here on no log line, Slack post
  // or report of this container can carry any of them (lib/redact). Of the webhook URL, its secret part
  // alone: its "https://hooks.slack.com/services/" would mask those words wherever they appear.
  if (data && typeof data === "object") {
    for (const [key, value] of Object.entries(data)) if (typeof value === "string") registerSecret(key === "slackWebhookUrl" ? webhookCredential(value) : value);
  }
  const parsed = check(SecretsSchema, data);
  if (!parsed.success) throw new SecretsError(`secret ${secretId}: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

/** The process's cache, reading the secret WARDEN_SECRET_ARN names. */
export const secrets: SecretsCache = secretsCache({ client: new SecretsManagerClient({}), secretId: process.env["WARDEN_SECRET_ARN"] });
