/**
 * A loopback stand-in for a Slack incoming webhook: it takes posts on its one /services/… path, holds
 * each to Block Kit's limits as Slack does, refusing one over them (400 invalid_blocks, recorded in
 * `problems` too), and answers "ok", or whatever status a test sets. Posts to a response_url
 * (/commands/…) are kept apart, held to the same limits, and, as Slack takes at most 5 on one URL,
 * the sixth is refused (404 used_url). slackLinks says which addresses Slack would show as links.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { SLACK_LIMITS, type Block, type WebhookMessage } from "../../functions/shared/runs/notify.ts";

export interface WebhookReceiver {
  /** For WARDEN_SLACK_RESPONSE_ORIGIN, which the functions accept in place of https://hooks.slack.com. */
  origin: string;
  /** The webhook's URL: its last segment is `token`, the secret part. */
  webhookUrl: string;
  posts: WebhookMessage[];
  /** Posts to /commands/… paths: the results the worker posts to a command's response_url (a sixth to one URL refused, not kept). */
  responses: unknown[];
  /** Violations of Slack's limits found in the posts. */
  problems: string[];
  status: number;
  close(): Promise<void>;
}

/** The most posts Slack takes on one response_url (within its 30 minutes). */
const RESPONSE_URL_POSTS = 5;

export async function startWebhookReceiver(token: string): Promise<WebhookReceiver> {
  const path = `/services/T0001/B0001/${token}`;
  const postsTo = new Map<string, number>();
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk));
    req.on("end", () => {
      const answer = (status: number, text: string) => void res.writeHead(status, { "content-type": "text/plain" }).end(text);
      if (req.method === "POST" && req.url?.startsWith("/commands/")) {
        const message = JSON.parse(body) as WebhookMessage;
        const used = (postsTo.get(req.url) ?? 0) + 1;
        postsTo.set(req.url, used);
        if (used > RESPONSE_URL_POSTS) return answer(404, "used_url");
        receiver.responses.push(message);
        const problems = limitProblems(message);
        receiver.problems.push(...problems);
        return problems.length ? answer(400, "invalid_blocks") : answer(200, "ok");
      }
      if (req.method !== "POST" || req.url !== path) return answer(404, "no_service");
      const message = JSON.parse(body) as WebhookMessage;
      receiver.posts.push(message);
      const problems = limitProblems(message);
      receiver.problems.push(...problems);
      if (problems.length) return answer(400, "invalid_blocks");
      answer(receiver.status, receiver.status === 200 ? "ok" : "invalid_blocks");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const receiver: WebhookReceiver = {
    origin,
    webhookUrl: `${origin}${path}`,
    posts: [],
    responses: [],
    problems: [],
    status: 200,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return receiver;
}

function limitProblems(message: WebhookMessage): string[] {
  const problems: string[] = [];
  if (!message.text) problems.push("no text fallback");
  if (message.text.length > 40_000) problems.push("text over 40,000");
  const blocks = message.blocks ?? [];
  if (blocks.length > SLACK_LIMITS.blocks) problems.push(`${blocks.length} blocks`);
  for (const block of blocks as Block[]) {
    const texts = block.type === "context" ? block.elements.map((e) => e.text) : [block.text.text];
    const max = block.type === "header" ? 150 : 3000;
    for (const text of texts) if (text.length > max || text.length === 0) problems.push(`${block.type} text of ${text.length}`);
    if (block.type === "context" && block.elements.length > 10) problems.push("context with over 10 elements");
  }
  return problems;
}

type TextObject = { type: string; text: string; verbatim?: boolean };
type PostedBlock = { text?: TextObject; elements?: TextObject[] };

/**
 * The addresses Slack shows as links in a message: a `<url|label>` in any mrkdwn text, and where Slack
 * parses the text itself (a mrkdwn object not marked verbatim, or a message's text when it has no
 * blocks) every bare http(s) address and www. name as well.
 */
export function slackLinks(message: { text?: string; blocks?: readonly object[] }): string[] {
  const texts: { text: string; parsed: boolean }[] = [];
  if (!message.blocks?.length) texts.push({ text: message.text ?? "", parsed: true });
  for (const block of (message.blocks ?? []) as PostedBlock[]) {
    for (const object of block.elements ?? (block.text ? [block.text] : [])) if (object.type === "mrkdwn") texts.push({ text: object.text, parsed: object.verbatim !== true });
  }
  const links: string[] = [];
  for (const { text, parsed } of texts) {
    for (const [, url] of text.matchAll(/<((?:https?|mailto):[^|>]*)(?:\|[^>]*)?>/g)) links.push(url!);
    if (parsed) for (const [bare] of text.replace(/<[^>]*>/g, " ").matchAll(/\bhttps?:\/\/[^\s<>]+|\bwww\.[^\s<>]+/gi)) links.push(bare);
  }
  return links;
}

/** An ephemeral reply as the functions post it: its text, and the same text in a verbatim section (`text` may be a matcher). */
export function ephemeralReply(text: unknown) {
  return { response_type: "ephemeral", text, blocks: [{ type: "section", text: { type: "mrkdwn", text, verbatim: true } }] };
}
