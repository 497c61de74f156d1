/**
 * What a durable Enforce test file runs beside the handler: the Lambda world (lambda-world.ts) with
 * DynamoDB (dynalite) for the lease, and AWS's local durable runner, set up before the file's tests and
 * torn down after them.
 */
import { LocalDurableTestRunner } from "@aws/durable-execution-sdk-js-testing";
import { afterAll, beforeAll } from "vitest";
import { lambdaWorld, type LambdaWorld, type LambdaWorldOptions } from "./lambda-world.ts";

/** `skipTime`: the runner skips durable waits (no test here measures one). */
export function durableWorld(opts: { skipTime: boolean } & LambdaWorldOptions): LambdaWorld {
  const { skipTime, ...options } = opts;
  const world = lambdaWorld({ dynamo: true, ...options });
  // After the stand-ins start, and (vitest runs after-hooks in reverse) torn down before they stop.
  beforeAll(() => LocalDurableTestRunner.setupTestEnvironment({ skipTime }));
  afterAll(() => LocalDurableTestRunner.teardownTestEnvironment());
  return world;
}
