/**
 * The worker's POST of a job's result to the command's response_url. Apart from reply.ts so that
 * chat-ops, which never posts, does not load an HTTP client at cold start.
 */
import { request } from "undici";
import type { SlackMessage } from "../../../lib/jobs/render/index.ts";
import { redactStrings, redactThenCut } from "../../../lib/redact/index.ts";
import { allowedResponseOrigin, isAllowedResponseUrl, SLACK_POST_TIMEOUT_MS } from "../config/slack.ts";
import { sliceSignal, UNBOUNDED, type TimeLeft } from "../lambda/time-left.ts";
import type { TextMessage } from "./reply.ts";

/**
 * True once Slack took the post; false when it was skipped, the invocation having too little time left
 * for it (lambda/time-left.ts logs that). Slack answers 200 `ok`; a used or expired URL answers 404 with a
 * reason, which goes into the error thrown.
 */
export async function postToResponseUrl(url: string, message: SlackMessage | TextMessage, timeLeft: TimeLeft = UNBOUNDED): Promise<boolean> {
  if (!isAllowedResponseUrl(url)) throw new Error(`refused to post outside ${allowedResponseOrigin()}`);
  // One deadline for the whole answer (undici's own timeouts are per phase and per chunk).
  const signal = sliceSignal("posting the result to Slack", SLACK_POST_TIMEOUT_MS, timeLeft);
  if (!signal) return false;
  const { statusCode, body } = await request(url, {
    method: "POST",
    headers: { "content-type": "application/json; charset=utf-8" },
    // Every post passes lib/redact: a report or an error may quote a server that echoed a credential.
    body: JSON.stringify(redactStrings(message)),
    signal,
  });
  const answer = redactThenCut(await body.text(), 200);
  if (statusCode !== 200) throw new Error(`Slack answered ${statusCode} to the response_url POST: ${answer}`);
  return true;
}
