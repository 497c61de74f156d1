/**
 * What the last full Enforce run found (lib/jobs/enforce/rules.ts's LastSweep): the rules that matched
 * nothing, under which policy, when, whether it planned more than the guard allows, and the removals
 * GitLab refused for good (the next full run's guard counts them not). One item of the claims table ("rules:last-sweep", no expiresAt, so
 * DynamoDB's TTL never deletes it), written by the Enforce function after each run that examined the
 * whole scope (dry or applying: it found them either way) and read by Watch and the EventsWorker, whose
 * targeted runs see part of the scope and so cannot tell a glob that matches nothing, and by Enforce
 * itself before its run. sst.config.ts lets only Enforce write it and those two only read it (the chat
 * Worker's runs are untargeted).
 */
import { sweepAfter, type LastSweep } from "../../../lib/jobs/index.ts";
import type { TimeLeft } from "../lambda/time-left.ts";
import type { ClaimsOptions } from "./claims.ts";
import { readBeforeRun, recordItem } from "./record-item.ts";

export const LAST_SWEEP_KEY = "rules:last-sweep";

export interface LastSweepStore {
  /** Undefined before the first full run. Throws when the table cannot be read: a targeted run must not apply blind. */
  read(signal?: AbortSignal): Promise<LastSweep | undefined>;
  /** Kept as sweepAfter says, from the record before it (read first). */
  write(sweep: LastSweep, signal?: AbortSignal): Promise<void>;
}

export function dynamoLastSweep(opts: Pick<ClaimsOptions, "client" | "table"> = {}): LastSweepStore {
  const item = recordItem(LAST_SWEEP_KEY, opts);
  const store: LastSweepStore = {
    async read(signal) {
      const Item = await item.get(signal);
      if (!Item) return undefined;
      const policySha256 = Item["policySha256"]?.S;
      const at = Item["at"]?.S;
      const unmatched = Item["unmatched"]?.L?.map((rule) => rule.S);
      if (!policySha256 || !at || !unmatched || unmatched.some((rule) => typeof rule !== "string")) {
        throw new Error(`the claims table's ${LAST_SWEEP_KEY} item is not what the Enforce function writes: delete it (the next full run writes it again)`);
      }
      const refused = Item["refused"]?.L?.map((key) => key.S);
      if (refused?.some((key) => typeof key !== "string")) throw new Error(`the claims table's ${LAST_SWEEP_KEY} item is not what the Enforce function writes: delete it (the next full run writes it again)`);
      // An item written before tooMany (or refused) was recorded has none: read as a run the guard passed (that GitLab refused nothing).
      return { policySha256, at, unmatched: unmatched as string[], ...(Item["tooMany"]?.BOOL === true && { tooMany: true as const }), ...(refused?.length && { refused: refused as string[] }) };
    },
    async write(sweep, signal) {
      // A record that cannot be read leaves the sweep as it is: every rule it found matching nothing named (the safe side).
      const previous = await store.read(signal).catch(() => undefined);
      const { policySha256, unmatched, at, tooMany, refused } = sweepAfter(previous, sweep);
      await item.put(
        {
          policySha256: { S: policySha256 }, at: { S: at }, unmatched: { L: unmatched.map((rule) => ({ S: rule })) },
          ...(tooMany && { tooMany: { BOOL: true } }),
          ...(refused?.length && { refused: { L: refused.map((key) => ({ S: key })) } }),
        },
        signal,
      );
    },
  };
  return store;
}

/**
 * The record, for the Enforce function's own full run (the removals GitLab refused the last one, which its
 * guard does not count); undefined when there is none, or it cannot be read: the run goes on without it
 * (every removal counted, the guard's safe side), saying so.
 */
export function lastSweepForSweep(store: LastSweepStore, timeLeft: TimeLeft): Promise<LastSweep | undefined> {
  return readBeforeRun((signal) => store.read(signal), "the last full run's record", "this run's guard counts every removal, those GitLab refused it included", timeLeft);
}
