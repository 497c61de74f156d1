import type { APIGatewayProxyEventV2 } from "aws-lambda";

/** The request body's bytes: a Function URL passes form bodies base64-encoded (`isBase64Encoded`). */
export function rawBody(event: Pick<APIGatewayProxyEventV2, "body" | "isBase64Encoded">): Buffer {
  return Buffer.from(event.body ?? "", event.isBase64Encoded ? "base64" : "utf8");
}

/** How many bytes rawBody would give, without decoding or copying the body (a bound checked before anything reads it). */
export function rawBodyBytes(event: Pick<APIGatewayProxyEventV2, "body" | "isBase64Encoded">): number {
  return Buffer.byteLength(event.body ?? "", event.isBase64Encoded ? "base64" : "utf8");
}
