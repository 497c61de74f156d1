/**
 * A count kept in one item of the claims table, changed by conditional updates only, so that runs at
 * the same time cannot pass a limit together: what the stream's removal budget (removal-budget.ts) and
 * the event runs' request budget (event-request-budget.ts) are kept in.
 */
import { ConditionalCheckFailedException, type DynamoDBClient, UpdateItemCommand } from "@aws-sdk/client-dynamodb";
import { requireEnv } from "../config/settings.ts";
import type { ClaimsOptions } from "./claims.ts";
import { dynamoClient } from "./dynamo-client.ts";

/** One conditional update of the item `key`: false when its condition did not hold (nothing changed). */
export type CountedUpdate = (key: string, expression: string, condition: string, values: Record<string, number>, signal?: AbortSignal) => Promise<boolean>;

export function countedItems(opts: Pick<ClaimsOptions, "client" | "table">): CountedUpdate {
  const table = opts.table ?? (() => requireEnv("WARDEN_CLAIMS_TABLE"));
  let client: Pick<DynamoDBClient, "send"> | undefined = opts.client;
  return async (key, expression, condition, values, signal) => {
    // Sent once: an ADD that DynamoDB applied and whose answer was lost would, sent again by the SDK, count twice
    // (a give-back twice is a budget past its limit). A failure is the caller's: a take not taken, a give-back not given.
    client ??= dynamoClient({ maxAttempts: 1 });
    try {
      await client.send(
        new UpdateItemCommand({
          TableName: table(),
          Key: { id: { S: key } },
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
}
