/**
 * The DynamoDB client the claims table is reached with. Bounded, as the S3 client is
 * (lib/aws/s3-objects.ts): the SDK's own has no timeout, and a table that takes the connection and never
 * answers (a network path gone quiet, a VPC without its endpoint) would hold a call until Lambda ends the
 * invocation, with no line said. A call gives up after these, each of the SDK's attempts (without
 * throwOnRequestTimeout the SDK only warns once requestTimeout has passed, and waits on).
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";

const TIMEOUTS = { connectionTimeout: 5_000, requestTimeout: 10_000, throwOnRequestTimeout: true };

export function dynamoClient(): DynamoDBClient {
  return new DynamoDBClient({ requestHandler: TIMEOUTS });
}
