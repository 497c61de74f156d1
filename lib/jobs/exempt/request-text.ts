/**
 * The words of an exemption request: its branch, commit message, merge request title and description.
 * Paths are checked (request.ts) to hold only GitLab path characters; the reason is the requester's
 * text and goes into the description only, escaped for GitLab Markdown (escapeMarkdown: no mention,
 * no HTML, no code span or reference survives).
 */
import { createHash } from "node:crypto";
import { cutTitle, escapeControls, escapeMarkdown, escapeMarkdownText } from "../escape.ts";
import type { ExemptRequest } from "../../policy/index.ts";

/** What the exemption covers, in words: "project acme/api shared with partners/x until 2027-03-31". */
export function exemptionSubject(request: ExemptRequest): string {
  const shared = request.group === undefined ? " (every share)" : ` shared with ${request.group}`;
  return `project ${request.project}${shared}${request.until === undefined ? ", without expiry" : ` until ${request.until}`}`;
}

/** `warden/exempt-<slug>-<8 hex>`: the slug says which share, the hash (of the request and the base commit) tells two requests apart. */
export function exemptBranch(request: ExemptRequest, baseCommitId: string): string {
  const slug = [request.project, request.group ?? "all"].join("-").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60).replace(/-+$/, "");
  const hash = createHash("sha256").update(JSON.stringify([request.project, request.group, request.until, request.reason, baseCommitId])).digest("hex").slice(0, 8);
  return `warden/exempt-${slug}-${hash}`;
}

/** `requestedBy`: who asked through Warden (a Slack user id), when the token's user, the author, did not ask itself. */
export function commitMessage(request: ExemptRequest, requestedBy?: string): string {
  const how = requestedBy === undefined ? "Requested with warden exempt" : `Requested by ${escapeControls(requestedBy)} with /warden exempt`;
  return `Exempt ${exemptionSubject(request)}\n\n${how}; the reason is in the policy entry and the merge request.`;
}

/**
 * Cut to GitLab's limit (the description names the share in full): a title GitLab refused would come
 * after the commit, leaving a branch the same request cannot make again. Its paths, checked to GitLab
 * path characters, hold no reference prefix: nothing in it needs escaping.
 */
export function mergeRequestTitle(request: ExemptRequest): string {
  return cutTitle(`Exempt ${exemptionSubject(request)}`);
}

/** `noticeLines`: the lines that link the notices the exemption answers (notices.ts), already escaped. */
export function mergeRequestDescription(request: ExemptRequest, where: { path: string; target: string }, requestedBy?: string, noticeLines: readonly string[] = []): string {
  return [
    `Adds an exemption to ${escapeMarkdown(where.path)} on ${escapeMarkdown(where.target)}: ${escapeMarkdown(exemptionSubject(request))}.`,
    "",
    `**Reason:** ${escapeMarkdownText(request.reason)}`,
    "",
    "Merging this merge request is the approval: from the first run after the merge, Warden leaves the share in place" +
      (request.until === undefined ? "." : ` through ${escapeMarkdown(request.until)} (UTC), and removes it after that if it is still stray.`),
    "The merge request pipeline's policy comparison (`warden enforce --compare-policy-ref`) should list exactly this share as no longer removed.",
    ...noticeLines,
    "",
    requestedBy === undefined ? "Opened by `warden exempt`." : `Opened by \`/warden exempt\`, asked by ${escapeMarkdownText(requestedBy)}.`,
  ].join("\n");
}
