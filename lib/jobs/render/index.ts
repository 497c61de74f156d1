/**
 * Renders any job's report for people: text (CLI), Markdown (merge requests, CI job summaries) and
 * Slack Block Kit (chat-ops). What differs between jobs is data — a view per job — so each layout is
 * written once.
 */
export { escapeControls, escapeMarkdown, escapeMarkdownText, jsonForTerminal } from "../escape.ts";
export { NOTE_MARKER } from "../shares/comparison.ts";
export { renderMarkdown } from "./markdown.ts";
export { reviewChunks, type ReviewFormat } from "./review.ts";
export { escapeMrkdwn, mrkdwn, slackLink, type MrkdwnText } from "../escape.ts";
export { renderSlack, sectionText, type SlackMessage } from "./slack.ts";
export { renderText, type TextOptions } from "./text.ts";
