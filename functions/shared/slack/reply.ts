/**
 * Replies to Slack: the ephemeral text messages of the acknowledgement. Which response_url a result
 * may be posted to is config/slack.ts's. Chat-ops imports this module, so it must stay light: the POST
 * itself (and its HTTP client) lives in post-response.ts, which only the worker imports.
 */
import { escapeMrkdwn, mrkdwn, type MrkdwnText } from "../../../lib/jobs/escape.ts";
import { redactThenCut } from "../../../lib/redact/index.ts";

export interface TextMessage {
  response_type: "ephemeral";
  text: string;
  blocks: [{ type: "section"; text: MrkdwnText }];
}

/**
 * The text in a verbatim block too: a message of `text` alone has every URL in it linked by Slack. A
 * section holds 3,000 characters (Slack refuses the message past that); redacted before it is cut.
 */
export function ephemeral(text: string): TextMessage {
  return { response_type: "ephemeral", text, blocks: [{ type: "section", text: mrkdwn(redactThenCut(text, 2900)) }] };
}

/**
 * A command as a reply quotes it, in a code span: its paths and ref are the requester's words, and
 * Slack gives back what they typed (`<!channel>`, a backtick that would end the span) as markup.
 */
export function quoted(command: string): string {
  return `\`${escapeMrkdwn(command)}\``;
}
