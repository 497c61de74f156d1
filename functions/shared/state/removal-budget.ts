/**
 * The removals the EventsWorker's targeted runs share under a policy no full run has judged yet
 * (lib/jobs/enforce's RemovalBudget): whoever holds the streaming token chooses the subjects, one an
 * event, and each run's guard sees only its own; so until the Enforce function's full run under the
 * policy passes the guard, their removals add up to gitlab.guard.maxRemovals at most. One item of the
 * claims table a policy ("budget:stream:<sha256>"), taken from by a conditional update, so that runs at
 * the same time cannot pass the limit together, and given back what a run surely did not remove (a refusal,
 * a share another run removed first); it expires after 30 days (DynamoDB's TTL). sst.config.ts
 * lets only the EventsWorker update it (not the public Events function).
 */
import { ConditionalCheckFailedException, UpdateItemCommand } from "@aws-sdk/client-dynamodb";
import { dynamoClient } from "./dynamo-client.ts";
import type { RemovalBudget } from "../../../lib/jobs/index.ts";
import { requireEnv } from "../config/settings.ts";
import type { ClaimsOptions } from "./claims.ts";

const REMOVAL_BUDGET_PREFIX = "budget:stream:";
const KEPT_SECONDS = 30 * 24 * 3600;

export function dynamoRemovalBudget(opts: Pick<ClaimsOptions, "client" | "table" | "now"> = {}): RemovalBudget {
  const table = opts.table ?? (() => requireEnv("WARDEN_CLAIMS_TABLE"));
  const now = opts.now ?? Date.now;
  let client = opts.client;
  /** One conditional update of the policy's item; false when its condition did not hold (nothing changed). */
  const update = async (policySha256: string, expression: string, condition: string, values: Record<string, number>, signal?: AbortSignal): Promise<boolean> => {
    client ??= dynamoClient();
    try {
      await client.send(
        new UpdateItemCommand({
          TableName: table(),
          Key: { id: { S: `${REMOVAL_BUDGET_PREFIX}${policySha256}` } },
          UpdateExpression: expression,
          ConditionExpression: condition,
          ExpressionAttributeValues: Object.fromEntries(Object.entries(values).map(([name, n]) => [name, { N: String(n) }])),
        }),
        { abortSignal: signal },
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return false;
      throw err;
    }
  };
  return {
    async reserve(policySha256, removals, limit, signal) {
      if (removals > limit) return false;
      const expires = Math.floor(now() / 1000) + KEPT_SECONDS;
      return update(policySha256, "ADD removals :n SET expiresAt = if_not_exists(expiresAt, :expires)", "attribute_not_exists(removals) OR removals <= :room", { ":n": removals, ":room": limit - removals, ":expires": expires }, signal);
    },
    async release(policySha256, removals, signal) {
      // Never below nothing: an item expired (or deleted) meanwhile has nothing to give back to.
      await update(policySha256, "ADD removals :back", "removals >= :n", { ":back": -removals, ":n": removals }, signal);
    },
  };
}
