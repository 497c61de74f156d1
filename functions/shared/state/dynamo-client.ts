/**
 * The DynamoDB client the claims table is reached with. Bounded, as the S3 client is
 * (lib/aws/s3-objects.ts): the SDK's own has no timeout, and a table that takes the connection and never
 * answers (a network path gone quiet, a VPC without its endpoint) would hold a call until Lambda ends the
 * invocation, with no line said. Each attempt's answer must begin within requestTimeout (without
 * throwOnRequestTimeout the SDK only warns once it has passed); that timer ends with the answer's headers,
 * so every call, its attempts and body included, has CALL_MS in all, whoever makes it and with whatever
 * signal of its own (a body that stalls after its headers was waited on for ever).
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";

const TIMEOUTS = { connectionTimeout: 2_000, requestTimeout: 3_000, throwOnRequestTimeout: true };
const CALL_MS = 10_000;

type Send = (command: unknown, options?: { abortSignal?: AbortSignal }) => Promise<unknown>;

/** `maxAttempts: 1` for an update that is not safe to repeat (an ADD: one applied whose answer was lost, sent again, counts twice). */
export function dynamoClient(options: { maxAttempts?: number } = {}): DynamoDBClient {
  const client = new DynamoDBClient({ requestHandler: TIMEOUTS, ...options });
  const send = client.send.bind(client) as Send;
  const bounded: Send = (command, options) => send(command, { ...options, abortSignal: AbortSignal.any([AbortSignal.timeout(CALL_MS), ...(options?.abortSignal ? [options.abortSignal] : [])]) });
  client.send = bounded as DynamoDBClient["send"];
  return client;
}
