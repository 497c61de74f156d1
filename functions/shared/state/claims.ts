/**
 * At most once, across every container: a key is claimed with one conditional write to the claims
 * table (WARDEN_CLAIMS_TABLE, declared in sst.config.ts), which succeeds for the first claimant and
 * fails for every later or concurrent one, until the claim expires (DynamoDB's TTL deletes it later).
 *
 * A plain conditional write rather than Powertools Idempotency, because what is wanted is "run at most
 * once and acknowledge every copy", not "replay the first answer": Idempotency fails a copy that
 * arrives while the first still runs with IdempotencyAlreadyInProgressError (which middy's
 * httpErrorHandler turns into a 500 for Slack, and which a worker copy would report as a failure),
 * and it deletes its record when the handler throws, so a retry runs again — a second pipeline, or a
 * half-applied plan applied again. Here a claim is kept whatever becomes of the run. It is also one
 * PutItem with the plain DynamoDB client on chat-ops' 3-second path, without Idempotency's JMESPath,
 * document client and persistence layer.
 */
import { ConditionalCheckFailedException, DeleteItemCommand, DynamoDBClient, GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { dynamoClient } from "./dynamo-client.ts";
import { randomUUID } from "node:crypto";
import { requireEnv } from "../config/settings.ts";

export interface Claims {
  /**
   * True for the first claim of `key` (until `expiresAt`, Unix seconds), false for any other.
   * Throws when the table cannot be reached: then nobody knows, and the caller must not run.
   */
  claim(key: string, expiresAt: number, holder?: string, signal?: AbortSignal): Promise<boolean>;
  /** Ends `holder`'s claim of `key` early (a lease given back); another's claim is left alone. `signal` bounds the call. */
  release(key: string, holder: string, signal?: AbortSignal): Promise<void>;
  /** Who holds `key` now, and until when (Unix seconds); undefined when nobody does. `signal` bounds the call. */
  holder(key: string, signal?: AbortSignal): Promise<{ holder: string; expiresAt: number } | undefined>;
}

export interface ClaimsOptions {
  client?: Pick<DynamoDBClient, "send">;
  /** The table's name; read from WARDEN_CLAIMS_TABLE when first needed by default. */
  table?: () => string;
  /** Milliseconds since the epoch; tests move the clock. */
  now?: () => number;
}

export function dynamoClaims(opts: ClaimsOptions = {}): Claims {
  const table = opts.table ?? (() => requireEnv("WARDEN_CLAIMS_TABLE"));
  const now = opts.now ?? Date.now;
  let client = opts.client;
  return {
    async claim(key, expiresAt, holder, signal) {
      client ??= dynamoClient();
      const TableName = table();
      // Each attempt carries a token of its own: if the SDK retries a write whose answer was lost, the
      // claim found is recognised as this one rather than mistaken for someone else's. A named holder
      // (a durable execution taking its lease) is its own token, so claiming again is no refusal.
      const token = holder ?? randomUUID();
      try {
        await client.send(
          new PutItemCommand({
            TableName,
            Item: { id: { S: key }, expiresAt: { N: String(expiresAt) }, token: { S: token } },
            // TTL deletes an expired item only eventually (within days): until then it is no claim.
            ConditionExpression: "attribute_not_exists(id) OR expiresAt < :now OR #token = :token",
            ExpressionAttributeNames: { "#token": "token" },
            ExpressionAttributeValues: { ":now": { N: String(Math.floor(now() / 1000)) }, ":token": { S: token } },
          }),
          { abortSignal: signal },
        );
        return true;
      } catch (err) {
        if (!(err instanceof ConditionalCheckFailedException)) throw err;
        const { Item } = await client.send(new GetItemCommand({ TableName, Key: { id: { S: key } }, ConsistentRead: true }), { abortSignal: signal });
        return Item?.["token"]?.S === token;
      }
    },
    async release(key, holder, signal) {
      client ??= dynamoClient();
      try {
        await client.send(
          new DeleteItemCommand({
            TableName: table(),
            Key: { id: { S: key } },
            ConditionExpression: "#token = :token",
            ExpressionAttributeNames: { "#token": "token" },
            ExpressionAttributeValues: { ":token": { S: holder } },
          }),
          { abortSignal: signal },
        );
      } catch (err) {
        if (!(err instanceof ConditionalCheckFailedException)) throw err;
      }
    },
    async holder(key, signal) {
      client ??= dynamoClient();
      const { Item } = await client.send(new GetItemCommand({ TableName: table(), Key: { id: { S: key } }, ConsistentRead: true }), { abortSignal: signal });
      const expiresAt = Number(Item?.["expiresAt"]?.N);
      const token = Item?.["token"]?.S;
      return token && expiresAt >= Math.floor(now() / 1000) ? { holder: token, expiresAt } : undefined;
    },
  };
}
