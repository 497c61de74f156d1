/**
 * What a notice says, as GitLab Markdown: its title, its body (the hidden marker first, then the share,
 * why it is stray, who added it and when, the removal date and how to keep it) and the notes that close
 * it. Every text GitLab or a person chose (paths, names, the rule's wording, which quotes paths) passes
 * escapeMarkdown (escapeTitle in the title, which GitLab renders without Markdown), so it can neither
 * mention anyone, nor forge the marker, nor inject HTML or links; the whole text passes redactOutput
 * last, as every output does.
 */
import { accessLevelName } from "../../policy/index.ts";
import { redactOutput } from "../../redact/index.ts";
// A notice links nothing of its own: no URL in what it quotes (an adder's display name) may become a link.
import { cutTitle, escapeMarkdownText as md, escapeTitle } from "../escape.ts";
import { subjectOf, type ShareRemoval } from "../shares/plan.ts";
import { markerLine, noticeKey } from "./marker.ts";

/** Why a notice is closed. */
export type ClosingReason =
  | { kind: "removed"; dueDate: string | null }
  | { kind: "already-gone" }
  | { kind: "no-longer-stray"; why: string }
  | { kind: "duplicate"; of: number }
  | { kind: "replaced" }
  | { kind: "not-notify"; onStray: string; from: string };

/**
 * "Stray share: project acme/app shared with partners (Developer)", one line, cut to GitLab's limit (the
 * body names the share in full): paths are chosen by a project's Maintainer or a group's Owner (a path
 * alone may be 255 characters), and a notice refused every run would keep its share for good under notify.
 */
export function noticeTitle(a: ShareRemoval): string {
  return cutTitle(redactOutput(`Stray share: ${a.kind} ${escapeTitle(subjectOf(a).path)} shared with ${escapeTitle(a.group)} (${accessLevelName(a.accessLevel)})`));
}

/**
 * The reason without what the policy allows the group elsewhere (lib/policy/shares.ts: "… (allow[1] partners/x
 * applies only to projects acme/secret/**)"): the report's reader may read the policy, a notice's (its assignee,
 * perhaps a Guest, the notices project's Reporters) has no need of its other rules, whose paths may be private.
 */
function aboutThisShare(reason: string): string {
  return reason.replace(/ \(allow\[\d+\] \S+ applies only to [^()]*\)$/, "");
}

export interface BodyFacts {
  /** The removal date (the issue's due_date). */
  dueDate: string;
  /** The grace as the policy writes it (7d, 36h). */
  grace: string;
  /** Where the policy sets onStray notify for this share (strayHandling's `from`). */
  from: string;
  /** The iid of the notice a person closed before the share was resolved, whose opening the grace counts from. */
  earlier?: number;
}

export function noticeBody(a: ShareRemoval, facts: BodyFacts): string {
  const { path } = subjectOf(a);
  const expiry = a.expiresAt ? `until ${a.expiresAt}` : "no expiry";
  const lines = [
    markerLine(noticeKey(a)),
    "",
    `**Warden will remove this share on ${md(facts.dueDate)}**: the access policy does not allow it.`,
    "",
    ...(facts.earlier === undefined ? [] : [`The earlier notice #${facts.earlier} was closed before its share was resolved, so the grace was not restarted: it counts from when that notice was opened. Closing this one does not restart it either.`, ""]),
    "| | |",
    "|---|---|",
    `| ${a.kind === "project" ? "Project" : "Group"} | ${md(path)} |`,
    `| Shared with group | ${md(a.group)} |`,
    `| Level | ${accessLevelName(a.accessLevel)} (${md(expiry)}) |`,
    `| Why it is stray | ${md(aboutThisShare(a.reason))} |`,
    `| Added by | ${addedBy(a)} |`,
    `| Removal | on ${md(facts.dueDate)}, this issue's due date (the grace of ${md(facts.grace)} set by ${md(facts.from)}${facts.earlier === undefined ? "" : `, from the opening of #${facts.earlier}`}) |`,
    "",
    "**How to keep it**",
    "",
    exemptionAdvice(a, path),
    "- Or change the policy so that it allows this share.",
    "- To give more time, move this issue's due date: Warden reads it on every run.",
    "",
    "Warden closes this issue itself when the share is removed, allowed or gone.",
  ];
  return redactOutput(lines.join("\n"));
}

/**
 * How to ask for an exemption: `warden exempt` writes a project share's (its merge request is the ask); a
 * group's share it cannot, so that one is an entry in the policy's exempt list, by a merge request too.
 */
function exemptionAdvice(a: ShareRemoval, path: string): string {
  if (a.kind === "project") return `- Ask for an exemption: run warden exempt with \\-\\-project ${md(path)} \\-\\-group ${md(a.group)}, an \\-\\-until date and a \\-\\-reason; it opens a merge request on the policy repository, and merging it is the approval.`;
  return `- Ask for an exemption: propose, in a merge request on the policy repository, an entry in gitlab.shares.exempt with group ${md(path)}, sharedWith ${md(a.group)}, an until date and a reason; merging it is the approval.`;
}

/** "Jane Doe on 2026-11-20", or why no one is named. No @mention: the adder is assigned instead, where they can be. */
function addedBy(a: ShareRemoval): string {
  if (a.addedBy === undefined) return "not known (not attributed)";
  if (a.addedBy === null) return `not known (${a.attribution ?? "not recorded"})`;
  const who = a.addedBy.username === null ? md(a.addedBy.name) : `${md(a.addedBy.name)} (${md(a.addedBy.username)})`;
  return `${who} on ${md(a.addedBy.at.slice(0, 10))}`;
}

/** The note a notice is closed with. */
export function closingNote(reason: ClosingReason): string {
  switch (reason.kind) {
    case "removed":
      return redactOutput(`Warden removed this share: the notice was due (${md(reason.dueDate ?? "no due date")}) and the share was still stray. The run's report lists the removal, and warden restore can re-create the share from it.`);
    case "already-gone":
      return "The notice was due, and the share was already gone: Warden removed nothing.";
    case "no-longer-stray":
      // Not why: that names what Warden's token read of the share's subject, and whoever may re-key the
      // issue (a Reporter its label; a Guest assignee the marker of a notice an earlier Warden opened)
      // may have pointed it at a subject they cannot see. The report says.
      return "Closed: Warden no longer finds this share stray (the run's report says why). Nothing was removed.";
    case "duplicate":
      return `Closed as a duplicate of #${reason.of}: two runs opened a notice for this share at once; #${reason.of} stands.`;
    case "replaced":
      // Not which share: its marker, the one place that names it, is the description its assignee may edit.
      return "Closed: an earlier Warden opened this notice without the label that names its share, and Warden no longer reads a notice by its description, which its assignee may edit. Where the share is still stray, Warden opens a notice of its own for it, with the removal date that notice states. Nothing was removed.";
    case "not-notify":
      return redactOutput(`Closed: the policy now sets onStray ${md(reason.onStray)} for this share (${md(reason.from)}), so no notice applies.`);
  }
}

/** Why a notice was closed, in a few plain words (the report's; the note says more). */
export function closureWhy(reason: ClosingReason): string {
  switch (reason.kind) {
    case "removed":
      return "its share was removed";
    case "already-gone":
      return "its share was already gone";
    case "no-longer-stray":
      return reason.why;
    case "duplicate":
      return `a duplicate of #${reason.of}`;
    case "replaced":
      return "opened by an earlier Warden without its share's label: replaced by a labelled notice";
    case "not-notify":
      return `onStray is now ${reason.onStray} (${reason.from})`;
  }
}
