/** The Chatops handler as a cold container has it: fresh module state, its secret and policy read at init. */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { vi } from "vitest";
import { lambdaContext } from "./lambda.ts";

export async function coldChatops(requestId = "req-chatops-1"): Promise<(event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>> {
  vi.resetModules();
  const { handler } = await import("../../functions/chatops.ts");
  return (event) => handler(event, lambdaContext({ functionName: "warden-test-Chatops", requestId })) as Promise<APIGatewayProxyStructuredResultV2>;
}
