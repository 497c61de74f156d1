/**
 * What a durable Enforce test file runs beside the handler: the Lambda world (lambda-world.ts) with
 * DynamoDB (dynalite) for the lease, and AWS's local durable runner, set up before the file's tests and
 * torn down after them.
 */
import { LocalDurableTestRunner } from "@aws/durable-execution-sdk-js-testing";
import type { Context } from "aws-lambda";
import { afterAll, beforeAll, expect, vi } from "vitest";
import type { EnforceReport } from "../../lib/jobs/index.ts";
import { lambdaWorld, type LambdaWorld, type LambdaWorldOptions } from "./lambda-world.ts";
import { NOTICES } from "./notices-world.ts";

/** `skipTime`: the runner skips durable waits (no test here measures one). */
export function durableWorld(opts: { skipTime: boolean } & LambdaWorldOptions): LambdaWorld {
  const { skipTime, ...options } = opts;
  const world = lambdaWorld({ dynamo: true, ...options });
  // After the stand-ins start, and (vitest runs after-hooks in reverse) torn down before they stop.
  beforeAll(() => LocalDurableTestRunner.setupTestEnvironment({ skipTime }));
  afterAll(() => LocalDurableTestRunner.teardownTestEnvironment());
  return world;
}

/**
 * `handler` (the Enforce function's) in the local durable runner, each invocation told it has `remainingMs`, as Lambda
 * counts down from the function's timeout (the runner itself reports 900 s every time); `took` collects how long each
 * invocation took, `overran()` those that took longer than they had.
 */
export function timedRunner<Result>(handler: (event: never, context: never) => Promise<unknown>, remainingMs: number) {
  const took: number[] = [];
  const runner = new LocalDurableTestRunner<Result>({
    handlerFunction: (async (event: unknown, context: Context) => {
      const started = Date.now();
      try {
        return await handler(event as never, { ...context, getRemainingTimeInMillis: () => Math.max(0, started + remainingMs - Date.now()) } as never);
      } finally {
        took.push(Date.now() - started);
      }
    }) as never,
  });
  return { runner, took, overran: () => took.filter((ms) => ms >= remainingMs) };
}

/**
 * One execution of the Enforce function as a new container loads it, each invocation given Lambda's 15
 * minutes: its report, once it succeeded (a test expecting that fails naming the execution's error otherwise).
 */
export async function succeededEnforce(payload: object): Promise<EnforceReport> {
  vi.resetModules();
  const { handler } = await import("../../functions/enforce.ts");
  const execution = await timedRunner<EnforceReport>(handler, 900_000).runner.run({ payload });
  const status = execution.getStatus();
  expect(status, status === "SUCCEEDED" ? "" : `execution error: ${execution.getError()?.errorMessage}`).toBe("SUCCEEDED");
  return execution.getResult()!;
}

/** A request to the world's GitLab as the user of `token` that GitLab answers 201 (a share, a notice made by hand). */
export async function created(world: LambdaWorld, token: string, method: string, path: string, body: unknown): Promise<void> {
  const res = await fetch(`${world.gitlab.url}/api/v4${path}`, { method, headers: { "private-token": token, "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(res.status).toBe(201);
}

/**
 * Jane shares acme/app (100) and her group acme (10) with partners (20), made through the API as GitLab
 * records them: two strays under onStray notify (notices-world.ts). The notice of `due` ("project:100:group:20"
 * or "group:10:group:20"), Warden's own opened by an earlier run, is due: the run removes that share.
 */
export async function twoStraysOneDue(world: LambdaWorld, due: string): Promise<void> {
  await created(world, "jane", "POST", "/projects/100/share", { group_id: 20, group_access: 30 });
  await created(world, "jane", "POST", "/groups/10/share", { group_id: 20, group_access: 30 });
  await created(world, "glpat-sim-admin", "POST", `/projects/${NOTICES}/issues`, { title: "notice", description: `<!-- warden-share: ${due} -->\nx`, labels: `warden::notice,warden-share::${due}`, due_date: "2020-01-01" });
}
