/**
 * Renders any job's report for people: text (CLI), Markdown (merge requests, CI job summaries) and
 * Slack Block Kit (chat-ops). What differs between jobs is data — a view per job — so each layout is
 * written once.
 */
export { escapeControls, escapeMarkdown, jsonForTerminal } from "./render/escape.ts";
export { NOTE_MARKER } from "./render/comparison.ts";
export { renderMarkdown } from "./render/markdown.ts";
export { escapeMrkdwn, renderSlack, type SlackMessage } from "./render/slack.ts";
export { renderText, type TextOptions } from "./render/text.ts";
