/**
 * The worker's POST of a job's result to the command's response_url. Apart from slack-reply.ts so that
 * chat-ops, which never posts, does not load an HTTP client at cold start.
 */
import { request } from "undici";
import { redactStrings, redactThenCut } from "../../lib/redact/index.ts";
import type { SlackMessage } from "../../lib/jobs/render.ts";
import { allowedResponseOrigin, isAllowedResponseUrl, SLACK_POST_TIMEOUT_MS, type TextMessage } from "./slack-reply.ts";

/** Slack answers 200 `ok`; a used or expired URL answers 404 with a reason, which goes into the error. */
export async function postToResponseUrl(url: string, message: SlackMessage | TextMessage): Promise<void> {
  if (!isAllowedResponseUrl(url)) throw new Error(`refused to post outside ${allowedResponseOrigin()}`);
  const { statusCode, body } = await request(url, {
    method: "POST",
    headers: { "content-type": "application/json; charset=utf-8" },
    // Every post passes lib/redact: a report or an error may quote a server that echoed a credential.
    body: JSON.stringify(redactStrings(message)),
    // One deadline for the whole answer (undici's own timeouts are per phase and per chunk).
    signal: AbortSignal.timeout(SLACK_POST_TIMEOUT_MS),
  });
  const answer = redactThenCut(await body.text(), 200);
  if (statusCode !== 200) throw new Error(`Slack answered ${statusCode} to the response_url POST: ${answer}`);
}
