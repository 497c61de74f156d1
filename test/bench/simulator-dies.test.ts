/**
 * Every wait is bounded: a simulator process that dies (out of memory generating its world, or killed
 * by the OOM killer mid-row) fails the bench's wait for its answer (bin/bench/sim-host.ts) instead of
 * leaving it waiting for ever.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startSimHost } from "../../bin/bench/sim-host.ts";

const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise.then(() => "answered" as const, () => "failed" as const), new Promise<"still waiting">((resolve) => setTimeout(() => resolve("still waiting"), ms).unref())]);

describe("a simulator process that dies", () => {
  const saved = process.env.NODE_OPTIONS;
  afterEach(() => {
    if (saved === undefined) delete process.env.NODE_OPTIONS;
    else process.env.NODE_OPTIONS = saved;
  });

  it("fails the row within a bounded time when it runs out of memory building its world", async () => {
    // A machine with little memory, in small: the forked simulator's heap capped well below its world.
    process.env.NODE_OPTIONS = "--max-old-space-size=48";
    const started = startSimHost({ projects: 300_000, latencyMs: 0, rateLimits: [] });
    const outcome = await within(started, 15_000);
    expect(outcome).toBe("failed");
    // Its error names the exit.
    await expect(started).rejects.toThrow(/the simulator of 300000 projects exited \((code \d+|signal SIG\w+)\)/);
  }, 30_000);
});
