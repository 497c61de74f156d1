/**
 * The Watch function's cursor store (lib/jobs/watch/store.ts), one item in the claims table ("watch:cursor", no
 * expiresAt, so DynamoDB's TTL never deletes it). Each write names the revision it read: of two
 * invocations that overlap, only the first to write moves the cursor; the other's write is refused
 * and it says so (what it enforced was idempotent: a share already removed is "already gone").
 */
import { ConditionalCheckFailedException, GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { dynamoClient } from "./dynamo-client.ts";
import { parseWatchCursor, type CursorStore } from "../../../lib/jobs/watch/index.ts";
import { requireEnv } from "../config/settings.ts";
import type { ClaimsOptions } from "./claims.ts";

const KEY = "watch:cursor";

export function dynamoWatchCursor(opts: Pick<ClaimsOptions, "client" | "table"> = {}): CursorStore {
  const table = opts.table ?? (() => requireEnv("WARDEN_CLAIMS_TABLE"));
  let client = opts.client;
  return {
    async read() {
      client ??= dynamoClient();
      const { Item } = await client.send(new GetItemCommand({ TableName: table(), Key: { id: { S: KEY } }, ConsistentRead: true }));
      if (!Item) return undefined;
      const cursor = parseWatchCursor(JSON.parse(Item["cursor"]?.S ?? "null"));
      if (!cursor) throw new Error(`the claims table's ${KEY} item is not a watch cursor: delete it to start afresh at the newest audit event`);
      return { cursor, revision: Number(Item["revision"]?.N) };
    },
    async write(cursor, read) {
      client ??= dynamoClient();
      try {
        await client.send(
          new PutItemCommand({
            TableName: table(),
            Item: { id: { S: KEY }, cursor: { S: JSON.stringify(cursor) }, revision: { N: String(read + 1) } },
            ...(read === 0
              ? { ConditionExpression: "attribute_not_exists(id)" }
              : { ConditionExpression: "revision = :read", ExpressionAttributeValues: { ":read": { N: String(read) } } }),
          }),
        );
        return true;
      } catch (err) {
        if (err instanceof ConditionalCheckFailedException) return false;
        throw err;
      }
    },
  };
}
