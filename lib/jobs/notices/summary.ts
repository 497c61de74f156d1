/** What a run did with notices, counted for the report's summary and said in its closing line. */
import type { NoticeRef, ShareRemoval } from "../shares/plan.ts";
import { count } from "../view.ts";
import type { NoticeClosure } from "./plan.ts";
import { closureWhy } from "./text.ts";

export interface NoticeSummary {
  /** Notices to open (a dry run, or an applying run that did not get to them) and opened. */
  toOpen: number;
  opened: number;
  /** Stray shares whose notice stands, not yet due; the soonest due of them, in days (null: none has a due date). */
  pending: number;
  nextDueInDays: number | null;
  /** Stray shares whose notice is due, and of them those removed. */
  due: number;
  removed: number;
  /** Notices to close (a dry run), and closed: shares removed, gone, allowed, or duplicates. */
  toClose: number;
  closed: number;
  /** onStray report: reported only. */
  reported: number;
}

/** The report's list of notices closed for a reason other than their share's removal. */
export interface ClosedNotice {
  iid: number;
  url: string;
  share: string;
  why: string;
  status: NoticeClosure["status"];
  error?: string;
}

export function closedNotices(closures: readonly NoticeClosure[]): ClosedNotice[] {
  return closures.map(({ reason, ...closure }) => ({ ...closure, why: closureWhy(reason) }));
}

export function noticeSummary(actions: readonly ShareRemoval[], closures: readonly NoticeClosure[]): NoticeSummary {
  const with_ = (status: string) => actions.filter((a) => a.status === status);
  const due = actions.filter((a) => a.notice !== undefined && noticeDue(a.notice) && REMOVAL.has(a.status));
  const days = with_("pending").flatMap((a) => (a.notice?.daysLeft == null ? [] : [a.notice.daysLeft]));
  const closedAfter = actions.filter((a) => a.notice?.closed === true).length;
  return {
    toOpen: with_("notify").length,
    opened: with_("noticed").length,
    pending: with_("pending").length,
    // A reduce: as many arguments as a large plan's pending notices would overflow the stack.
    nextDueInDays: days.length ? days.reduce((a, b) => Math.min(a, b)) : null,
    due: due.length,
    removed: due.filter((a) => a.status === "done").length,
    toClose: closures.filter((c) => c.status === "planned").length,
    closed: closures.filter((c) => c.status === "done").length + closedAfter,
    reported: with_("reported").length,
  };
}

/** Whether a stray's notice came due: an open one's due date, or the one counted from a notice a person closed (never one still to open). */
export function noticeDue(notice: NoticeRef): boolean {
  return (notice.iid !== undefined || notice.earlier !== undefined) && notice.daysLeft !== null && notice.daysLeft <= 0;
}

const REMOVAL = new Set(["planned", "done", "already-gone", "skipped", "failed"]);

/** "Notices: 12 opened, 30 pending (next due in 2 days), 3 due and removed, 1 closed." */
export function noticesLine(s: NoticeSummary, dryRun: boolean): string {
  const next = s.nextDueInDays === null ? "" : ` (next due ${s.nextDueInDays === 1 ? "tomorrow" : `in ${count(s.nextDueInDays, "day")}`})`;
  const parts = dryRun
    ? [`${s.toOpen} to open`, `${s.pending} pending${next}`, `${s.due} due (to remove)`, ...(s.toClose ? [`${s.toClose} to close`] : [])]
    : [`${s.opened} opened`, ...(s.toOpen ? [`${s.toOpen} not opened`] : []), `${s.pending} pending${next}`, `${s.due} due and ${s.removed === s.due ? "removed" : `${s.removed} removed`}`, ...(s.closed ? [`${s.closed} closed`] : [])];
  const reported = s.reported ? `; ${count(s.reported, "stray share")} only reported (onStray report)` : "";
  return `Notices: ${parts.join(", ")}${reported}.`;
}
