/**
 * What a run does with each stray share the policy does not remove at once, and with each open
 * notice (reads only; write.ts makes the changes). Per stray, by strayHandling (gitlab.shares.onStray
 * and the scope's overrides):
 * - notify, no notice: "notify" (a notice to open, due after the grace); but where an earlier notice of
 *   it still counts (closed.ts: a person closed it, or Warden did before its date, the share not stray for
 *   a while), the grace counts from that notice's opening: "planned" (removed, that notice left closed)
 *   once that date is past, else "notify" with that date, or "pending" once a person closed that notice
 *   too (one more notice an episode, not one a run);
 * - notify, a notice not yet due (or whose due date a person removed): "pending"; so too, without a
 *   notice, every stray under notify while the notices cannot be read (held until they can);
 * - notify, a notice due (its due_date today or past, in UTC days): "planned", removed as any stray is,
 *   its notice closed after;
 * - report: "reported", and any notice of it closed (no removal follows);
 * - remove: removed at once, and any notice of it closed after.
 * An open notice an earlier Warden opened without its key label is closed as replaced (read.ts).
 * An open notice whose share is not stray in this run is closed only by a complete run over the whole
 * scope (a --target, watch or stream run sees only part of it), once a read of its subject shows why:
 * the share or its subject is gone, or the policy now allows, exempts or leaves it out of scope.
 */
import pMap from "p-map";
import { HttpError, type GitLabClient } from "../../gitlab/index.ts";
import { evaluateShare, strayHandling, type Grace, type Policy } from "../../policy/index.ts";
import { errorText } from "../report/index.ts";
import { SHARE_OPS } from "../shares/kinds.ts";
import { shareInput, shareKey, subjectOf, type NoticeRef, type ShareRemoval, type ShareStatus } from "../shares/plan.ts";
import { count } from "../view.ts";
import { daysLeft, dueDateFor, HOUR_MS } from "./due.ts";
import { keyParts, noticeKey } from "./marker.ts";
import { readEarlierNotices, type EarlierNotice, type Unnoticed } from "./closed.ts";
import { createdShare } from "./made-again.ts";
import { inTurn, readNotices, type NoticeListing, type OpenNotice } from "./read.ts";
import type { ClosingReason } from "./text.ts";

/** A notice this run closes (or, a dry run, would close), for a reason other than its share's removal. */
export interface NoticeClosure {
  iid: number;
  url: string;
  /** The share's notice key, "project:12:group:34". */
  share: string;
  reason: ClosingReason;
  status: "planned" | "done" | "failed";
  error?: string;
}

/** A stray share's status and notice, as the notices phase decided. */
export interface NoticeState {
  status: ShareStatus;
  notice?: NoticeRef;
  error?: string;
}

export interface NoticePlan {
  /** By shareKey. */
  states: Record<string, NoticeState>;
  closures: NoticeClosure[];
  warnings: string[];
  /** The notices project could not be read (missing, or not visible to the token): no notice is opened or closed. */
  unreadable?: true;
}

export interface PlanInput {
  gitlab: GitLabClient;
  policy: Policy;
  now: Date;
  plan: readonly ShareRemoval[];
  /** The run examined the whole scope to the end: a notice whose share it did not find stray may be closed. */
  whole: boolean;
  /** Most notices closed per run (and subjects read to tell why). */
  max: number;
  concurrency: number;
  signal?: AbortSignal;
  /** The token's user id, read by the run's token check (undefined in a step recorded before it was kept). */
  userId?: number | undefined;
  /** The token is an administrator: the instance's audit events are the ones read (made-again.ts). */
  admin?: boolean;
}

/** A new turn each hour: the runs of one hour agree on theirs. */
const hourOf = (now: Date) => Math.floor(now.getTime() / HOUR_MS);

export function noticeRef(notice: OpenNotice, now: Date): NoticeRef {
  return { iid: notice.iid, url: notice.url, dueDate: notice.dueDate, daysLeft: daysLeft(notice.dueDate, now) };
}

export async function planNotices(input: PlanInput): Promise<NoticePlan> {
  const { policy, now, plan } = input;
  const project = policy.gitlab?.shares.notices?.project;
  const states: Record<string, NoticeState> = {};
  const warnings: string[] = [];
  const read = project === undefined ? undefined : await readListings(input, project).catch((err: unknown) => {
    if (input.signal?.aborted) throw err;
    // Without the notices no share under notify can be known due: none is removed, and none gets a second notice.
    const why = err instanceof HttpError && (err.status === 404 || err.status === 403) ? "was not found, or the token cannot read it" : "could not be listed";
    warnings.push(`gitlab.shares.notices.project: project ${project} ${why} (${errorText(err)}): no notice was read, opened or closed, and no share under onStray notify was removed`);
    return null;
  });
  const listing = read && read.open;
  // Every close a run would make, held to `max` together below: one policy edit (notify to report) must not close, and note, every notice at once.
  const closing: NoticeClosure[] = [];
  const close = (notice: OpenNotice, reason: ClosingReason) => closing.push({ iid: notice.iid, url: notice.url, share: notice.key, reason, status: "planned" });
  for (const action of plan) {
    const handling = strayHandling(policy, subjectOf(action).path);
    const notice = listing?.byKey.get(noticeKey(action)) ?? undefined;
    const state: NoticeState = { status: "planned", ...(notice && { notice: noticeRef(notice, now) }) };
    if (handling.onStray === "report") {
      state.status = "reported";
      if (notice) close(notice, { kind: "not-notify", onStray: "report", from: handling.from });
    } else if (handling.onStray === "notify" && read === null) {
      // Held, not a notice to open: none can be (nor known due), and the guard must not count it, or whoever can
      // make the notices project unreadable (a Maintainer there turning its issues off) would stop every removal.
      state.status = "pending";
    } else if (handling.onStray === "notify" && !notice) {
      Object.assign(state, await afterClose(input, action, handling.grace!, read?.earlier.get(noticeKey(action)), warnings));
    } else if (handling.onStray === "notify" && (state.notice!.daysLeft === null || state.notice!.daysLeft > 0)) {
      state.status = "pending";
    }
    states[shareKey(action)] = state;
  }
  if (listing) {
    for (const { notice, of } of listing.duplicates) close(notice, { kind: "duplicate", of });
    for (const notice of listing.legacy) close(notice, { kind: "replaced" });
    if (input.whole) {
      const reasons = await pMap(listing.others, (notice) => whyNotStray(input, notice).catch((err: unknown) => void warnings.push(`notice #${notice.iid}: its share could not be read (${errorText(err)}); left open`)), { concurrency: input.concurrency });
      listing.others.forEach((notice, i) => reasons[i] && close(notice, { kind: "no-longer-stray", why: reasons[i] }));
    }
  }
  // Taken in turns (the hour's, as readNotices takes the others): a close GitLab refuses every time holds its place for one turn, not for good over every close after it.
  const closures = inTurn(closing, hourOf(input.now)).slice(0, input.max);
  const left = Math.max(0, closing.length - input.max) + (listing ? listing.duplicatesLeft + listing.legacyLeft + (input.whole ? listing.othersLeft : 0) : 0);
  if (left) warnings.push(`notices: ${count(left, "more open notice")} to close than a run closes (gitlab.guard.maxRemovals, ${input.max}): later runs close them`);
  return { states, closures, warnings, ...(listing === null && { unreadable: true as const }) };
}

/**
 * A stray under notify with no open notice. Closing a notice does not restart the grace: it counts from
 * the opening of the one a person closed (`closed`, closed.ts). Unless the share was created anew after
 * that close and once that grace had run out (made-again.ts): then it was resolved, removed by a person
 * say, and this is a new one, owed a notice and a whole grace like any other. Made again within the
 * grace (removed and added back), or only raised (a group share's level lowered and raised, whenever),
 * it keeps the date, or its adder could restart the grace every week. One notice is opened with that
 * date; once a person closed that one too (followedUp), no more: the share waits for the date, pending.
 */
async function afterClose(input: PlanInput, action: ShareRemoval, grace: Grace, closed: EarlierNotice | undefined, warnings: string[]): Promise<NoticeState> {
  const anchored = closed && dueDateFor(new Date(closed.createdAt), grace);
  const at = action.addedBy ? Date.parse(action.addedBy.at) : NaN;
  const grantedSince = closed && at > Date.parse(closed.closedAt) && at >= Date.parse(`${anchored}T00:00:00Z`);
  const madeAgain = !grantedSince ? false : await createdShare(input.gitlab, input.admin === true, action, input.signal).catch((err: unknown) => {
    if (input.signal?.aborted) throw err;
    // Held, as every stray under notify while the notices cannot be read: neither a new grace nor a removal on a guess.
    warnings.push(`share ${noticeKey(action)}: its audit event could not be read to tell whether it was made again since its notice #${closed.iid} was closed (${errorText(err)}): held, neither noticed nor removed; a later run reads it`);
    return undefined;
  });
  if (madeAgain === undefined) return { status: "pending" };
  const earlier = closed && !madeAgain ? closed : undefined;
  const dueDate = dueDateFor(earlier ? new Date(earlier.createdAt) : input.now, grace);
  const left = daysLeft(dueDate, input.now)!;
  const status = !earlier ? "notify" : left <= 0 ? "planned" : earlier.followedUp ? "pending" : "notify";
  return { status, notice: { dueDate, daysLeft: left, ...(earlier && { earlier: { iid: earlier.iid, url: earlier.url } }) } };
}

/**
 * The open notices, then, for the shares under notify that have none, the notices a person closed: if
 * either listing fails, no notice is read (the run then writes none, and removes no share under notify).
 */
async function readListings(input: PlanInput, project: string): Promise<{ open: NoticeListing; earlier: Map<string, EarlierNotice> }> {
  const me = input.userId ?? (await input.gitlab.currentUser(input.signal)).id;
  // A new turn of the other notices each hour (readNotices): the runs of one hour agree on theirs.
  const open = await readNotices(input.gitlab, project, new Set(input.plan.map(noticeKey)), input.max, input.signal, me, hourOf(input.now), input.policy.gitlab?.shares.notices?.authors);
  const unnoticed = new Map<string, Unnoticed>();
  for (const action of input.plan) {
    const handling = strayHandling(input.policy, subjectOf(action).path);
    if (handling.onStray === "notify" && !open.byKey.has(noticeKey(action))) unnoticed.set(noticeKey(action), { grace: handling.grace!, ...(action.addedBy && { grantedAt: action.addedBy.at }) });
  }
  const earlier = unnoticed.size ? await readEarlierNotices(input.gitlab, project, unnoticed, input.policy, input.now, me, input.signal) : new Map<string, EarlierNotice>();
  return { open, earlier };
}

/** Why the share a notice names is no longer stray, read anew; undefined while it still is (or it cannot be read). */
async function whyNotStray(input: PlanInput, notice: OpenNotice): Promise<string | undefined> {
  const { kind, subjectId, groupId } = keyParts(notice.key);
  const subject = await SHARE_OPS[kind].read(input.gitlab, subjectId, input.signal);
  if (!subject) return `the ${kind} (id ${subjectId}) is gone, or the token can no longer see it`;
  const share = subject.shares.find((s) => s.group_id === groupId);
  if (!share) return `the share of ${kind} ${subject.path} with group id ${groupId} is gone`;
  const verdict = evaluateShare(input.policy, shareInput(kind, subject, share), input.now);
  if (verdict.kind === "stray") return undefined;
  if (verdict.kind === "out-of-scope") return `${kind} ${subject.path} is no longer in the policy's scope`;
  return `the share of ${kind} ${subject.path} with ${share.group_full_path} is now ${verdict.kind} by ${verdict.rule}`;
}
