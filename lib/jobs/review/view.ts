/** How the access review reads: its text and Markdown view (render/ lays them out) and its CSV columns. */
import { subjectOf } from "../shares/plan.ts";
import { addedByText } from "../shares/view.ts";
import { count, type JobView } from "../view.ts";
import type { ReviewedShare, ReviewNotice, ReviewReport } from "./summary.ts";

export const reviewView: JobView<ReviewedShare, ReviewReport> = {
  title: "Warden access review",
  noun: ["share in scope", "shares in scope"],
  group: (a) => `${subjectOf(a).path} (${a.kind === "group" ? "group " : ""}#${subjectOf(a).id})`,
  columns: (a) => [`${a.kind} share`, a.group, a.accessLevelName, a.expiresAt ? `until ${a.expiresAt}` : "no expiry", addedByText(a), a.notice ? `${a.rule} — ${noticeText(a.notice)}` : a.rule],
  headings: { group: "Project or group", columns: ["Share", "Invited group", "Level", "Expiry", "Added by", "Rule, or why stray (and its notice)"] },
  tally: { title: "Shares by invited group", of: (a) => a.group },
  summary: ({ summary: s, stats }: ReviewReport) =>
    `${count(s.projects, "project")} and ${count(s.groups, "group")} examined; ${count(s.listed, "share")} in scope: ${s.allowed} allowed, ${s.exempt} exempt, ${s.strays} stray; ` +
    `${s.attributed} attributed (${s.attributionDays ? `${count(s.attributionDays, "day")} of audit events of ${count(s.attributionGroups, "group")}, ${count(stats.auditRequests ?? 0, "request")}` : "attribution off"})`,
  closing: ({ summary: s, actions }: ReviewReport) =>
    `Access review${s.complete ? "" : " (incomplete: the run stopped early, see the warnings)"}: ${count(s.listed, "share")}, ${s.allowed} allowed, ${s.exempt} exempt, ${s.strays} stray${noticesTally(actions)}. Nothing was changed.`,
};

/** " (2 with a notice open, 1 with none open yet)", or nothing when no stray is under onStray notify. */
function noticesTally(actions: readonly ReviewedShare[]): string {
  const noticed = actions.filter((a) => a.notice);
  const open = noticed.filter((a) => a.notice!.iid !== undefined).length;
  return noticed.length ? ` (${open} with a notice open, ${noticed.length - open} with none open yet)` : "";
}

/**
 * A stray's notice, for its row: "notice #12, due 2026-12-07, 5 days left: https://…", or that none is
 * open yet. The due date is the issue's own (a person may move it, or remove it: then nothing is removed).
 */
export function noticeText(n: ReviewNotice): string {
  if (n.iid === undefined) return `no notice open yet (the next applying run opens one${n.dueDate === null ? "" : `, due ${n.dueDate}`})`;
  const due =
    n.dueDate === null ? "no due date set: not removed until it has one"
    : n.daysLeft === null ? `due ${n.dueDate}`
    : n.daysLeft <= 0 ? `due ${n.dueDate}: the next applying run removes the share`
    : `due ${n.dueDate}, ${count(n.daysLeft, "day")} left`;
  return `notice #${n.iid}, ${due}: ${n.url ?? ""}`;
}

export const CSV_HEADER = ["kind", "subject", "subject_id", "invited_group", "invited_group_id", "access_level", "access_level_name", "expires_at", "status", "rule_or_reason", "added_by", "added_by_username", "added_at", "attribution", "notice", "notice_iid", "notice_url", "notice_due_date", "notice_days_left"] as const;

/** One listed share's CSV cells, in CSV_HEADER's order. */
export function csvCells(a: ReviewedShare): (string | number | null)[] {
  const { id, path } = subjectOf(a);
  const by = a.addedBy;
  const attribution = a.addedBy === undefined ? "not attributed" : by ? "" : (a.attribution ?? "not recorded");
  // "open", "none open yet" (its due date: the one a notice opened now gets), or empty: not a stray under onStray notify.
  const n = a.notice;
  const notice = n ? [n.iid === undefined ? "none open yet" : "open", n.iid ?? null, n.url ?? null, n.dueDate, n.daysLeft] : ["", null, null, null, null];
  return [a.kind, path, id, a.group, a.groupId, a.accessLevel, a.accessLevelName, a.expiresAt, a.status, a.rule, by?.name ?? null, by?.username ?? null, by?.at ?? null, attribution, ...notice];
}
