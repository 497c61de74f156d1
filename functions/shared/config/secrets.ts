/**
 * Warden's credentials, in Secrets Manager secrets, so that no public endpoint holds a token that acts
 * on GitLab or n8n, nor the credential of the other endpoint, and (with the n8n secret) no function
 * that reconciles n8n alone holds the token that removes GitLab access (sst.config.ts grants each
 * function only the secrets it reads):
 *
 * - the jobs' secret (ARN in WARDEN_SECRET_ARN), read by the functions that run jobs (Enforce,
 *   Workflows, Watch, the workers): `{ gitlabToken, pipelineToken, n8nApiKey, slackWebhookUrl }`;
 * - where the deployment gives n8n's key a secret of its own (ARN in WARDEN_N8N_SECRET_ARN), that one:
 *   `{ n8nApiKey, slackWebhookUrl }`, read by Workflows (which then reads the jobs' secret only for a
 *   policy kept in GitLab) and the chat Worker; the jobs' secret must then not hold n8nApiKey;
 * - the chat-ops secret (ARN in WARDEN_ENDPOINT_SECRET_ARN), read by the Chatops Function URL to
 *   authenticate a slash command: `{ slackSigningSecret }`;
 * - the events' secret (ARN in WARDEN_EVENTS_SECRET_ARN), read by the Events Function URL to
 *   authenticate GitLab's deliveries: `{ gitlabStreamingToken, gitlabSystemHookToken }`.
 *
 * A field of another secret found in an endpoint's is refused: whoever can run code in that public
 * function would hold it (with Slack's signing secret, the Events function could sign any chat command).
 *
 * Each is read through a cache with a time to live, so a rotated secret is picked up within minutes
 * without a read per invocation; a public endpoint's failed read is kept a little while too (anyone may
 * send it requests). Each field is optional (GitLab or n8n alone, no Slack): whoever needs one asks for
 * it, and fails naming it when absent. Errors name the secret and the field, never a value.
 */
import { GetSecretValueCommand, SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { z } from "zod";
import { registerSecret } from "../../../lib/redact/index.ts";
import { check, describeIssues } from "../lambda/issues.ts";
import { webhookCredential } from "./slack.ts";

// Present but empty is a mistake worth naming, not a field left out on purpose.
const field = z.string().min(1).optional();

/** The jobs' secret. The endpoints' fields, if a secret from before the split still has them, are ignored: neither used nor masked (see read). */
const SecretsSchema = z.object({
  gitlabToken: field,
  /** Checks and starts chat pipelines in place of gitlabToken when present: they run as its user (clients.ts). */
  pipelineToken: field,
  n8nApiKey: field,
  /** An incoming webhook for run summaries (notify.ts): the channel chosen when it was installed. */
  slackWebhookUrl: field,
});

/** The n8n secret: n8n's key, and the webhook for the summaries of a function that reads no other. */
const N8nSecretsSchema = z.object({ n8nApiKey: field, slackWebhookUrl: field });

/** The chat-ops secret: what authenticates a slash command, and nothing that acts. */
const ChatopsSecretsSchema = z.object({ slackSigningSecret: field });

/** The events' secret: what authenticates GitLab's deliveries (functions/events.ts), and nothing that acts. */
const EventsSecretsSchema = z.object({
  /** The verification token of GitLab's audit event streaming destination. */
  gitlabStreamingToken: field,
  /** The secret token of a self-managed instance's system hook. */
  gitlabSystemHookToken: field,
});

export type Secrets = z.infer<typeof SecretsSchema>;
export type ChatopsSecrets = z.infer<typeof ChatopsSecretsSchema>;
export type EventsSecrets = z.infer<typeof EventsSecretsSchema>;

/** Which secret: its schema, the variable naming it, what errors call it, and fields that must not be in it. */
interface SecretKind<S extends z.ZodObject> {
  schema: S;
  variable: string;
  label: string;
  /** Fields of the other secrets that make this one unusable, and why. */
  refused?: { fields: readonly string[]; why: string };
}

const JOBS: SecretKind<typeof SecretsSchema> = { schema: SecretsSchema, variable: "WARDEN_SECRET_ARN", label: "the secret" };
const remove = "(remove it, and rotate it if this secret was ever read)";
const notHere = (where: string) => `which belongs in ${where} alone: this public function must not hold it ${remove}`;
/** The jobs' secret where n8n's key has its own: every function that acts on GitLab reads it, and none needs the key. */
const JOBS_WITHOUT_N8N: SecretKind<typeof SecretsSchema> = {
  ...JOBS,
  refused: { fields: ["n8nApiKey"], why: `which belongs in the n8n secret (WARDEN_N8N_SECRET_ARN) alone on this deployment: every function that acts on GitLab reads this one ${remove}` },
};
const N8N: SecretKind<typeof N8nSecretsSchema> = {
  schema: N8nSecretsSchema,
  variable: "WARDEN_N8N_SECRET_ARN",
  label: "the n8n secret",
  refused: { fields: ["gitlabToken", "pipelineToken", "slackSigningSecret", "gitlabStreamingToken", "gitlabSystemHookToken"], why: `which belongs in the jobs' secret (WARDEN_SECRET_ARN) or an endpoint's: the functions that reconcile n8n read this one and must not hold it ${remove}` },
};
const CHATOPS: SecretKind<typeof ChatopsSecretsSchema> = {
  schema: ChatopsSecretsSchema,
  variable: "WARDEN_ENDPOINT_SECRET_ARN",
  label: "the chat-ops secret",
  refused: { fields: [...Object.keys(SecretsSchema.shape), ...Object.keys(EventsSecretsSchema.shape)], why: notHere("the jobs' secret (WARDEN_SECRET_ARN) or the events' (WARDEN_EVENTS_SECRET_ARN)") },
};
const EVENTS: SecretKind<typeof EventsSecretsSchema> = {
  schema: EventsSecretsSchema,
  variable: "WARDEN_EVENTS_SECRET_ARN",
  label: "the events' secret",
  refused: { fields: [...Object.keys(SecretsSchema.shape), ...Object.keys(ChatopsSecretsSchema.shape)], why: notHere("the jobs' secret (WARDEN_SECRET_ARN) or the chat-ops one (WARDEN_ENDPOINT_SECRET_ARN)") },
};

export class SecretsError extends Error {
  override name = "SecretsError";
}

/** A field the caller cannot do without; `purpose` says who needs it, for the error. */
export function requireSecret(secrets: Secrets, name: keyof Secrets, purpose: string): string;
export function requireSecret(secrets: ChatopsSecrets, name: keyof ChatopsSecrets, purpose: string): string;
export function requireSecret(secrets: EventsSecrets, name: keyof EventsSecrets, purpose: string): string;
export function requireSecret(secrets: Record<string, string | undefined>, name: string, purpose: string): string {
  const value = secrets[name];
  if (value === undefined) throw new SecretsError(`${secretHolding(name)} has no ${name}, which ${purpose} needs`);
  return value;
}

/** How errors name the secret that holds `field`: n8n's key is the n8n secret's where the function reads one. */
export function secretHolding(field: string, env: NodeJS.ProcessEnv = process.env): string {
  if (field === "n8nApiKey" && env["WARDEN_N8N_SECRET_ARN"]) return N8N.label;
  return [CHATOPS, EVENTS].find((kind) => field in kind.schema.shape)?.label ?? JOBS.label;
}

export interface SecretsCache<T = Secrets> {
  get(): Promise<T>;
  /** Forgets the cached value: the next get() reads the secret again. */
  invalidate(): void;
}

export interface SecretsCacheOptions {
  client: Pick<SecretsManagerClient, "send">;
  /** Undefined: every get() fails saying the variable that names it is not set. */
  secretId: string | undefined;
  now?: () => number;
}

/** How long a read is trusted: a rotated secret reaches every warm container within this. */
const TTL_MS = 5 * 60_000;
/**
 * How long an endpoint's failed read is kept: at most one GetSecretValue this often per container, however
 * many unauthenticated requests arrive, and a fixed secret answers within this. A job's is not kept: a
 * person or the schedule asked, and its next try should read again.
 */
const ENDPOINT_FAILURE_KEPT_MS = 30_000;
/**
 * The longest a read takes, attempts included (Secrets Manager answers in tens of ms): one never answered must
 * not hold an endpoint past its caller's wait (Slack's 3 s: a 401, logged), nor a job without its `job failed`.
 */
const [ENDPOINT_READ_MS, JOB_READ_MS] = [2_000, 5_000];

export interface JobSecretsOptions extends SecretsCacheOptions {
  /** The n8n secret's ARN, in a function that reads it; undefined: n8nApiKey is the jobs' secret's. */
  n8nSecretId?: string | undefined;
  /** The deployment has an n8n secret, read or not by this function: the jobs' secret must not hold n8nApiKey. */
  n8nSeparate?: boolean;
}

/** The jobs' credentials: the jobs' secret's fields and, where n8n's key has a secret of its own, that secret's. */
export function secretsCache(opts: JobSecretsOptions): SecretsCache<Secrets> {
  const jobs = opts.n8nSeparate || opts.n8nSecretId ? JOBS_WITHOUT_N8N : JOBS;
  return cacheOf(opts, async () => {
    // Workflows reads the n8n secret alone, unless its policy is kept in GitLab.
    if (opts.n8nSecretId === undefined) return read(jobs, opts, JOB_READ_MS);
    const [own, n8n] = await Promise.all([opts.secretId ? read(jobs, opts, JOB_READ_MS) : ({} as Secrets), read(N8N, { ...opts, secretId: opts.n8nSecretId }, JOB_READ_MS)]);
    const webhook = own.slackWebhookUrl ?? n8n.slackWebhookUrl;
    return { ...own, ...(n8n.n8nApiKey !== undefined && { n8nApiKey: n8n.n8nApiKey }), ...(webhook !== undefined && { slackWebhookUrl: webhook }) };
  });
}

/** The chat-ops secret. */
export function chatopsSecretsCache(opts: SecretsCacheOptions): SecretsCache<ChatopsSecrets> {
  return cacheOf(opts, () => read(CHATOPS, opts, ENDPOINT_READ_MS), ENDPOINT_FAILURE_KEPT_MS);
}

/** The events' secret. */
export function eventsSecretsCache(opts: SecretsCacheOptions): SecretsCache<EventsSecrets> {
  return cacheOf(opts, () => read(EVENTS, opts, ENDPOINT_READ_MS), ENDPOINT_FAILURE_KEPT_MS);
}

/** `failureKeptMs`: how long a failed read is given to every caller before the next is tried (0: not kept). */
function cacheOf<T>(opts: SecretsCacheOptions, load: () => Promise<T>, failureKeptMs = 0): SecretsCache<T> {
  const now = opts.now ?? Date.now;
  let cached: { value: Promise<T>; readAt: number; failedAt?: number } | undefined;
  const fresh = (entry: NonNullable<typeof cached>) => (entry.failedAt === undefined ? now() - entry.readAt < TTL_MS : now() - entry.failedAt < failureKeptMs);

  return {
    get() {
      if (cached && fresh(cached)) return cached.value;
      const entry: NonNullable<typeof cached> = { value: load(), readAt: now() };
      // Concurrent callers share one read; a failed one is kept from when it failed.
      entry.value.catch(() => {
        entry.failedAt = now();
      });
      cached = entry;
      return entry.value;
    },
    invalidate() {
      cached = undefined;
    },
  };
}

async function read<S extends z.ZodObject>(kind: SecretKind<S>, { client, secretId }: SecretsCacheOptions, withinMs: number): Promise<z.output<S>> {
  if (!secretId) throw new SecretsError(`${kind.variable} is not set`);
  let text: string | undefined;
  const within = AbortSignal.timeout(withinMs);
  try {
    text = (await client.send(new GetSecretValueCommand({ SecretId: secretId }), { abortSignal: within })).SecretString;
  } catch (err) {
    // The SDK says only "Request aborted" of a read cut off.
    throw new SecretsError(`reading secret ${secretId} failed: ${within.aborted ? `no answer within ${withinMs / 1000} s` : `${(err as Error).name}: ${(err as Error).message}`}`, { cause: err });
  }
  if (text === undefined) throw new SecretsError(`secret ${secretId} has no SecretString (a binary secret is not supported)`);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    // JSON.parse's own message quotes the text it choked on: the secret.
    throw new SecretsError(`secret ${secretId} is not valid JSON`);
  }
  // Each field this function uses is registered as soon as it is read, valid or not: from here on no log
  // line, Slack post or report of this container can carry it (lib/redact). Of the webhook URL, its secret
  // part alone: its "https://hooks.slack.com/services/" would mask those words wherever they appear. Not the
  // fields the schema leaves out (an endpoint's token left in the jobs' secret): this function never sends
  // them, so no server can echo them, and masking one, which a person may have typed, would tell whoever
  // writes a text here (a chat user's project path) that it is the token.
  if (data && typeof data === "object") {
    for (const [key, value] of Object.entries(data)) {
      if (Object.hasOwn(kind.schema.shape, key) && typeof value === "string") registerSecret(key === "slackWebhookUrl" ? webhookCredential(value) : value);
    }
  }
  const misplaced = data && typeof data === "object" ? (kind.refused?.fields ?? []).filter((name) => name in data) : [];
  if (misplaced.length) throw new SecretsError(`secret ${secretId} (${kind.variable}) holds ${misplaced.join(", ")}, ${kind.refused!.why}`);
  const parsed = check(kind.schema, data);
  if (!parsed.success) throw new SecretsError(`secret ${secretId}: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

// Each attempt bounded too (without throwOnRequestTimeout the SDK only warns once requestTimeout has passed).
const client = new SecretsManagerClient({ requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000, throwOnRequestTimeout: true } });

/** The process's cache of the jobs' credentials: the secret WARDEN_SECRET_ARN names, and the one WARDEN_N8N_SECRET_ARN names where set. */
export const secrets: SecretsCache<Secrets> = secretsCache({
  client,
  secretId: process.env["WARDEN_SECRET_ARN"],
  n8nSecretId: process.env["WARDEN_N8N_SECRET_ARN"],
  n8nSeparate: process.env["WARDEN_N8N_SECRET_SEPARATE"] === "1",
});

/** The process's cache of the chat-ops secret, the one WARDEN_ENDPOINT_SECRET_ARN names. */
export const chatopsSecrets: SecretsCache<ChatopsSecrets> = chatopsSecretsCache({ client, secretId: process.env["WARDEN_ENDPOINT_SECRET_ARN"] });

/** The process's cache of the events' secret, the one WARDEN_EVENTS_SECRET_ARN names. */
export const eventsSecrets: SecretsCache<EventsSecrets> = eventsSecretsCache({ client, secretId: process.env["WARDEN_EVENTS_SECRET_ARN"] });
