/**
 * How a notice names its share: Warden's label, and a hidden marker as the first line of the issue's
 * description, `<!-- warden-share: project:12:group:34 -->` (the subject's kind and id, the invited
 * group's id: ids, as paths change with renames). Nothing else in a description can forge it: every
 * server text in a notice is Markdown-escaped (`<`, `!` and `-` backslashed), and only issues the
 * token's own user opened are read as notices at all (read.ts).
 */
import { subjectOf, type ShareSubjectFields } from "../shares/plan.ts";

export const NOTICE_LABEL = "warden::notice";

const MARKER = /^<!-- warden-share: ((?:project|group):[1-9]\d{0,15}:group:[1-9]\d{0,15}) -->$/;

/** A share's notice key: "project:12:group:34". */
export function noticeKey(a: ShareSubjectFields & { groupId: number }): string {
  return `${a.kind}:${subjectOf(a).id}:group:${a.groupId}`;
}

export function markerLine(key: string): string {
  return `<!-- warden-share: ${key} -->`;
}

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
