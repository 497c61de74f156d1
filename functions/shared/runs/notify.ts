/**
 * Scheduled and console runs tell a Slack channel what they did: a Block Kit summary posted to the
 * incoming webhook in the secret's `slackWebhookUrl`, when the policy's `notify` setting says the run
 * is worth it. The summary is lib/jobs' Slack rendering of the report (names escaped there) with the
 * run's name (job, trigger, stage, correlation id) added, every string passed through lib/redact, then
 * held to Slack's limits. Posting is best effort: a failure is logged (never with the URL) and the
 * run's outcome stands. The post gets only a slice of the invocation's time left (lambda/time-left.ts).
 */
import { request } from "undici";
import { escapeMrkdwn, mrkdwn, renderSlack, type MrkdwnText } from "../../../lib/jobs/render/index.ts";
import { errorText } from "../../../lib/jobs/report/index.ts";
import type { NotifyLevel } from "../../../lib/policy/index.ts";
import { redactOutput, redactStrings, redactThenCut, registerSecret } from "../../../lib/redact/index.ts";
import { isAllowedWebhookUrl, SLACK_POST_TIMEOUT_MS, webhookCredential } from "../config/slack.ts";
import { logger } from "../lambda/logger.ts";
import { sliceSignal, UNBOUNDED, type TimeLeft } from "../lambda/time-left.ts";
import { isProblem, verdict, type AnyReport, type RunLabels, type RunOutcome } from "./outcome.ts";

/** Whether the policy's `notify.slack` asks for a summary of this run. */
export function shouldNotify(outcome: RunOutcome, setting: NotifyLevel): boolean {
  if (setting === "always") return true;
  const v = verdict(outcome);
  if (isProblem(v)) return true;
  return setting === "changes" && (v.changed > 0 || v.foundWork);
}

type TextObject = { type: "plain_text"; text: string } | MrkdwnText;
export type Block = { type: "header"; text: TextObject } | { type: "section"; text: TextObject } | { type: "context"; elements: TextObject[] };

export interface WebhookMessage {
  /** The notification's text, and what clients without blocks show. */
  text: string;
  blocks: Block[];
}

/** Slack's limits: blocks in a message, characters in a header and in a section's (or context element's) text. */
export const SLACK_LIMITS = { blocks: 50, header: 150, section: 3000 } as const;

export function runSummary(outcome: RunOutcome, labels: RunLabels): WebhookMessage {
  const body = "report" in outcome ? reportMessage(outcome.report) : failure(outcome.error, labels);
  const [header, ...rest] = body.blocks;
  const name: Block = { type: "context", elements: [mrkdwn(runName(labels))] };
  // Redact first, then cut: a mask is longer than what it hides.
  return withinLimits(redactStrings({ text: body.text, blocks: [header!, name, ...rest] }));
}

/**
 * renderSlack's blocks, but the warnings as a block of this module's own: lib/jobs/render/slack.ts cuts their text
 * at 3,000 characters without saying so, and a run that stopped early can have hundreds of them.
 */
function reportMessage(report: AnyReport): WebhookMessage {
  const { text, blocks } = renderSlack({ ...report, warnings: [] }) as { text: string; blocks: Block[] };
  if (!report.warnings.length) return { text, blocks };
  const warnings = report.warnings.map((w) => `:warning: ${escapeMrkdwn(w)}`).join("\n");
  return { text, blocks: [...blocks, { type: "section", text: mrkdwn(warnings) }] };
}

function failure(error: unknown, labels: RunLabels): WebhookMessage {
  const title = `Warden ${labels.job} failed`;
  return {
    text: `${title}: ${escapeMrkdwn(errorText(error))}`,
    blocks: [
      { type: "header", text: { type: "plain_text", text: title } },
      { type: "section", text: mrkdwn(`:x: The run stopped before it could report: ${escapeMrkdwn(errorText(error))}`) },
    ],
  };
}

function runName({ job, trigger, stage, correlationId }: RunLabels): string {
  return [`*${escapeMrkdwn(job)}*`, `trigger ${escapeMrkdwn(trigger)}`, `stage ${escapeMrkdwn(stage)}`, `correlation id \`${escapeMrkdwn(correlationId)}\``].join(" · ");
}

function withinLimits(message: WebhookMessage): WebhookMessage {
  let blocks = message.blocks.map(fitBlock);
  if (blocks.length > SLACK_LIMITS.blocks) {
    const kept = SLACK_LIMITS.blocks - 1;
    blocks = [...blocks.slice(0, kept), { type: "context", elements: [mrkdwn(`… and ${blocks.length - kept} more blocks`)] }];
  }
  return { text: cut(message.text, SLACK_LIMITS.section), blocks };
}

function fitBlock(block: Block): Block {
  switch (block.type) {
    case "header":
      return { ...block, text: { ...block.text, text: cut(block.text.text, SLACK_LIMITS.header) } };
    case "section":
      return { ...block, text: { ...block.text, text: cut(block.text.text, SLACK_LIMITS.section) } };
    case "context":
      return { ...block, elements: block.elements.map((e) => ({ ...e, text: cut(e.text, SLACK_LIMITS.section) })) };
  }
}

/**
 * `text` in at most `max` characters: whole lines while they fit, then "… and N more lines"; a single
 * line too long for that is cut within, "… and N more characters".
 */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const lines = text.split("\n");
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    const marker = `… and ${lines.length - kept.length - 1} more lines`;
    if (used + line.length + 1 + marker.length > max) break;
    kept.push(line);
    used += line.length + 1;
  }
  if (kept.length) return `${kept.join("\n")}\n… and ${lines.length - kept.length} more lines`;
  const chars = Array.from(text);
  const room = max - `… and ${chars.length} more characters`.length;
  return `${chars.slice(0, room).join("")}… and ${chars.length - room} more characters`;
}

/** Posts `message` to the webhook; false (and a warning) when it was not posted. Never throws. */
export async function postRunSummary(webhookUrl: string, message: WebhookMessage, timeLeft: TimeLeft = UNBOUNDED): Promise<boolean> {
  // Whatever quotes the URL from here on (an error, a log line) shows the secret part masked.
  registerSecret(webhookCredential(webhookUrl));
  try {
    if (!isAllowedWebhookUrl(webhookUrl)) {
      logger.warn("run summary not posted: the secret's slackWebhookUrl is not a Slack incoming webhook (https://hooks.slack.com/services/…)");
      return false;
    }
    // One deadline for the whole answer (undici's own timeouts are per phase and per chunk).
    const signal = sliceSignal("posting the run summary to Slack", SLACK_POST_TIMEOUT_MS, timeLeft);
    if (!signal) return false;
    const { statusCode, body } = await request(webhookUrl, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify(message),
      signal,
    });
    // Slack answers 200 "ok", or a reason: invalid_blocks, no_service (the webhook was removed), channel_is_archived…
    const answer = redactThenCut(await body.text(), 200);
    if (statusCode === 200) return true;
    logger.warn("posting the run summary to Slack failed", { status: statusCode, answer });
  } catch (err) {
    logger.warn("posting the run summary to Slack failed", { error: redactOutput(errorText(err)) });
  }
  return false;
}

export interface NotifyOptions {
  /** The secret's slackWebhookUrl; undefined: no summaries. */
  webhookUrl: string | undefined;
  setting: NotifyLevel;
}

/** Posts the run's summary when the setting asks for one. Never throws: the run's outcome is not the webhook's to change. */
export async function notifyRun(outcome: RunOutcome, labels: RunLabels, opts: NotifyOptions, timeLeft: TimeLeft = UNBOUNDED): Promise<boolean> {
  if (!opts.webhookUrl || !shouldNotify(outcome, opts.setting)) return false;
  let message: WebhookMessage;
  try {
    message = runSummary(outcome, labels);
  } catch (err) {
    logger.warn("building the run summary for Slack failed", { error: redactOutput(errorText(err)) });
    return false;
  }
  return postRunSummary(opts.webhookUrl, message, timeLeft);
}
