/**
 * Replies to Slack: the ephemeral text messages of the acknowledgement. Which response_url a result
 * may be posted to is config/slack.ts's. Chat-ops imports this module, so it must stay light: the POST
 * itself (and its HTTP client) lives in post-response.ts, which only the worker imports.
 */

export interface TextMessage {
  response_type: "ephemeral";
  text: string;
}

export function ephemeral(text: string): TextMessage {
  return { response_type: "ephemeral", text };
}
