/**
 * The removals targeted runs share under a policy no full run has judged yet (lib/jobs/enforce's
 * RemovalBudget): the EventsWorker's, whose subjects whoever holds the streaming token chooses, one an
 * event, and the Watch's, a poll's subjects a batch (functions/watch.ts); each run's guard sees only its
 * own, so until the Enforce function's full run under the policy passes the guard, their removals add up
 * to gitlab.guard.maxRemovals at most, poll after poll and event after event. One item of the claims table
 * a policy ("budget:stream:<sha256>": named when the stream's runs alone took from it, and kept, since a new
 * name would begin anew the count of a policy already taken from), taken from by a conditional update, so
 * that runs at the same time cannot pass the limit together, and given back what a run surely did not remove
 * (a refusal, a share another run removed first); it expires after 30 days (DynamoDB's TTL). sst.config.ts
 * lets only the EventsWorker and the Watch update it (not the public Events function).
 */
import type { RemovalBudget } from "../../../lib/jobs/index.ts";
import type { ClaimsOptions } from "./claims.ts";
import { countedItems } from "./counted-item.ts";

const REMOVAL_BUDGET_PREFIX = "budget:stream:";
const KEPT_SECONDS = 30 * 24 * 3600;
/** One UpdateItem (a throttled one sent again twice), after the run's deadline has fired. */
const GIVE_BACK_MS = 2_000;

export function dynamoRemovalBudget(opts: Pick<ClaimsOptions, "client" | "table" | "now"> = {}): RemovalBudget {
  const now = opts.now ?? Date.now;
  const counted = countedItems(opts);
  const update = (policySha256: string, expression: string, condition: string, values: Record<string, number>, signal?: AbortSignal) => counted(`${REMOVAL_BUDGET_PREFIX}${policySha256}`, expression, condition, values, signal);
  return {
    async reserve(policySha256, removals, limit, signal) {
      if (removals > limit) return false;
      const at = Math.floor(now() / 1000);
      const expires = at + KEPT_SECONDS;
      const take = () => update(policySha256, "ADD removals :n SET expiresAt = if_not_exists(expiresAt, :expires)", "attribute_not_exists(removals) OR removals <= :room", { ":n": removals, ":room": limit - removals, ":expires": expires }, signal);
      if (await take()) return true;
      // An item past its expiry, which DynamoDB's TTL deletes only within days, is a new budget (as claims.ts takes an
      // expired claim), not a full one holding every stream run back; another run may have begun it anew meanwhile.
      return (await update(policySha256, "SET removals = :n, expiresAt = :expires", "expiresAt < :now", { ":n": removals, ":expires": expires, ":now": at }, signal)) || take();
    },
    async release(policySha256, removals, signal) {
      // A run its deadline stopped gives back with that signal fired (the removals it did not reach): sent with it,
      // the give-back was refused unsent and they stayed taken for 30 days. A short bound of its own instead,
      // within the time the deadline keeps for the run's report.
      const bound = signal?.aborted ? AbortSignal.timeout(GIVE_BACK_MS) : signal;
      // Never below nothing: an item expired (or deleted) meanwhile has nothing to give back to.
      await update(policySha256, "ADD removals :back", "removals >= :n", { ":back": -removals, ":n": removals }, bound);
    },
  };
}
