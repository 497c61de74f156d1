/**
 * The stack both public endpoints (chat-ops, GitLab's events) start from, so each handler file adds
 * only its own checks: Warden's Lambda stack, an error handler that answers an HttpStatusError with
 * its status and message and anything else with a bare 500 (no stack or internal message reaches a
 * caller), and headers normalised to lower case before any check reads them.
 */
import httpErrorHandler from "@middy/http-error-handler";
import httpHeaderNormalizer from "@middy/http-header-normalizer";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { wardenLambda } from "./handler.ts";
import { HttpStatusError } from "./http-status-error.ts";
import { logger } from "./logger.ts";

export interface HttpEndpointOptions {
  /**
   * Called for a refusal (an HttpStatusError) as it becomes a response. Left out where every refusal
   * is logged where it is decided; Warden's own failures are always logged, as "`name` failed".
   */
  onRefusal?: (error: HttpStatusError) => void;
}

/** `name` is the endpoint's log message ("chat-command", "gitlab-events"). */
export function httpEndpoint(name: string, { onRefusal }: HttpEndpointOptions = {}) {
  return wardenLambda<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
    .use(
      httpErrorHandler({
        fallbackMessage: "Internal Server Error",
        logger: (error) => {
          if (!(error instanceof HttpStatusError)) logger.error(`${name} failed`, error);
          else onRefusal?.(error);
        },
      }),
    )
    .use(httpHeaderNormalizer());
}
