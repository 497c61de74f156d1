/**
 * Middleware: refuses (401) any request Slack did not sign with the app's signing secret, or signed
 * too long ago, before anything else looks at it. Needs normalised (lower-case) header names.
 */
import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { HttpStatusError } from "../lambda/http-status-error.ts";
import { rawBody } from "../lambda/raw-body.ts";
import { verifySlackSignature } from "./signature.ts";

export interface VerifySlackSignatureOptions {
  signingSecret: () => Promise<string>;
  /** Told why a request was refused (the caller only learns that it was). */
  onRefused?: (reason: string) => void;
  /** Milliseconds since the epoch; tests move the clock. */
  now?: () => number;
}

export function verifySlackRequest(opts: VerifySlackSignatureOptions): MiddlewareObj<APIGatewayProxyEventV2> {
  const now = opts.now ?? Date.now;
  return {
    async before({ event }) {
      const headers = event.headers ?? {};
      const signed = { timestamp: headers["x-slack-request-timestamp"], signature: headers["x-slack-signature"], body: rawBody(event) };
      const verdict = verifySlackSignature(await opts.signingSecret(), signed, now() / 1000);
      if (!verdict.ok) {
        opts.onRefused?.(verdict.reason);
        throw new HttpStatusError(401, "Unauthorized");
      }
    },
  };
}
