/**
 * docs/aws.md's "What a cold start costs" table comes from `npx node bin/bench/cold-start.ts`: it runs
 * to its result though chat-ops starts at most 5 commands a minute for each person (each of its 21
 * commands comes from a Slack user of its own).
 */
import { describe, expect, it } from "vitest";
import { measureColdStart } from "../../bin/bench/cold-start.ts";

describe("the cold-start bench docs/aws.md names", () => {
  it("runs to its result on the current code", async () => {
    const result = await measureColdStart();
    expect(result.warmAckMs).toBeGreaterThan(0);
  }, 60_000);
});
