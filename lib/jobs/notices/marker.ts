/**
 * How a notice names its share: the subject's kind and id and the invited group's id (ids, as paths
 * change with renames), `project:12:group:34`, in a label of its own, `warden-share::project:12:group:34`,
 * beside Warden's `warden::notice`. Only Reporters and above may change an issue's labels; its
 * description, anyone who may edit the issue: its author and assignees too, the share's adder among
 * them, even as a Guest. So the label names the share, and the marker the description opens with,
 * `<!-- warden-share: project:12:group:34 -->`, is for a reader. A notice an earlier Warden opened without
 * the label names no share: its assignee may have re-keyed its marker to another team's share (read.ts
 * closes it as replaced). Nothing else in a description can forge the marker:
 * every server text in a notice is Markdown-escaped (`<`, `!` and `-` backslashed). Only issues the
 * token's own user opened are read as notices at all (read.ts).
 */
import type { ProjectIssue } from "../../gitlab/index.ts";
import { subjectOf, type ShareSubjectFields } from "../shares/plan.ts";

export const NOTICE_LABEL = "warden::notice";
/**
 * Added as Warden closes a notice (write.ts): its assignee may reopen it, which must not make it stand
 * again (read.ts), as its old due date would have a share made since removed at once. A scope of its
 * own: a second `warden::` label would take the notice's place, scoped labels being one per scope. A
 * duplicate's close is told apart: it never means the share was resolved (closed.ts), whenever it came.
 */
export const CLOSED_LABELS = { resolved: "warden-closed::by-warden", duplicate: "warden-closed::duplicate" } as const;

/** Whether an issue carries a label Warden adds as it closes a notice. */
export const closedByWarden = (labels: readonly string[] | undefined) => labels?.some((l) => l.startsWith("warden-closed::")) === true;
const KEY_LABEL = "warden-share::";
const KEY = String.raw`(?:project|group):[1-9]\d{0,15}:group:[1-9]\d{0,15}`;

const MARKER = new RegExp(`^<!-- warden-share: (${KEY}) -->$`);
const KEY_ONLY = new RegExp(`^${KEY}$`);

/** A share's notice key: "project:12:group:34". */
export function noticeKey(a: ShareSubjectFields & { groupId: number }): string {
  return `${a.kind}:${subjectOf(a).id}:group:${a.groupId}`;
}

export function markerLine(key: string): string {
  return `<!-- warden-share: ${key} -->`;
}

/** The label that names a notice's share. */
export function keyLabel(key: string): string {
  return `${KEY_LABEL}${key}`;
}

/** The share a notice of Warden's names: its key label's; undefined where it has none, or two (a person added one). */
export function noticeKeyOf(issue: Pick<ProjectIssue, "labels">): string | undefined {
  const labelled = keyLabelsOf(issue);
  return labelled.length === 1 && KEY_ONLY.test(labelled[0]!) ? labelled[0] : undefined;
}

/** The key a notice an earlier Warden opened (a marker, no key label) marks, as its description now reads: for its closing note and the report only. */
export function legacyKeyOf(issue: Pick<ProjectIssue, "labels" | "description">): string | undefined {
  return keyLabelsOf(issue).length === 0 ? markedKey(issue.description) : undefined;
}

const keyLabelsOf = (issue: Pick<ProjectIssue, "labels">) =>
  (Array.isArray(issue.labels) ? issue.labels : []).filter((l) => typeof l === "string" && l.startsWith(KEY_LABEL)).map((l) => l.slice(KEY_LABEL.length));

/** The key a description's first line marks, or undefined (not a notice). */
export function markedKey(description: string | null): string | undefined {
  const first = (description ?? "").split("\n", 1)[0]!.trimEnd();
  return MARKER.exec(first)?.[1];
}

/** The share a key names. */
export function keyParts(key: string): { kind: "project" | "group"; subjectId: number; groupId: number } {
  const [kind, subject, , group] = key.split(":");
  return { kind: kind as "project" | "group", subjectId: Number(subject), groupId: Number(group) };
}
