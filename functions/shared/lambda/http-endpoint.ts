/**
 * The stack both public endpoints (chat-ops, GitLab's events) start from, so each handler file adds
 * only its own checks: Warden's Lambda stack, an error handler that answers an HttpStatusError with
 * its status and message and anything else with a bare 500 (no stack or internal message reaches a
 * caller), headers normalised to lower case before any check reads them and, where the endpoint sets
 * one, a bound on the body before anything reads it.
 *
 * An endpoint's own credential (endpointCredential) that cannot be had is the deployment's failure, yet
 * the caller, who has shown no credential of theirs yet, gets the 401 a wrong one gets: a 500 would tell
 * anyone without a credential which deployments are broken. The operator reads why in the "`name`
 * failed" ERROR line, as for any other failure of Warden's.
 */
import httpErrorHandler from "@middy/http-error-handler";
import httpHeaderNormalizer from "@middy/http-header-normalizer";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { wardenLambda } from "./handler.ts";
import { HttpStatusError } from "./http-status-error.ts";
import { logger } from "./logger.ts";
import { rawBodyBytes } from "./raw-body.ts";

export interface HttpEndpointOptions {
  /**
   * Called for a refusal (an HttpStatusError) as it becomes a response. Left out where every refusal
   * is logged where it is decided; Warden's own failures are always logged, as "`name` failed".
   */
  onRefusal?: (error: HttpStatusError) => void;
  /**
   * A longer body is answered 413, saying nothing more, before any check of the endpoint's own: none then
   * decodes, parses or hashes more than this of a caller's bytes, signed or not. Left out where the
   * credential is checked from headers alone and the body is bounded after it (the events' delivery.ts).
   */
  maxBodyBytes?: number;
}

/** A credential the endpoint could not read (`cause`), answered as a wrong credential is. */
class CredentialUnusable extends HttpStatusError {
  constructor(cause: unknown) {
    super(401, "Unauthorized");
    this.cause = cause;
  }
}

/** `read`, with a failure answered 401 and logged as the endpoint's own failure (above). */
export function endpointCredential<T>(read: () => Promise<T>): () => Promise<T> {
  return () =>
    read().catch((err: unknown) => {
      throw new CredentialUnusable(err);
    });
}

/** `name` is the endpoint's log message ("chat-command", "gitlab-events"). */
export function httpEndpoint(name: string, { onRefusal, maxBodyBytes }: HttpEndpointOptions = {}) {
  const stack = wardenLambda<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
    .use(
      httpErrorHandler({
        fallbackMessage: "Internal Server Error",
        logger: (error) => {
          if (error instanceof CredentialUnusable) logger.error(`${name} failed`, error.cause as Error);
          else if (!(error instanceof HttpStatusError)) logger.error(`${name} failed`, error);
          else onRefusal?.(error);
        },
      }),
    )
    .use(httpHeaderNormalizer());
  if (maxBodyBytes === undefined) return stack;
  return stack.before(({ event }) => {
    if (rawBodyBytes(event) > maxBodyBytes) throw new HttpStatusError(413, "Content Too Large");
  });
}
