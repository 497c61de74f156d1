/**
 * withinCheckpoint (functions/shared/durable/steps.ts) measures what the step records, `{ value, invocation }`
 * (a UUID beside the value), not the value alone: measured alone, a result whose compressed size lands just
 * under the limit was left whole and then refused by the serdes after its work ("a step's result is … bytes
 * compressed, more than a checkpoint holds"), what the cut is there to prevent (the today9 review).
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { CHECKPOINT_LIMIT, checkpointBytes, durableSteps, type Invocation } from "../../../functions/shared/durable/steps.ts";

/** A removal step's result (a failed removal with a server's incompressible error text), the largest whose own recorded size is within the limit (so withinCheckpoint leaves it whole). */
function justUnder() {
  let lo = 1_000;
  let hi = 400_000;
  const seed = randomBytes(hi).toString("base64");
  const at = (n: number) => ({ actions: [{ status: "failed", error: seed.slice(0, n) }], warnings: [] as string[] });
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (checkpointBytes(at(mid)) <= CHECKPOINT_LIMIT) lo = mid;
    else hi = mid;
  }
  return at(lo);
}

describe("a step's result within the checkpoint as it is recorded", () => {
  it("a result just under the limit on its own is still recorded, with the invocation beside it", async () => {
    const value = justUnder();
    expect(checkpointBytes(value)).toBeLessThanOrEqual(CHECKPOINT_LIMIT);
    // A DurableContext whose step serialises as Lambda's does (the serdes' result must fit the checkpoint).
    const ctx = {
      async step(_name: string, fn: (s: { attempt: number }) => Promise<unknown>, opts: { serdes: { serialize(v: unknown, c: unknown): Promise<string | undefined>; deserialize(d: string | undefined, c: unknown): Promise<unknown> } }) {
        const v = await fn({ attempt: 1 });
        return opts.serdes.deserialize(await opts.serdes.serialize(v, {}), {});
      },
      async wait() {},
    };
    const invocation: Invocation = { id: "0b8c8f7e-5f2e-4c55-9a53-8f3c1f7d2b10", startedAt: Date.now(), sliceMs: 60_000, deadline: new AbortController().signal, deadlineAt: Date.now() + 60_000 };
    const steps = durableSteps(ctx as never, invocation);
    let error: unknown;
    try {
      await steps.step("remove 1", async () => value, { changes: true });
    } catch (err) {
      error = err;
    }
    expect(String(error ?? "recorded"), "the step's result, cut to fit if need be, is recorded").toBe("recorded");
  });
});
