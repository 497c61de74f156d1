/**
 * Which URL a run summary may be posted to: a Slack incoming webhook (https://hooks.slack.com/services/…),
 * or under the loopback origin tests set, as for response_url (reply.ts). The URL is a bearer
 * credential for its channel: it is never logged, and its secret part is registered with lib/redact.
 * Light on purpose: config/secrets.ts imports it, and chat-ops imports config/secrets.ts.
 */
import { allowedResponseOrigin } from "./reply.ts";

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
