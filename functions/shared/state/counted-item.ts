/**
 * A count kept in one item of the claims table, changed by conditional updates only, so that runs at
 * the same time cannot pass a limit together: what the stream's removal budget (removal-budget.ts) and
 * the event runs' request budget (event-request-budget.ts) are kept in.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { ConditionalCheckFailedException, type DynamoDBClient, UpdateItemCommand } from "@aws-sdk/client-dynamodb";
import { requireEnv } from "../config/settings.ts";
import type { ClaimsOptions } from "./claims.ts";
import { dynamoClient } from "./dynamo-client.ts";

/** Answers saying DynamoDB applied nothing (the request refused as throttled): the one kind sent again. */
const THROTTLED = new Set(["ThrottlingException", "ProvisionedThroughputExceededException", "RequestLimitExceeded"]);
const TRIES = 3;

/** One conditional update of the item `key`: false when its condition did not hold (nothing changed). */
export type CountedUpdate = (key: string, expression: string, condition: string, values: Record<string, number>, signal?: AbortSignal) => Promise<boolean>;

export function countedItems(opts: Pick<ClaimsOptions, "client" | "table">): CountedUpdate {
  const table = opts.table ?? (() => requireEnv("WARDEN_CLAIMS_TABLE"));
  let client: Pick<DynamoDBClient, "send"> | undefined = opts.client;
  return async (key, expression, condition, values, signal) => {
    // Not by the SDK's attempts: an ADD that DynamoDB applied and whose answer was lost would, sent again, count
    // twice (a give-back twice is a budget past its limit). Only a throttled one, which applied nothing, is sent
    // again below; any other failure is the caller's: a take not taken, a give-back not given.
    client ??= dynamoClient({ maxAttempts: 1 });
    const command = new UpdateItemCommand({
      TableName: table(),
      Key: { id: { S: key } },
      UpdateExpression: expression,
      ConditionExpression: condition,
      ExpressionAttributeValues: Object.fromEntries(Object.entries(values).map(([name, n]) => [name, { N: String(n) }])),
    });
    for (let tries = 1; ; tries++) {
      try {
        await client.send(command, { abortSignal: signal });
        return true;
      } catch (err) {
        if (err instanceof ConditionalCheckFailedException) return false;
        // Refused before any write: sending it again counts nothing twice (a lost answer is not sent again).
        if (tries < TRIES && THROTTLED.has((err as Error).name) && !signal?.aborted) {
          await sleep(100 * tries, undefined, signal ? { signal } : {});
          continue;
        }
        throw err;
      }
    }
  };
}
