/**
 * What a durable Enforce test file runs beside the handler: Secrets Manager and DynamoDB (dynalite) on
 * loopback, and AWS's local durable runner, set up before the file's tests and torn down after them.
 * The stand-ins are fields of the returned object, there once the file's beforeAll has run.
 */
import { LocalDurableTestRunner } from "@aws/durable-execution-sdk-js-testing";
import { afterAll, beforeAll } from "vitest";
import { startDynalite, type Dynalite } from "../../sim/aws/dynalite.ts";
import { SECRETS, startSecretsManager, type SecretsManagerStub } from "./lambda.ts";

export interface DurableWorld {
  secretsManager: SecretsManagerStub;
  dynamo: Dynalite;
}

/** `skipTime`: the runner skips durable waits (no test here measures one). */
export function durableWorld(opts: { skipTime: boolean }): DurableWorld {
  const world = {} as DurableWorld;
  beforeAll(async () => {
    [world.secretsManager, world.dynamo] = await Promise.all([startSecretsManager(JSON.stringify(SECRETS)), startDynalite()]);
    await LocalDurableTestRunner.setupTestEnvironment({ skipTime: opts.skipTime });
  });
  afterAll(async () => {
    await LocalDurableTestRunner.teardownTestEnvironment();
    await Promise.all([world.secretsManager.close(), world.dynamo.close()]);
  });
  return world;
}
