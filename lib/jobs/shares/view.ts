/**
 * How one planned removal reads to people, whichever job lists it: enforce's plan and apply's are the
 * same rows (render/ lays them out), and the access review's "Added by" column says it as they do.
 */
import { accessLevelName } from "../../policy/index.ts";
import { count, type JobView } from "../view.ts";
import type { ShareRemoval } from "./plan.ts";

export const removalRows = {
  group: (a) => (a.kind === "group" ? `${a.sharedGroup} (group #${a.sharedGroupId})` : `${a.project} (#${a.projectId})`),
  columns: (a) => [
    `${a.kind} share`,
    a.group,
    accessLevelName(a.accessLevel),
    a.expiresAt ? `until ${a.expiresAt}` : "no expiry",
    addedByText(a),
    [a.reason, a.error, noticeText(a)].filter(Boolean).join(" — "),
  ],
  headings: { group: "Project or group", columns: ["Share", "Invited group", "Level", "Expiry", "Added by", "Reason"] },
  tally: { title: "Stray shares by invited group", of: (a) => a.group },
} satisfies Pick<JobView<ShareRemoval, unknown>, "group" | "columns" | "headings" | "tally">;

/**
 * "added by Jane Doe 2026-11-20", or why no one is named: "added by ? (not visible)"; a removal not
 * attributed at all (the run stopped first) says so, so that every row has the column.
 */
export function addedByText(a: Pick<ShareRemoval, "addedBy" | "attribution">): string {
  if (a.addedBy === undefined) return "not attributed";
  return a.addedBy ? `added by ${a.addedBy.name} ${a.addedBy.at.slice(0, 10)}` : `added by ? (${a.attribution ?? "not recorded"})`;
}

/** What became of a stray's notice, for its row: "notice #12 pending, 5 days left (due 2026-12-07)". */
export function noticeText(a: ShareRemoval): string | undefined {
  if (a.status === "reported") return "reported only (onStray report)";
  const n = a.notice;
  if (!n) return a.status === "pending" ? "held: the notices could not be read" : undefined;
  const due = n.dueDate === null ? "no due date set" : `due ${n.dueDate}`;
  if (n.iid === undefined) {
    // Pending with no notice open: a person closed the notice and the one opened after it; none is opened again.
    const from = n.earlier ? ` (counted from closed notice #${n.earlier.iid})` : "";
    return a.status === "pending" ? `no notice open${from}, ${due}` : `notice to open${from}, ${due}`;
  }
  if (a.status === "noticed") return `notice #${n.iid} opened, ${due}`;
  if (a.status === "pending") return `notice #${n.iid} pending, ${n.daysLeft === null ? "no due date set: not removed until one is" : `${count(n.daysLeft, "day")} left (${due})`}`;
  return `notice #${n.iid} ${due}${n.closed ? ", closed" : ""}`;
}
