/**
 * Middlewares that keep chat-ops to one run per command, whatever Slack (or anyone holding a copy of a
 * request) sends:
 *
 * - `slackSslCheck`, before the signature check: Slack's certificate check (`ssl_check=1`, no
 *   `command`) is answered 200 with an empty body. Whether Slack signs it is not documented, so it is
 *   answered unverified; it runs nothing. Only a body within a form's bound is looked at, and only scanned
 *   for the two fields, never parsed (it is not yet verified). Anything else goes on to the signature check (401 unsigned).
 * - `slackRequestOnce`, after the signature check: a request Slack marks as a retry
 *   (`X-Slack-Retry-Num`) is acknowledged and not run; any other is run only if its signature and
 *   timestamp are claimed for the first time (functions/shared/state/claims.ts). A signed request verifies for 5 minutes,
 *   so a byte-identical replay within them would otherwise run again (a second pipeline); the claim
 *   outlives that window. Both answer 200, so Slack shows the acknowledgement, not an error. The claim is
 *   cut at the request's deadline (the context's `signal`, where the endpoint sets one): one cut off
 *   cannot tell a first request from a replay, so it is not run, as when the table cannot be reached.
 *
 * Needs normalised (lower-case) header names, as verifySlackRequest does.
 */
import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import type { DeadlineContext } from "../lambda/deadline.ts";
import type { Claims } from "../state/claims.ts";
import { rawBody, rawBodyBytes } from "../lambda/raw-body.ts";
import { MAX_FORM_BYTES } from "./form.ts";
import { ephemeral } from "./reply.ts";
import { MAX_SKEW_SECONDS } from "./signature.ts";

type Result = APIGatewayProxyStructuredResultV2;

/**
 * The fields looked for, as Slack writes them, found by one scan of the raw text: not URLSearchParams, which
 * takes seconds of CPU over an unsigned body of 262,144 empty fields (`a&a&…`), so that a few such requests
 * a second held every container of the function's reserved concurrency. A name written otherwise
 * (percent-encoded) is not recognised: such a body goes on to the signature check.
 */
const SSL_CHECK = /(?:^|&)ssl_check=1(?:&|$)/;
const COMMAND = /(?:^|&)command(?:[=&]|$)/;

export function slackSslCheck(): MiddlewareObj<APIGatewayProxyEventV2, Result> {
  return {
    before({ event }) {
      if (rawBodyBytes(event) > MAX_FORM_BYTES) return undefined;
      const form = rawBody(event).toString("utf8");
      // includes() first: most bodies (every command) are spared the scans.
      if (form.includes("ssl_check=1") && SSL_CHECK.test(form) && !COMMAND.test(form)) return { statusCode: 200, body: "" };
      return undefined;
    },
  };
}

export interface SlackRequestOnceOptions {
  claims: Claims;
  /** Told of each request acknowledged without running, and why. */
  onSkipped?: (reason: string, fields: Record<string, unknown>) => void;
}

/** Past the 5 minutes a signature verifies, with a margin for the clocks of Slack, AWS and DynamoDB. */
const CLAIM_SECONDS = MAX_SKEW_SECONDS + 60;

export const ALREADY_RECEIVED = ":information_source: Warden already received this command, and runs it once: its result is posted here.";
export const NOT_CHECKED = ":x: Warden could not make sure this command runs only once, so it did not run it. Try again in a minute.";

export function slackRequestOnce(opts: SlackRequestOnceOptions): MiddlewareObj<APIGatewayProxyEventV2, Result> {
  return {
    async before({ event, context }) {
      const headers = event.headers ?? {};
      const retry = headers["x-slack-retry-num"];
      if (retry !== undefined) {
        opts.onSkipped?.("a Slack retry", { retryNum: retry, retryReason: headers["x-slack-retry-reason"] });
        return reply(ALREADY_RECEIVED);
      }
      // Both verified by now: the timestamp is within its window, the signature is Slack's.
      const timestamp = headers["x-slack-request-timestamp"]!;
      const signature = headers["x-slack-signature"]!;
      const { signal } = context as Context & Partial<DeadlineContext>;
      let first: boolean;
      try {
        first = await opts.claims.claim(`slack:${timestamp}:${signature}`, Number(timestamp) + CLAIM_SECONDS, undefined, signal);
      } catch (err) {
        opts.onSkipped?.(signal?.aborted ? "the claims table did not answer in time" : "the claims table could not be reached", { error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
        return reply(NOT_CHECKED);
      }
      if (first) return undefined;
      // Not `timestamp`: Powertools reserves that key for the log line's own time.
      opts.onSkipped?.("a repeat of a request already received", { requestTimestamp: timestamp });
      return reply(ALREADY_RECEIVED);
    },
  };
}

function reply(text: string): Result {
  return { statusCode: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(ephemeral(text)) };
}
