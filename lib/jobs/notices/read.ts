/**
 * The run reads its own notices: one keyset listing of the open issues labelled warden::notice in the
 * notices project, streamed page by page. Only issues the token's own user opened, naming their share by
 * its label (marker.ts), count: anyone may type a marker into an issue of their own, and must not
 * stand in for Warden's notice (delaying a removal) by doing so. For each share the oldest open notice
 * (lowest iid) stands; a newer one is a duplicate, left by two runs at once. A notice an earlier Warden
 * opened without its key label stands for nothing (marker.ts): it is closed as replaced, and its share, if
 * still stray, gets a labelled notice of its own. Kept in memory: one small entry per open notice's share,
 * the notices of other shares and those without a key label up to `max` each (the ones a run may close),
 * and each notice's iid (noticesBy).
 */
import { listIssues, type GitLabClient, type ProjectIssue } from "../../gitlab/index.ts";
import { issueUrl } from "./issue-url.ts";
import { isCalendarDay } from "./due.ts";
import { closedByWarden, legacyKeyOf, NOTICE_LABEL, noticeKeyOf } from "./marker.ts";

/** (√5 − 1) / 2: its multiples by whole numbers fall everywhere in [0, 1), for any step between them (Weyl). */
const GOLDEN = (Math.sqrt(5) - 1) / 2;

export interface OpenNotice {
  iid: number;
  url: string;
  dueDate: string | null;
  key: string;
}

export interface NoticeListing {
  /** The standing notice of each share of `wanted`. */
  byKey: Map<string, OpenNotice>;
  /** The standing notices of other shares, up to `max`, and how many more there were. */
  others: OpenNotice[];
  othersLeft: number;
  /** Newer notices of a share that has an older one (up to `max`), with the iid that stands. */
  duplicates: { notice: OpenNotice; of: number }[];
  duplicatesLeft: number;
  /** Notices an earlier Warden opened without a key label (up to `max`, keyed by their marker as it reads now), to close as replaced. */
  legacy: OpenNotice[];
  legacyLeft: number;
}

/**
 * `me`: the token's user id when the run has read it already (enforce's token check); else read here.
 * `turn`: which `max` of the other notices this run takes (any number; the run's hour, plan.ts), so that
 * runs take them in turn: a notice that cannot be closed (its share unreadable, its close refused, each
 * time) holds its place for one turn, not for good over every notice listed after it. The window starts
 * at the turn's multiple of the golden ratio, not at turn × max: runs a whole number of hours apart (a
 * daily sweep, always at one hour) then start everywhere in time, where turn × max, moving 24 × max a
 * day, stood still whenever the count of notices divided that.
 */
export async function readNotices(gitlab: GitLabClient, project: string, wanted: ReadonlySet<string>, max: number, signal?: AbortSignal, me?: number, turn = 0, alsoBy: readonly number[] = []): Promise<NoticeListing> {
  const authors = new Set([me ?? (await gitlab.currentUser(signal)).id, ...alsoBy]);
  const standing = new Map<string, OpenNotice>();
  const duplicates: OpenNotice[] = [];
  let duplicatesLeft = 0;
  const duplicate = (notice: OpenNotice) => (duplicates.length < max ? duplicates.push(notice) : duplicatesLeft++);
  const legacy: OpenNotice[] = [];
  let legacyLeft = 0;
  for await (const issue of noticesBy(gitlab, project, authors, { state: "opened" }, signal)) {
    // A notice Warden closed and a person reopened stands for nothing: its date was for a share since resolved.
    if (closedByWarden(issue.labels)) continue;
    const notice = (key: string): OpenNotice => ({ iid: issue.iid, url: issueUrl(gitlab.instanceUrl, project, issue), dueDate: calendarDate(issue.due_date), key });
    const key = noticeKeyOf(issue);
    if (key === undefined) {
      // Its marker, which its assignee may have re-keyed, names no share: it only waits to be closed as replaced.
      const marked = legacyKeyOf(issue);
      if (marked !== undefined && legacy.length < max) legacy.push(notice(marked));
      else if (marked !== undefined) legacyLeft++;
      continue;
    }
    const earlier = standing.get(key);
    // Listed by creation, yet iids decide (both runs at once must agree on which one stands).
    if (earlier && earlier.iid < issue.iid) duplicate(notice(key));
    else {
      if (earlier) duplicate(earlier);
      standing.set(key, notice(key));
    }
  }
  const byKey = new Map([...standing].filter(([key]) => wanted.has(key)));
  const others = [...standing.values()].filter((n) => !wanted.has(n.key));
  return {
    byKey,
    others: inTurn(others, turn).slice(0, max),
    othersLeft: Math.max(0, others.length - max),
    duplicates: duplicates.map((notice) => ({ notice, of: standing.get(notice.key)!.iid })),
    duplicatesLeft,
    legacy,
    legacyLeft,
  };
}

/**
 * The `warden::notice` issues of each of Warden's users (the token's, and gitlab.shares.notices.authors), one
 * listing each: GitLab filters by one author, so that issues others label add no pages to every run. The
 * author is checked here all the same. Each issue comes once: a listing whose pages shift (GitLab's issues
 * before 18.3 ignore keyset pagination) or a stale cached page may show one again pages later, and read
 * twice a standing notice was closed as a duplicate of itself, a person's close counted as a second one.
 */
export async function* noticesBy(gitlab: GitLabClient, project: string, authors: ReadonlySet<number>, query: { state: "opened" | "closed"; updatedAfter?: string }, signal?: AbortSignal): AsyncGenerator<ProjectIssue> {
  const seen = new Set<number>();
  for (const author of authors) {
    for await (const issue of listIssues(gitlab, project, { labels: [NOTICE_LABEL], ...query, authorId: author }, signal ? { signal } : undefined)) {
      if (issue.author?.id !== author || seen.has(issue.iid)) continue;
      seen.add(issue.iid);
      yield issue;
    }
  }
}

/** `items` from the turn's place on (the turn's multiple of the golden ratio, readNotices), then from the start. */
export function inTurn<T>(items: readonly T[], turn: number): T[] {
  const from = Math.floor(items.length * ((turn * GOLDEN) % 1));
  return [...items.slice(from), ...items.slice(0, from)];
}

/**
 * The issue's due_date when it is a calendar day (YYYY-MM-DD, as GitLab stores it); anything else a
 * server sends is no due date (the notice then stays pending, as one whose date a person deleted),
 * never text carried into the report where a date belongs.
 */
function calendarDate(value: string | null | undefined): string | null {
  return typeof value === "string" && isCalendarDay(value) ? value : null;
}
