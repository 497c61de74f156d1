import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { secretsCache } from "../../../functions/shared/config/secrets.ts";
import { captureLogs, SECRET_ARN, startSecretsManager, stubAwsEnv, type SecretsManagerStub } from "../../support/lambda.ts";

/** The jobs' secret's fields (an endpoint's field left in it is neither used nor masked: test/functions/config/secrets.test.ts). */
const SECRET = { gitlabToken: "glpat-logger-test-4d1f9b", pipelineToken: "pipeline-token-logger-9e2a", n8nApiKey: "n8n-key-logger-71c0ae" };

let stub: SecretsManagerStub;
beforeEach(async () => {
  stub = await startSecretsManager(JSON.stringify(SECRET));
  stubAwsEnv({ POWERTOOLS_LOG_LEVEL: "INFO" });
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await stub.close();
});

describe("the Lambda logs", () => {
  it("every field of the secret, once read, is masked in every log line: message, fields and errors", async () => {
    const client = new SecretsManagerClient({ endpoint: stub.url, region: "eu-west-1", credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "dummy" }, maxAttempts: 1 });
    await secretsCache({ client, secretId: SECRET_ARN }).get();
    const { logger } = await import("../../../functions/shared/lambda/logger.ts");
    const logs = captureLogs();
    for (const value of Object.values(SECRET)) {
      logger.info(`a service echoed ${value}`, { answer: `x${value}y`, nested: { list: [`"${value}"`] }, piece: value.slice(2) });
      logger.error("failed", new Error(`server said ${value}`));
    }
    const lines = logs.lines();
    const text = JSON.stringify(lines);
    logs.restore();
    expect(text.match(/\[REDACTED\]/g)!.length).toBeGreaterThanOrEqual(4 * Object.keys(SECRET).length);
    for (const value of Object.values(SECRET)) expect(text).not.toContain(value);
    // A piece of a credential is masked no more than any other text (whether it were would tell whoever chose it).
    expect(lines.filter((line) => "piece" in line).map((line) => line["piece"])).toEqual(Object.values(SECRET).map((value) => value.slice(2)));
  });
});
