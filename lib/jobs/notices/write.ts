/**
 * The changes of the notices phase, in an applying run, after the removals: opens the notices planned
 * (one issue each, assigned to the share's adder where attribution names them and the policy lets
 * it; confidential, as a notice tells who reaches what: only the notices project's Reporters and up,
 * and its assignee, see it), closes (then notes why) the notices whose share this run removed and those plan.ts found to close,
 * and, when it opened any, reads the open notices again: two runs at once may each have opened one for
 * the same share, and whichever run reads last closes the newer (both agree on the lowest iid), so one
 * notice stands. Issues are created and noted with POST, never repeated once it may have arrived: an
 * attempt again (a durable step failed or cut off) first reads the notices the one before opened.
 */
import pMap from "p-map";
import { issueUrl } from "./issue-url.ts";
import { createIssue, createIssueNote, updateIssue, userByUsername, type GitLabClient } from "../../gitlab/index.ts";
import { strayHandling, type NoticesPolicy, type Policy } from "../../policy/index.ts";
import { errorText, type AuditSink } from "../report/index.ts";
import { shareKey, subjectOf, type ShareRemoval } from "../shares/plan.ts";
import { CLOSED_LABELS, keyLabel, NOTICE_LABEL, noticeKey } from "./marker.ts";
import { noticeRef, type NoticeClosure, type NoticeState } from "./plan.ts";
import { readNotices } from "./read.ts";
import { closingNote, closureWhy, noticeBody, noticeTitle, type ClosingReason } from "./text.ts";

export interface WriteInput {
  gitlab: GitLabClient;
  policy: Policy;
  now: Date;
  /** The strays of this step, from the plan after the removals (not changed here: the states returned say what became of each). */
  plan: readonly ShareRemoval[];
  /** The notices this step closes for another reason than a removal. */
  closures: readonly NoticeClosure[];
  /** Every notice the run closes so, in this step or another: a duplicate found again is left to its own. */
  closing: ReadonlySet<number>;
  max: number;
  concurrency: number;
  signal?: AbortSignal;
  /** The token's user id, read by the run's token check (undefined in a step recorded before it was kept). */
  userId?: number | undefined;
  /** One line per notice opened or closed (open-notice, close-notice): restore skips them. */
  audit?: AuditSink;
  /** An attempt after one that failed or was cut off (durable steps): it may have opened notices already. */
  again?: boolean;
}

export interface Written {
  /** By shareKey: the actions whose status or notice changed. */
  states: Record<string, NoticeState>;
  closures: NoticeClosure[];
  warnings: string[];
}

/** A stray whose notice this run opens. */
export const opens = (a: ShareRemoval): boolean => a.status === "notify";
/** A stray this run removed (or found gone) whose notice is open: closed now. */
const settles = (a: ShareRemoval): boolean => a.notice?.iid !== undefined && !a.notice.closed && (a.status === "done" || a.status === "already-gone");
/** The strays whose notices an applying run writes to. */
export const writesTo = (a: ShareRemoval): boolean => opens(a) || settles(a);

export async function writeNotices(input: WriteInput): Promise<Written> {
  const { gitlab, policy, signal } = input;
  const notices = policy.gitlab!.shares.notices!;
  const states: Record<string, NoticeState> = {};
  const warnings: string[] = [];
  const close = async (iid: number, share: string, reason: ClosingReason) => {
    try {
      await closeNotice(gitlab, notices.project, iid, reason, signal, input.again ? { me: input.userId } : undefined);
      input.audit?.info("close-notice", { share, project: notices.project, iid, why: closureWhy(reason), outcome: "done" });
    } catch (err) {
      input.audit?.info("close-notice", { share, project: notices.project, iid, why: closureWhy(reason), outcome: "failed", error: errorText(err) });
      throw err;
    }
  };

  const assignee = assignees(gitlab, notices, signal);
  // An attempt again first reads what the one before opened: a POST that may have arrived is not sent again.
  const toOpen = input.plan.filter(opens);
  // Failing, nothing is opened in this attempt (one may stand already): each notice is failed, for the next run
  // to open, rather than the step, which comes after the removals (an execution failed then has no report).
  const before = input.again && toOpen.length
    ? await readNotices(gitlab, notices.project, new Set(toOpen.map(noticeKey)), input.max, signal, input.userId).catch((err: unknown) => {
        if (signal?.aborted) throw err;
        const error = `the notices an earlier attempt may have opened could not be read (${errorText(err)}): not opened, so as not to open one twice; the next run opens it`;
        for (const action of toOpen) states[shareKey(action)] = { status: "failed", notice: action.notice!, error };
        return undefined;
      })
    : undefined;
  for (const action of toOpen) {
    const standing = before?.byKey.get(noticeKey(action));
    if (standing) states[shareKey(action)] = { status: "noticed", notice: noticeRef(standing, input.now) };
  }
  const opened = await pMap(toOpen.filter((action) => states[shareKey(action)] === undefined), async (action) => {
    const key = shareKey(action);
    const dueDate = action.notice!.dueDate!;
    try {
      const assigneeIds = await assignee(action);
      const handling = strayHandling(policy, subjectOf(action).path);
      const earlier = action.notice!.earlier;
      const body = noticeBody(action, { dueDate, grace: handling.grace?.text ?? "", from: handling.from, ...(earlier && { earlier: earlier.iid }) });
      const issue = await createIssue(gitlab, notices.project, { title: noticeTitle(action), description: body, labels: [NOTICE_LABEL, keyLabel(noticeKey(action)), ...notices.labels], assigneeIds, dueDate, confidential: true }, signal);
      // The due date Warden sent, not the answer's text, and an address checked: a server's (or a proxy's) is never carried into the report unchecked.
      states[key] = { status: "noticed", notice: { iid: issue.iid, url: issueUrl(gitlab.instanceUrl, notices.project, issue), dueDate, daysLeft: action.notice!.daysLeft, ...(earlier && { earlier }) } };
      input.audit?.info("open-notice", { share: noticeKey(action), project: notices.project, iid: issue.iid, dueDate, assigneeIds, outcome: "done" });
      return action;
    } catch (err) {
      states[key] = { status: "failed", notice: action.notice!, error: `opening its notice: ${errorText(err)}` };
      input.audit?.info("open-notice", { share: noticeKey(action), project: notices.project, dueDate, outcome: "failed", error: errorText(err) });
      return undefined;
    }
  }, { concurrency: input.concurrency });

  // The notices of shares this run removed (or found gone) as they came due, or removed at once.
  const settled = input.plan.filter(settles);
  await pMap(settled, async (action) => {
    try {
      await close(action.notice!.iid!, noticeKey(action), action.status === "done" ? { kind: "removed", dueDate: action.notice!.dueDate } : { kind: "already-gone" });
      states[shareKey(action)] = { status: action.status, notice: { ...action.notice!, closed: true } };
    } catch (err) {
      warnings.push(`notice #${action.notice!.iid} of a removed share could not be closed (${errorText(err)}): the next sweep closes it`);
    }
  }, { concurrency: input.concurrency });

  // Copies: an attempt again (durable steps) starts from what the step was given.
  const closures = input.closures.map((closure) => ({ ...closure }));
  const openedHere = opened.filter((a) => a !== undefined);
  // Read again only for the shares this run opened a notice for. Failing, it costs a duplicate left open until
  // the next sweep closes it, not the run's report (with its removals made) nor a step attempted again.
  const again = openedHere.length
    ? await readNotices(gitlab, notices.project, new Set(openedHere.map(noticeKey)), input.max, signal, input.userId).catch((err: unknown) => {
        if (signal?.aborted) throw err;
        warnings.push(`the open notices could not be read again to find one another run opened for the same share (${errorText(err)}): the next sweep closes any duplicate`);
        return undefined;
      })
    : undefined;
  if (again) {
    for (const { notice, of } of again.duplicates) if (!input.closing.has(notice.iid)) closures.push({ iid: notice.iid, url: notice.url, share: notice.key, reason: { kind: "duplicate", of }, status: "planned" });
    for (const action of openedHere) {
      const standing = again.byKey.get(noticeKey(action));
      const key = shareKey(action);
      if (standing && standing.iid !== states[key]!.notice!.iid) states[key] = { status: "pending", notice: noticeRef(standing, input.now) };
    }
  }
  await pMap(closures, async (closure) => {
    try {
      await close(closure.iid, closure.share, closure.reason);
      closure.status = "done";
    } catch (err) {
      Object.assign(closure, { status: "failed", error: errorText(err) });
    }
  }, { concurrency: input.concurrency });
  return { states, closures, warnings };
}

/**
 * The close (PUT, idempotent) first, then the note that says why. The other way round, a notice GitLab
 * refuses to close every time (a proxy refusing PUT, an issue it will not change) gathered one more note
 * each run, each one notifying its assignee; this way such a notice gets none, and a note that fails
 * after the close is named as such (the notice is closed all the same, and no later run sees it again).
 * An attempt again (`again`: a durable step failed or cut off) first looks for the note among the
 * notice's newest: the one before may have added it, and a POST that may have arrived is not sent again.
 */
async function closeNotice(gitlab: GitLabClient, project: string, iid: number, reason: ClosingReason, signal?: AbortSignal, again?: { me: number | undefined }): Promise<void> {
  await updateIssue(gitlab, project, iid, { stateEvent: "close", addLabels: [reason.kind === "duplicate" ? CLOSED_LABELS.duplicate : CLOSED_LABELS.resolved] }, signal);
  const note = closingNote(reason);
  try {
    if (again && (await noted(gitlab, project, iid, note, again.me, signal))) return;
    await createIssueNote(gitlab, project, iid, note, signal);
  } catch (err) {
    throw new Error(`closed, but the note saying why could not be added: ${errorText(err)}`, { cause: err });
  }
}

/** The newest notes a notice's own is looked for among: it was added moments before, by the attempt cut off. */
const NEWEST_NOTES = 100;

/** Whether the notice's newest notes hold `body`, by the token's user (`me`; by anyone, in a step recorded before it was kept). */
async function noted(gitlab: GitLabClient, project: string, iid: number, body: string, me: number | undefined, signal?: AbortSignal): Promise<boolean> {
  for await (const note of gitlab.listIssueNotes(project, iid, { maxItems: NEWEST_NOTES, ...(signal && { signal }) })) {
    if (note.body === body && (me === undefined || note.author?.id === me)) return true;
  }
  return false;
}

/** The assignee ids of a share's notice: its adder's, looked up once per username, where the policy lets it and they exist. */
function assignees(gitlab: GitLabClient, notices: NoticesPolicy, signal?: AbortSignal): (a: ShareRemoval) => Promise<number[] | undefined> {
  const found = new Map<string, Promise<{ id: number } | undefined>>();
  return async (action) => {
    const username = action.addedBy?.username;
    if (!notices.assignAdder || !username) return undefined;
    // Not found, or not readable: the notice is opened unassigned.
    if (!found.has(username)) found.set(username, userByUsername(gitlab, username, signal).catch(() => undefined));
    const user = await found.get(username)!;
    return user && [user.id];
  };
}
