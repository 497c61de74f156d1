/**
 * Replies to Slack: the ephemeral text messages of the acknowledgement, and which response_url a
 * result may be posted to. A response_url is a bearer capability for the channel (and the worker acts
 * on whatever URL its event names), so only Slack's own origin is allowed, and it is never logged.
 *
 * Chat-ops imports this module, so it must stay light: the POST itself (and its HTTP client) lives in
 * post-response.ts, which only the worker imports.
 */
import { ConfigError } from "../config/settings.ts";

const SLACK_RESPONSE_ORIGIN = "https://hooks.slack.com";

/**
 * The hosts WARDEN_SLACK_RESPONSE_ORIGIN may name. The override exists so tests can stand in for
 * Slack on this machine; set on a deployed function to anything else, it would let whoever can get a
 * signed command (or a worker event) through make Warden POST results there.
 */
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

export interface TextMessage {
  response_type: "ephemeral";
  text: string;
}

export function ephemeral(text: string): TextMessage {
  return { response_type: "ephemeral", text };
}

/**
 * Tests point WARDEN_SLACK_RESPONSE_ORIGIN at a loopback server; production leaves it unset. Any
 * other value is refused with an error rather than ignored: then nothing is started or posted, and the
 * logs name the variable, instead of a security setting being quietly half-applied.
 */
export function allowedResponseOrigin(): string {
  const override = process.env["WARDEN_SLACK_RESPONSE_ORIGIN"];
  if (!override) return SLACK_RESPONSE_ORIGIN;
  const url = URL.canParse(override) ? new URL(override) : undefined;
  if (url?.protocol !== "http:" || !LOOPBACK_HOSTS.has(url.hostname)) {
    throw new ConfigError(
      `WARDEN_SLACK_RESPONSE_ORIGIN is for tests only and must be a loopback origin (http://127.0.0.1:<port>, http://[::1]:<port> or http://localhost:<port>), not ${JSON.stringify(override)}`,
    );
  }
  return url.origin;
}

export function isAllowedResponseUrl(url: string): boolean {
  // The setting first, so that a refused override fails every check, whatever the URL.
  const origin = allowedResponseOrigin();
  return URL.canParse(url) && new URL(url).origin === origin;
}

/** The longest a post to Slack (a response_url, an incoming webhook) may take, answer included. */
export const SLACK_POST_TIMEOUT_MS = 15_000;
