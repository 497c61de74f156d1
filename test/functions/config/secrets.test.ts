import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chatopsSecretsCache, eventsSecretsCache, requireSecret, secretHolding, secretsCache } from "../../../functions/shared/config/secrets.ts";
import { redactOutput } from "../../../lib/redact/index.ts";
import { ENDPOINT_SECRET_ARN, ENDPOINT_SECRETS, EVENTS_SECRET_ARN, JOB_SECRETS, N8N_SECRET_ARN, SECRET_ARN, SECRETS, startSecretsManager, type SecretsManagerStub } from "../../support/lambda.ts";

let stub: SecretsManagerStub;
beforeEach(async () => {
  stub = await startSecretsManager(JSON.stringify(SECRETS));
});
afterEach(() => stub.close());

/** The real SDK client, pointed at the loopback stub with dummy credentials. */
function client() {
  return new SecretsManagerClient({
    endpoint: stub.url,
    region: "eu-west-1",
    credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "dummy-secret-access-key" },
    maxAttempts: 1,
  });
}
function cache(opts: { now?: () => number; secretId?: string | undefined } = {}) {
  return secretsCache({ client: client(), secretId: "secretId" in opts ? opts.secretId : SECRET_ARN, now: opts.now });
}

describe("secrets", () => {
  it("reads the secret's JSON through the Secrets Manager SDK", async () => {
    stub.secretString = JSON.stringify(JOB_SECRETS);
    await expect(cache().get()).resolves.toEqual(JOB_SECRETS);
    expect(stub.reads).toEqual([SECRET_ARN]);
  });

  it("leaves out of the jobs' secret what belongs to the endpoints', if an older single secret still holds it, and masks none of it", async () => {
    // Typed or chosen tokens: masked, one would tell whoever wrote a text (a chat user's project path) that it is the token.
    const left = { gitlabStreamingToken: "chosen-stream-token-0123", gitlabSystemHookToken: "correct-horse-battery-staple" };
    stub.secretString = JSON.stringify({ ...SECRETS, ...left });
    await expect(cache().get()).resolves.toEqual(JOB_SECRETS);
    const text = `acme/${left.gitlabStreamingToken} acme/${left.gitlabSystemHookToken}`;
    expect(redactOutput(text)).toBe(text);
    // The control: the fields the jobs use are masked from the read on.
    expect(redactOutput(`acme/${JOB_SECRETS.gitlabToken}`)).toBe("acme/[REDACTED]");
  });

  it("serves one read to concurrent callers and caches it for five minutes, then reads again", async () => {
    let now = 0;
    const secrets = cache({ now: () => now });
    await Promise.all([secrets.get(), secrets.get(), secrets.get()]);
    now = 299_999;
    await secrets.get();
    expect(stub.reads).toHaveLength(1);

    stub.secretString = JSON.stringify({ ...SECRETS, gitlabToken: "glpat-rotated" });
    now = 300_000;
    await expect(secrets.get()).resolves.toMatchObject({ gitlabToken: "glpat-rotated" });
    expect(stub.reads).toHaveLength(2);
  });

  it("reads again after invalidate(), whatever the TTL", async () => {
    const secrets = cache();
    await secrets.get();
    stub.secretString = JSON.stringify({ ...SECRETS, n8nApiKey: "n8n-rotated" });
    secrets.invalidate();
    await expect(secrets.get()).resolves.toMatchObject({ n8nApiKey: "n8n-rotated" });
    expect(stub.reads).toHaveLength(2);
  });

  it("names a wrong or empty field without printing any value, and does not keep the failure", async () => {
    stub.secretString = JSON.stringify({ gitlabToken: SECRETS.gitlabToken, n8nApiKey: 42, slackWebhookUrl: "" });
    const secrets = cache();
    const error = await secrets.get().catch((err: Error) => err);
    expect(String(error)).toBe(`SecretsError: secret ${SECRET_ARN}: n8nApiKey: expected string; slackWebhookUrl: must not be empty`);
    expect(String(error)).not.toContain(SECRETS.gitlabToken);

    stub.secretString = JSON.stringify(JOB_SECRETS);
    await expect(secrets.get()).resolves.toEqual(JOB_SECRETS);
  });

  it("holds only the fields a deployment uses; a caller that needs an absent one is told which", async () => {
    stub.secretString = JSON.stringify({ gitlabToken: SECRETS.gitlabToken });
    const secrets = await cache().get();
    expect(secrets).toEqual({ gitlabToken: SECRETS.gitlabToken });
    expect(requireSecret(secrets, "gitlabToken", "enforce")).toBe(SECRETS.gitlabToken);
    expect(() => requireSecret(secrets, "n8nApiKey", "workflows")).toThrow("the secret has no n8nApiKey, which workflows needs");
  });

  it("says the secret is not JSON without quoting it (JSON.parse's own message would)", async () => {
    stub.secretString = `gitlabToken=${SECRETS.gitlabToken}`;
    const error = await cache().get().catch((err: Error) => err);
    expect(String(error)).toBe(`SecretsError: secret ${SECRET_ARN} is not valid JSON`);
  });

  it("reports an unknown secret, and an unset WARDEN_SECRET_ARN", async () => {
    await expect(cache({ secretId: `${SECRET_ARN}-gone` }).get()).rejects.toThrow(/reading secret .*-gone failed: ResourceNotFoundException/);
    await expect(cache({ secretId: undefined }).get()).rejects.toThrow("WARDEN_SECRET_ARN is not set");
  });
});

describe("the n8n secret: n8n's key apart from the token that removes GitLab access", () => {
  const GITLAB_ONLY = { gitlabToken: SECRETS.gitlabToken, slackWebhookUrl: "https://hooks.slack.com/services/T0/B0/jobs-webhook-secret" };
  const jobs = (opts: { secretId?: string | undefined; n8nSecretId?: string; n8nSeparate?: boolean }) => secretsCache({ client: client(), secretId: SECRET_ARN, ...opts });

  it("Workflows, given the n8n secret alone, reads it alone: n8n's key and the webhook, no GitLab token", async () => {
    stub.n8nSecretString = JSON.stringify({ n8nApiKey: SECRETS.n8nApiKey, slackWebhookUrl: "https://hooks.slack.com/services/T0/B0/n8n-webhook-secret" });
    await expect(jobs({ secretId: undefined, n8nSecretId: N8N_SECRET_ARN }).get()).resolves.toEqual({ n8nApiKey: SECRETS.n8nApiKey, slackWebhookUrl: "https://hooks.slack.com/services/T0/B0/n8n-webhook-secret" });
    expect(stub.reads).toEqual([N8N_SECRET_ARN]);
  });

  it("a function given both (the chat Worker, Workflows with a policy kept in GitLab) holds each secret's fields, the jobs' webhook first", async () => {
    stub.secretString = JSON.stringify(GITLAB_ONLY);
    stub.n8nSecretString = JSON.stringify({ n8nApiKey: SECRETS.n8nApiKey, slackWebhookUrl: "https://hooks.slack.com/services/T0/B0/n8n-webhook-secret" });
    const secrets = jobs({ n8nSecretId: N8N_SECRET_ARN });
    await expect(secrets.get()).resolves.toEqual({ ...GITLAB_ONLY, n8nApiKey: SECRETS.n8nApiKey });
    expect(stub.reads.toSorted()).toEqual([SECRET_ARN, N8N_SECRET_ARN].toSorted());
    // A rotation of either is read at the next read after invalidate(), as the jobs' secret alone is.
    stub.n8nSecretString = JSON.stringify({ n8nApiKey: "n8n-key-rotated-5b2f" });
    secrets.invalidate();
    await expect(secrets.get()).resolves.toMatchObject({ n8nApiKey: "n8n-key-rotated-5b2f" });
  });

  it("errors name the secret that holds a field: n8n's key the n8n secret's where the function reads one", () => {
    expect(secretHolding("n8nApiKey", { WARDEN_N8N_SECRET_ARN: N8N_SECRET_ARN })).toBe("the n8n secret");
    expect(secretHolding("n8nApiKey", {})).toBe("the secret");
    expect(secretHolding("gitlabToken", { WARDEN_N8N_SECRET_ARN: N8N_SECRET_ARN })).toBe("the secret");
    expect(secretHolding("slackSigningSecret", {})).toBe("the chat-ops secret");
  });

  // The attack: the n8n secret is what a compromised n8n path holds; a GitLab token in it removes access.
  it.each(["gitlabToken", "pipelineToken", "slackSigningSecret", "gitlabStreamingToken", "gitlabSystemHookToken"])("the n8n secret is refused when it holds %s, naming it and never its value", async (name) => {
    stub.n8nSecretString = JSON.stringify({ n8nApiKey: SECRETS.n8nApiKey, [name]: "glpat-AbCdEfGhIjKlMnOpQrSt" });
    const error = String(await jobs({ secretId: undefined, n8nSecretId: N8N_SECRET_ARN }).get().catch((err: Error) => err));
    expect(error).toBe(`SecretsError: secret ${N8N_SECRET_ARN} (WARDEN_N8N_SECRET_ARN) holds ${name}, which belongs in the jobs' secret (WARDEN_SECRET_ARN) or an endpoint's: the functions that reconcile n8n read this one and must not hold it (remove it, and rotate it if this secret was ever read)`);
    expect(error).not.toContain("glpat-AbCd");
  });

  // Every function that acts on GitLab reads the jobs' secret: with an n8n secret deployed, none may hold n8n's key.
  it.each([{ n8nSeparate: true }, { n8nSecretId: N8N_SECRET_ARN }])("the jobs' secret is refused when it still holds n8nApiKey where the n8n key has its own (%o)", async (opts) => {
    stub.secretString = JSON.stringify({ ...GITLAB_ONLY, n8nApiKey: SECRETS.n8nApiKey });
    const error = String(await jobs(opts).get().catch((err: Error) => err));
    expect(error).toBe(`SecretsError: secret ${SECRET_ARN} (WARDEN_SECRET_ARN) holds n8nApiKey, which belongs in the n8n secret (WARDEN_N8N_SECRET_ARN) alone on this deployment: every function that acts on GitLab reads this one (remove it, and rotate it if this secret was ever read)`);
    expect(error).not.toContain(SECRETS.n8nApiKey);
    stub.secretString = JSON.stringify(GITLAB_ONLY);
    await expect(jobs({ n8nSeparate: true }).get()).resolves.toEqual(GITLAB_ONLY);
  });
});

describe("the public endpoints' secrets: the chat-ops one and the events'", () => {
  const chatops = () => chatopsSecretsCache({ client: client(), secretId: ENDPOINT_SECRET_ARN });
  const events = () => eventsSecretsCache({ client: client(), secretId: EVENTS_SECRET_ARN });
  const TOKENS = { gitlabStreamingToken: "stream-token", gitlabSystemHookToken: "hook-token-0123456789abcdef" };

  it("each holds what authenticates a request to its own Function URL, read from its own ARN", async () => {
    stub.endpointSecretString = JSON.stringify(ENDPOINT_SECRETS);
    stub.eventsSecretString = JSON.stringify(TOKENS);
    await expect(chatops().get()).resolves.toEqual(ENDPOINT_SECRETS);
    await expect(events().get()).resolves.toEqual(TOKENS);
    expect(stub.reads).toEqual([ENDPOINT_SECRET_ARN, EVENTS_SECRET_ARN]);
    expect(() => requireSecret({}, "gitlabStreamingToken", "streamed audit events")).toThrow("the events' secret has no gitlabStreamingToken, which streamed audit events needs");
    expect(() => requireSecret({}, "slackSigningSecret", "chat-ops")).toThrow("the chat-ops secret has no slackSigningSecret, which chat-ops needs");
  });

  it.each(["gitlabToken", "n8nApiKey", "slackWebhookUrl", "gitlabStreamingToken", "gitlabSystemHookToken"])("the chat-ops secret is refused when it holds %s, another's credential, naming it and never its value", async (name) => {
    stub.endpointSecretString = JSON.stringify({ ...ENDPOINT_SECRETS, [name]: "glpat-AbCdEfGhIjKlMnOpQrSt" });
    const error = String(await chatops().get().catch((err: Error) => err));
    expect(error).toBe(`SecretsError: secret ${ENDPOINT_SECRET_ARN} (WARDEN_ENDPOINT_SECRET_ARN) holds ${name}, which belongs in the jobs' secret (WARDEN_SECRET_ARN) or the events' (WARDEN_EVENTS_SECRET_ARN) alone: this public function must not hold it (remove it, and rotate it if this secret was ever read)`);
    expect(error).not.toContain("glpat-AbCd");
  });

  // With Slack's signing secret, whoever runs code in the Events function could sign any chat command.
  it.each(["gitlabToken", "slackSigningSecret"])("the events' secret is refused when it holds %s, naming it and never its value", async (name) => {
    stub.eventsSecretString = JSON.stringify({ ...TOKENS, [name]: "glpat-AbCdEfGhIjKlMnOpQrSt" });
    const error = String(await events().get().catch((err: Error) => err));
    expect(error).toBe(`SecretsError: secret ${EVENTS_SECRET_ARN} (WARDEN_EVENTS_SECRET_ARN) holds ${name}, which belongs in the jobs' secret (WARDEN_SECRET_ARN) or the chat-ops one (WARDEN_ENDPOINT_SECRET_ARN) alone: this public function must not hold it (remove it, and rotate it if this secret was ever read)`);
    expect(error).not.toContain("glpat-AbCd");
  });

  // Anyone may send an endpoint requests: were a failed read not kept, each would read the secret again.
  it("keep a failed read for 30 seconds (here the events' secret), giving it to every caller, then read again", async () => {
    let now = 0;
    stub.eventsSecretString = JSON.stringify({ ...TOKENS, slackSigningSecret: "y".repeat(32) });
    const secrets = eventsSecretsCache({ client: client(), secretId: EVENTS_SECRET_ARN, now: () => now });
    for (const at of [0, 1_000, 29_999]) {
      now = at;
      await expect(secrets.get()).rejects.toThrow(/holds slackSigningSecret/);
    }
    expect(stub.reads).toEqual([EVENTS_SECRET_ARN]);
    stub.eventsSecretString = JSON.stringify(TOKENS);
    now = 30_000;
    await expect(secrets.get()).resolves.toEqual(TOKENS);
    expect(stub.reads).toHaveLength(2);
  });

  it("says which variable is not set", async () => {
    await expect(chatopsSecretsCache({ client: client(), secretId: undefined }).get()).rejects.toThrow("WARDEN_ENDPOINT_SECRET_ARN is not set");
    await expect(eventsSecretsCache({ client: client(), secretId: undefined }).get()).rejects.toThrow("WARDEN_EVENTS_SECRET_ARN is not set");
  });
});
