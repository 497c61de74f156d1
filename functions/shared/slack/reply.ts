/**
 * Replies to Slack: the ephemeral text messages of the acknowledgement. Which response_url a result
 * may be posted to is config/slack.ts's. Chat-ops imports this module, so it must stay light: the POST
 * itself (and its HTTP client) lives in post-response.ts, which only the worker imports.
 */
import { escapeMrkdwn } from "../../../lib/jobs/escape.ts";

export interface TextMessage {
  response_type: "ephemeral";
  text: string;
}

export function ephemeral(text: string): TextMessage {
  return { response_type: "ephemeral", text };
}

/**
 * A command as a reply quotes it, in a code span: its paths and ref are the requester's words, and
 * Slack gives back what they typed (`<!channel>`, a backtick that would end the span) as markup.
 */
export function quoted(command: string): string {
  return `\`${escapeMrkdwn(command)}\``;
}
