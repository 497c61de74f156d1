/**
 * A run's record in the claims table: one item under a fixed key, with no expiresAt (so DynamoDB's TTL
 * never deletes it), read consistently and written whole. The last full Enforce run's (last-sweep.ts) and
 * the Workflows function's refusals (workflows-refusals.ts) are such records, each read before a run
 * (readBeforeRun) and written after it.
 */
import { GetItemCommand, PutItemCommand, type AttributeValue } from "@aws-sdk/client-dynamodb";
import { errorText } from "../../../lib/jobs/index.ts";
import { requireEnv } from "../config/settings.ts";
import { logger } from "../lambda/logger.ts";
import { sliceSignal, type TimeLeft } from "../lambda/time-left.ts";
import type { ClaimsOptions } from "./claims.ts";
import { dynamoClient } from "./dynamo-client.ts";

export type Attributes = Record<string, AttributeValue>;

export interface RecordItem {
  /** The record's attributes, its key's among them; undefined when there is none. */
  get(signal?: AbortSignal): Promise<Attributes | undefined>;
  /** Writes `attributes` as the record, whole. */
  put(attributes: Attributes, signal?: AbortSignal): Promise<void>;
}

export function recordItem(key: string, opts: Pick<ClaimsOptions, "client" | "table"> = {}): RecordItem {
  const table = opts.table ?? (() => requireEnv("WARDEN_CLAIMS_TABLE"));
  let client = opts.client;
  const id = { id: { S: key } };
  return {
    async get(signal) {
      client ??= dynamoClient();
      return (await client.send(new GetItemCommand({ TableName: table(), Key: id, ConsistentRead: true }), { abortSignal: signal })).Item;
    },
    async put(attributes, signal) {
      client ??= dynamoClient();
      await client.send(new PutItemCommand({ TableName: table(), Item: { ...attributes, ...id } }), { abortSignal: signal });
    },
  };
}

/** The longest reading a record before a run may take: one GetItem. */
const READ_TIMEOUT_MS = 5_000;

/**
 * The record `what` names, for the run about to start; undefined when there is none, or it cannot be read:
 * the run goes on without it, as `without` says in the warning (the guard's safe side, in both records).
 */
export async function readBeforeRun<T>(read: (signal: AbortSignal) => Promise<T | undefined>, what: string, without: string, timeLeft: TimeLeft): Promise<T | undefined> {
  const signal = sliceSignal(`reading ${what}`, READ_TIMEOUT_MS, timeLeft);
  if (!signal) return undefined;
  return read(signal).catch((err: unknown) => {
    logger.warn(`${what} could not be read: ${without}`, { error: errorText(signal.reason ?? err) });
    return undefined;
  });
}
