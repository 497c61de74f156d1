import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { secretsCache } from "../../functions/lib/config/secrets.ts";
import { captureLogs, SECRET_ARN, startSecretsManager, stubAwsEnv, type SecretsManagerStub } from "./support.ts";

const SECRET = { gitlabToken: "glpat-logger-test-4d1f9b", n8nApiKey: "n8n-key-logger-71c0ae", slackSigningSecret: "SLACK-SIGNING-SECRET-LOGGER-9E2A" };

let stub: SecretsManagerStub;
beforeEach(async () => {
  stub = await startSecretsManager(JSON.stringify(SECRET));
  stubAwsEnv({ POWERTOOLS_LOG_LEVEL: "INFO" });
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await stub.close();
});

const fragments = (text: string, secret: string) => Array.from({ length: secret.length - 5 }, (_, i) => secret.slice(i, i + 6)).filter((f) => text.includes(f));

describe("the Lambda logs", () => {
  it("every field of the secret, once read, is masked in every log line: message, fields and errors", async () => {
    const client = new SecretsManagerClient({ endpoint: stub.url, region: "eu-west-1", credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "dummy" }, maxAttempts: 1 });
    await secretsCache({ client, secretId: SECRET_ARN }).get();
    const { logger } = await import("../../functions/lib/lambda/logger.ts");
    const logs = captureLogs();
    for (const value of Object.values(SECRET)) {
      logger.info(`a service echoed ${value}`, { answer: `x${value.slice(2)}y`, nested: { list: [value.slice(0, 9)] } });
      logger.error("failed", new Error(`server said ${value}`));
    }
    const text = JSON.stringify(logs.lines());
    logs.restore();
    expect(text).toContain("[REDACTED]");
    for (const value of Object.values(SECRET)) expect(fragments(text, value)).toEqual([]);
  });
});
