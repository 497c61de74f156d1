/** How the access review reads: its text and Markdown view (render/ lays them out) and its CSV columns. */
import { subjectOf } from "../shares/plan.ts";
import { addedByText } from "../shares/view.ts";
import { count, type JobView } from "../view.ts";
import type { ReviewedShare, ReviewReport } from "./summary.ts";

export const reviewView: JobView<ReviewedShare, ReviewReport> = {
  title: "Warden access review",
  noun: ["share in scope", "shares in scope"],
  group: (a) => `${subjectOf(a).path} (${a.kind === "group" ? "group " : ""}#${subjectOf(a).id})`,
  columns: (a) => [`${a.kind} share`, a.group, a.accessLevelName, a.expiresAt ? `until ${a.expiresAt}` : "no expiry", addedByText(a), a.rule],
  headings: { group: "Project or group", columns: ["Share", "Invited group", "Level", "Expiry", "Added by", "Rule, or why stray"] },
  tally: { title: "Shares by invited group", of: (a) => a.group },
  summary: ({ summary: s, stats }: ReviewReport) =>
    `${count(s.projects, "project")} and ${count(s.groups, "group")} examined; ${count(s.listed, "share")} in scope: ${s.allowed} allowed, ${s.exempt} exempt, ${s.strays} stray; ` +
    `${s.attributed} attributed (${s.attributionDays ? `${count(s.attributionDays, "day")} of audit events of ${count(s.attributionGroups, "group")}, ${count(stats.auditRequests ?? 0, "request")}` : "attribution off"})`,
  closing: ({ summary: s }: ReviewReport) =>
    `Access review${s.complete ? "" : " (incomplete: the run stopped early, see the warnings)"}: ${count(s.listed, "share")}, ${s.allowed} allowed, ${s.exempt} exempt, ${s.strays} stray. Nothing was changed.`,
};

export const CSV_HEADER = ["kind", "subject", "subject_id", "invited_group", "invited_group_id", "access_level", "access_level_name", "expires_at", "status", "rule_or_reason", "added_by", "added_by_username", "added_at", "attribution"] as const;

/** One listed share's CSV cells, in CSV_HEADER's order. */
export function csvCells(a: ReviewedShare): (string | number | null)[] {
  const { id, path } = subjectOf(a);
  const by = a.addedBy;
  const attribution = a.addedBy === undefined ? "not attributed" : by ? "" : (a.attribution ?? "not recorded");
  return [a.kind, path, id, a.group, a.groupId, a.accessLevel, a.accessLevelName, a.expiresAt, a.status, a.rule, by?.name ?? null, by?.username ?? null, by?.at ?? null, attribution];
}
