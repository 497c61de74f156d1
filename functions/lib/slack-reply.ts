/**
 * Replies to Slack: the ephemeral text messages of the acknowledgement, and the POST of a job's result
 * to the command's response_url. A response_url is a bearer capability for the channel (and the worker
 * acts on whatever URL its event names), so it is posted to only on Slack's own origin, never logged.
 */
import { request } from "undici";
import type { SlackMessage } from "../../lib/jobs/index.ts";

const SLACK_RESPONSE_ORIGIN = "https://hooks.slack.com";

export interface TextMessage {
  response_type: "ephemeral";
  text: string;
}

export function ephemeral(text: string): TextMessage {
  return { response_type: "ephemeral", text };
}

/** Tests point WARDEN_SLACK_RESPONSE_ORIGIN at a loopback server; production leaves it unset. */
function allowedOrigin(): string {
  return new URL(process.env["WARDEN_SLACK_RESPONSE_ORIGIN"] ?? SLACK_RESPONSE_ORIGIN).origin;
}

export function isAllowedResponseUrl(url: string): boolean {
  return URL.canParse(url) && new URL(url).origin === allowedOrigin();
}

/** Slack answers 200 `ok`; a used or expired URL answers 404 with a reason, which goes into the error. */
export async function postToResponseUrl(url: string, message: SlackMessage | TextMessage): Promise<void> {
  if (!isAllowedResponseUrl(url)) throw new Error(`refused to post outside ${allowedOrigin()}`);
  const { statusCode, body } = await request(url, {
    method: "POST",
    headers: { "content-type": "application/json; charset=utf-8" },
    body: JSON.stringify(message),
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const answer = (await body.text()).slice(0, 200);
  if (statusCode !== 200) throw new Error(`Slack answered ${statusCode} to the response_url POST: ${answer}`);
}
