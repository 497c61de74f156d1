/**
 * Which run `restore latest` trusts: the greatest key name under runs/enforce/{schedule,console,chat}/,
 * and a key's name carries the time its writer chose (run-history.ts's runKey). Whatever may write one
 * of those prefixes (the chat Worker, behind the internet-facing Chatops endpoint, may write
 * runs/enforce/chat/*) must not make a run named in the future "the latest sweep" for every restore
 * until the bucket's lifecycle expires it.
 */
import { describe, expect, it } from "vitest";
import { runKey, runReader } from "../../../lib/jobs/index.ts";
import type { RunObjects } from "../../../lib/jobs/restore/run-history.ts";

const BUCKET = "warden-runs";

function objects(keys: string[]): RunObjects {
  return {
    async *keys(_bucket, prefix) {
      for (const key of [...keys].sort()) if (key.startsWith(prefix)) yield key;
    },
    text: async (_bucket, key) => JSON.stringify({ job: "enforce", dryRun: false, actions: [], key }),
  };
}

describe("restore latest and a key dated in the future", () => {
  it("a run stored under a future time does not outrank the sweeps that really finished last", async () => {
    const hourAgo = new Date(Date.now() - 3_600_000);
    const real = runKey("enforce", "schedule", hourAgo, "real-sweep");
    // Stored at some time in the past by whatever holds PutObject on runs/enforce/chat/*, named for the year 9999.
    const planted = runKey("enforce", "chat", new Date("9999-12-31T23:59:59.999Z"), "planted");
    expect(planted).toBe("runs/enforce/chat/99991231T235959.999Z-planted.json");
    const reader = runReader(objects([real, planted]), () => BUCKET);
    const { location } = await reader.read("latest", "enforce");
    expect(location).toBe(`s3://${BUCKET}/${real}`);
  });

  it("a run finished a moment ago on a writer whose clock is ahead is still the latest; a name not in a run's form is none", async () => {
    const ahead = runKey("enforce", "console", new Date(Date.now() + 60_000), "clock-ahead");
    const older = runKey("enforce", "schedule", new Date(Date.now() - 60_000), "older");
    const reader = runReader(objects([older, ahead, "runs/enforce/schedule/zzz-not-a-run.json"]), () => BUCKET);
    expect((await reader.read("latest", "enforce")).location).toBe(`s3://${BUCKET}/${ahead}`);
  });
});

