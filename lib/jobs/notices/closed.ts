/**
 * The notices closed before their share was resolved. GitLab lets a notice's assignee (the share's
 * adder) close it; were the next run to open a new notice with a fresh grace, closing each as it came
 * would keep a stray share for ever. So a run also lists the notices closed recently (one keyset
 * listing, updated within the policy's longest grace and a month), and for a share with no open notice the
 * oldest one still counting anchors its removal date (plan.ts).
 *
 * As read.ts: only issues the token's own user opened that name their share by its label count. Of those,
 * a notice Warden itself closed (closed_by: the token's user; its share removed, gone, allowed, turned
 * to report, or a duplicate; or its warden-closed:: label, where a person reopened and closed it again) is
 * no person's doing; and once Warden closed a notice of the share after
 * every close by a person made before it, and the share stayed resolved until the date they set (removed,
 * say, then added again after it): the earlier closes no longer count. Stray again before that date, they
 * still do, and so does the notice Warden closed: a share not stray for a moment (lowered to a level a rule
 * allows just before a sweep, and raised after) keeps its date, or one level change each side of each sweep
 * would buy a whole new grace. When it was stray again is judged by what is known (strayAgain), not by the
 * run's time: the first run after the raise may come on the date itself (a daily sweep's), and a close
 * judged then would end the count every time. A duplicate Warden closed while the standing notice was open
 * ends nothing. Each share's closes are kept (of Warden's own notices, within the window) and judged in
 * the order they were made.
 */
import type { GitLabClient } from "../../gitlab/index.ts";
import { issueUrl } from "./issue-url.ts";
import { longestGraceHours, type Grace, type Policy } from "../../policy/index.ts";
import { CLOSED_LABELS, closedByWarden, noticeKeyOf } from "./marker.ts";
import { noticesBy } from "./read.ts";
import { daysLeft, dueDateFor, HOUR_MS } from "./due.ts";

/** A closed notice that still counts: the removal date is counted from its creation (set by GitLab, never editable). */
export interface EarlierNotice {
  iid: number;
  url: string;
  createdAt: string;
  /** The last close that counts of the share's notices: a share made again after it is a new episode (plan.ts). */
  closedAt: string;
  /**
   * That last close was a person's, of a notice opened after the anchor: the one notice a run opens once
   * a person closed one (plan.ts) was closed too. No further one is opened: each would be one more issue
   * per run, and the runs come as often as the adder changes the share (a watch's or a stream's).
   */
  followedUp: boolean;
}

/**
 * How much further back than the longest grace the closes are looked for: the time between two runs. The
 * first notice of a series is closed as soon as it is opened at worst; the first run after its date
 * must still find it, or the series' next notice would anchor a later date, and so on for ever.
 * Runs at least a month apart would need more.
 */
const RUN_INTERVAL_MS = 31 * 24 * HOUR_MS;

/** A stray with no open notice: its grace, and when it was last granted (its attribution's addedBy.at), where known. */
export interface Unnoticed {
  grace: Grace;
  grantedAt?: string;
}

/**
 * The closed notices of `wanted` (by each share's key) that anchor a removal date: listed back to the
 * policy's longest grace and a month, not the whole history.
 */
export async function readEarlierNotices(gitlab: GitLabClient, project: string, wanted: ReadonlyMap<string, Unnoticed>, policy: Policy, now: Date, me: number, signal?: AbortSignal): Promise<Map<string, EarlierNotice>> {
  const closes = new Map<string, Close[]>();
  const updatedAfter = new Date(now.getTime() - longestGraceHours(policy) * HOUR_MS - RUN_INTERVAL_MS).toISOString();
  // Warden's: the token's user's, and those of the tokens it had before (gitlab.shares.notices.authors).
  const wardens = new Set([me, ...(policy.gitlab?.shares.notices?.authors ?? [])]);
  for await (const issue of noticesBy(gitlab, project, wardens, { state: "closed", updatedAfter }, signal)) {
    const key = noticeKeyOf(issue);
    const [created, closed] = [Date.parse(issue.created_at ?? ""), Date.parse(issue.closed_at ?? "")];
    // Who closed it, and when, unknown (no such field): nobody's close can be told apart from Warden's; not counted.
    if (key === undefined || !wanted.has(key) || typeof issue.closed_by?.id !== "number" || Number.isNaN(created) || Number.isNaN(closed)) continue;
    // A duplicate's close never means the share was resolved: not even one made after a person's close (a race),
    // nor one a person reopened and closed again.
    if (issue.labels?.includes(CLOSED_LABELS.duplicate)) continue;
    // Warden closed it (its label), and a person reopened and closed it again, or closed it as Warden did: still
    // Warden's close, or its assignee could turn a close on removal into theirs, which dates a share made anew
    // since. When Warden closed it is lost: at the earliest, its opening (judged so, a close ends the count no
    // sooner than Warden's own did).
    const relabelled = !wardens.has(issue.closed_by.id) && closedByWarden(issue.labels);
    const close: Close = { notice: { iid: issue.iid, url: issueUrl(gitlab.instanceUrl, project, issue), createdAt: new Date(created).toISOString() }, created, closed: relabelled ? created : closed, byWarden: relabelled || wardens.has(issue.closed_by.id) };
    closes.set(key, [...(closes.get(key) ?? []), close]);
  }
  const found = new Map<string, EarlierNotice>();
  for (const [key, list] of closes) {
    const { grace, grantedAt } = wanted.get(key)!;
    const anchor = anchorOf(list, Date.parse(grantedAt ?? ""), now.getTime(), (created, at) => daysLeft(dueDateFor(new Date(created), grace), new Date(at))! > 0);
    if (anchor) found.set(key, anchor);
  }
  return found;
}

/** One close of a notice of the share: by a person, or by Warden. */
interface Close {
  notice: Omit<EarlierNotice, "closedAt" | "followedUp">;
  created: number;
  closed: number;
  byWarden: boolean;
}

/**
 * Of a share's closes, judged in the order they were made (not the order the notices were opened: a
 * Warden close of an older notice after a person's close of a newer one ends the count too), the oldest
 * notice still counting, with the last close that counts (its time, and whether it was a person's of a
 * later notice: followedUp). A person's close counts; Warden's ends the count where the date the count
 * sets (from its oldest notice) was past by the time the share was stray again, and counts otherwise.
 * That time: the opening of a later notice of the share, or its last grant after the close (`granted`,
 * addedBy.at: its adder raised it or added it back), whichever came first, else (a policy that allowed
 * it no longer does, say) `now`.
 */
function anchorOf(closes: Close[], granted: number, now: number, ahead: (created: number, at: number) => boolean): EarlierNotice | undefined {
  const strayAgain = (close: Close) => Math.min(now, ...closes.filter((c) => c.created > close.closed).map((c) => c.created), ...(granted > close.closed ? [granted] : []));
  let anchor: Close | undefined;
  let last: Close | undefined;
  for (const close of [...closes].sort((a, b) => a.closed - b.closed)) {
    const oldest = anchor && anchor.created <= close.created ? anchor : close;
    if (close.byWarden && !ahead(oldest.created, strayAgain(close))) anchor = undefined;
    else [anchor, last] = [oldest, close];
  }
  return anchor && last && { ...anchor.notice, closedAt: new Date(last.closed).toISOString(), followedUp: !last.byWarden && last !== anchor };
}
