/**
 * Where Slack is, for this deployment: the origin a result may be posted to, which URLs are Slack's
 * response_urls and incoming webhooks, the part of a webhook URL that is secret, and how long a post
 * may take. A response_url is a bearer capability for the channel (and the worker acts on whatever URL
 * its event names), and a webhook URL one for its channel: so only Slack's own origin is allowed, and
 * neither is ever logged. Light on purpose: chat-ops loads it (config/secrets.ts imports it), and it
 * sits in config/ so that every folder above, runs/ and slack/ alike, may check a URL.
 */
import { ConfigError } from "./settings.ts";

const SLACK_RESPONSE_ORIGIN = "https://hooks.slack.com";

/**
 * The hosts WARDEN_SLACK_RESPONSE_ORIGIN may name. The override exists so tests can stand in for
 * Slack on this machine; set on a deployed function to anything else, it would let whoever can get a
 * signed command (or a worker event) through make Warden POST results there.
 */
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

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

/**
 * Which URL a run summary may be posted to: a Slack incoming webhook (https://hooks.slack.com/services/…),
 * or under the loopback origin tests set, as for response_url. Its secret part is registered with lib/redact.
 */
export function isAllowedWebhookUrl(url: string): boolean {
  const origin = allowedResponseOrigin();
  if (!URL.canParse(url)) return false;
  const parsed = new URL(url);
  return parsed.origin === origin && parsed.pathname.startsWith("/services/") && !parsed.username && !parsed.password;
}

/**
 * The part of a webhook URL that is secret: the last path segment (…/services/T…/B…/<secret>). Only
 * that is registered with lib/redact, not the whole URL, whose "https://hooks.slack.com/services/"
 * would otherwise mask those words wherever they appear.
 */
export function webhookCredential(url: string): string | undefined {
  // Split by hand rather than parsed: a malformed URL (no scheme, say) still has its secret at the end.
  return url.split(/[/?#]/).filter(Boolean).at(-1);
}

/** The longest a post to Slack (a response_url, an incoming webhook) may take, answer included. */
export const SLACK_POST_TIMEOUT_MS = 15_000;
