import type { APIGatewayProxyEventV2 } from "aws-lambda";

/** The request body's bytes: a Function URL passes form bodies base64-encoded (`isBase64Encoded`). */
export function rawBody(event: Pick<APIGatewayProxyEventV2, "body" | "isBase64Encoded">): Buffer {
  return Buffer.from(event.body ?? "", event.isBase64Encoded ? "base64" : "utf8");
}
