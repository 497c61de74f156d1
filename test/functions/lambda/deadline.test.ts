import middy from "@middy/core";
import type { Context } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { deadlineSignal, DeadlineError, type DeadlineContext } from "../../../functions/shared/lambda/deadline.ts";
import { lambdaContext } from "../../support/lambda.ts";

/** A handler that waits for the signal and reports when it fired. */
function waiting(opts: Parameters<typeof deadlineSignal>[0]) {
  return middy()
    .use(deadlineSignal(opts))
    .handler(async (_event, context) => {
      const { signal } = context as Context & DeadlineContext;
      const started = Date.now();
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      return { afterMs: Date.now() - started, reason: signal.reason as Error };
    });
}

describe("deadlineSignal middleware", () => {
  it("aborts the margin before the Lambda's timeout, with a reason a report can quote", async () => {
    const result = (await waiting({ marginMs: 10_000, floorMs: 50 })(undefined, lambdaContext({ remainingMs: 10_150 }))) as { afterMs: number; reason: Error };
    expect(result.afterMs).toBeGreaterThanOrEqual(100);
    expect(result.afterMs).toBeLessThan(1_000);
    expect(result.reason).toBeInstanceOf(DeadlineError);
    expect(result.reason.message).toBe("the Lambda times out in 10 s");
  });

  it("gives the job at least the floor when less time than the margin is left", async () => {
    const result = (await waiting({ marginMs: 10_000, floorMs: 200 })(undefined, lambdaContext({ remainingMs: 5_000 }))) as { afterMs: number };
    expect(result.afterMs).toBeGreaterThanOrEqual(190);
    expect(result.afterMs).toBeLessThan(1_000);
  });

  it("does not fire after the invocation ended", async () => {
    let signal: AbortSignal | undefined;
    const quick = middy()
      .use(deadlineSignal({ marginMs: 0, floorMs: 50 }))
      .handler(async (_event, context) => {
        signal = (context as Context & DeadlineContext).signal;
        return "done";
      });
    await quick(undefined, lambdaContext({ remainingMs: 50 }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(signal?.aborted).toBe(false);
  });
});
