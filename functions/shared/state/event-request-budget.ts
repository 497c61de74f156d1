/**
 * The GitLab requests the EventsWorker's runs send in an hour, kept within the policy's
 * gitlab.events.maxRequestsPerHour. Whoever holds the streaming token (or the system hook's) chooses how
 * many events arrive, each a new one, and each starts a run with the jobs' token: unbounded, a flood
 * spends the rate limit GitLab gives that token, which the scheduled sweep and the watch need too. So
 * a run starts only while the hour's runs have sent fewer than the limit, and adds what it sent when it
 * ends; runs in flight when the limit is reached may end past it, by their own requests (the
 * EventsWorker runs 5 at a time). A run not started is the sweep's to find.
 *
 * One item of the claims table an hour of the clock ("budget:stream:requests:2026-11-30T14", under the
 * prefix sst.config.ts gives the EventsWorker alone), changed by conditional updates only; DynamoDB's
 * TTL deletes it after two hours.
 */
import type { ClaimsOptions } from "./claims.ts";
import { countedItems } from "./counted-item.ts";

const PREFIX = "budget:stream:requests:";
const KEPT_SECONDS = 2 * 3600;

export interface EventRequestBudget {
  /** Undefined once this hour's runs have sent `limit` requests; else where the run's own go (`spend`, once it ends). */
  open(limit: number, signal?: AbortSignal): Promise<{ spend(requests: number, signal?: AbortSignal): Promise<void> } | undefined>;
}

export function dynamoEventRequestBudget(opts: Pick<ClaimsOptions, "client" | "table" | "now"> = {}): EventRequestBudget {
  const now = opts.now ?? Date.now;
  const counted = countedItems(opts);
  return {
    async open(limit, signal) {
      const at = now();
      const key = `${PREFIX}${new Date(at).toISOString().slice(0, 13)}`;
      const expires = Math.floor(at / 1000) + KEPT_SECONDS;
      const opened = await counted(key, "ADD runs :one SET expiresAt = if_not_exists(expiresAt, :expires)", "attribute_not_exists(requests) OR requests < :limit", { ":one": 1, ":limit": limit, ":expires": expires }, signal);
      if (!opened) return undefined;
      return {
        async spend(requests, spendSignal) {
          if (requests > 0) await counted(key, "ADD requests :n", "attribute_exists(runs)", { ":n": requests }, spendSignal);
        },
      };
    },
  };
}
