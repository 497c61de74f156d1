/**
 * Replies to Slack: the ephemeral text messages of the acknowledgement, and which response_url a
 * result may be posted to. A response_url is a bearer capability for the channel (and the worker acts
 * on whatever URL its event names), so only Slack's own origin is allowed, and it is never logged.
 *
 * Chat-ops imports this module, so it must stay light: the POST itself (and its HTTP client) lives in
 * post-response.ts, which only the worker imports.
 */
const SLACK_RESPONSE_ORIGIN = "https://hooks.slack.com";

export interface TextMessage {
  response_type: "ephemeral";
  text: string;
}

export function ephemeral(text: string): TextMessage {
  return { response_type: "ephemeral", text };
}

/** Tests point WARDEN_SLACK_RESPONSE_ORIGIN at a loopback server; production leaves it unset. */
export function allowedResponseOrigin(): string {
  return new URL(process.env["WARDEN_SLACK_RESPONSE_ORIGIN"] ?? SLACK_RESPONSE_ORIGIN).origin;
}

export function isAllowedResponseUrl(url: string): boolean {
  return URL.canParse(url) && new URL(url).origin === allowedResponseOrigin();
}
