/**
 * Removing the planned shares, of every kind: bounded concurrency, idempotent, one audit line each.
 * GitLab has no conditional DELETE and minutes may pass between judging a share and removing it, so a
 * removal planned `maxPlanAgeMs` ago or longer is judged again on its subject read anew (once per
 * subject, the reads sent ahead of the removals); a share no longer stray is skipped. Each removal's
 * audit line is written as soon as its DELETE is answered (restore reads these: a run cut off later
 * loses none). A kind GitLab may answer with success without removing (a group share, without Owner)
 * has its subject read once more after its removals, and each removal answered with success gets a
 * second line then, `confirmation: true`, its outcome what became of the share ("failed" if GitLab kept
 * it). An administrator's token too: with Admin Mode on, one without the admin_mode scope acts as a plain user.
 * A saved plan (apply/) comes through here judged again in full, and removed only if still as planned.
 */
import pMap from "p-map";
import PQueue from "p-queue";
import type { GitLabClient } from "../../gitlab/index.ts";
import { isTerminal } from "../../http/index.ts";
import { accessLevelName, evaluateShare, inScope, type Policy } from "../../policy/index.ts";
import { awaitedLater } from "../awaited-later.ts";
import { errorText, stoppedMidRequest, type AuditSink } from "../report/index.ts";
import { SHARE_OPS } from "./kinds.ts";
import { auditFields, shareFields, shareInput, shareKey, subjectKey, subjectNamed, subjectOf, type ShareRemoval, type Subject } from "./plan.ts";

/** Removals in flight at once when no flag says (enforce/summary.ts says why, for its reads as for these). */
export const DEFAULT_REMOVAL_CONCURRENCY = 16;

export interface RemovalOptions {
  gitlab: GitLabClient;
  policy: Policy;
  now: Date;
  concurrency: number;
  maxPlanAgeMs: number;
  /** A saved plan's removals (warden apply): a share whose level, expiry or custom role changed since is skipped, not removed. */
  asPlanned?: boolean;
  /** When each action was judged (Date.now()). */
  judgedAt: ReadonlyMap<ShareRemoval, number>;
  signal?: AbortSignal;
  /**
   * A durable invocation's deadline (lib/jobs/steps.ts), also in `signal`: a removal it cuts short stays
   * "planned", for a later step to make, rather than "failed"; its share goes in `sent` if its DELETE was sent.
   */
  deadline?: AbortSignal;
  /** Shares whose DELETE an earlier attempt or step of this run may have sent: found gone, they are "done". */
  mayHaveSent?: ReadonlySet<string>;
  /** Filled with the shares whose DELETE this call sends. */
  sent?: Set<string>;
  /**
   * Only judge again the shares of `mayHaveSent`, sending no DELETE (the run's time limit has come): one
   * found gone is "done", one still there "failed", as its DELETE may yet be applied.
   */
  confirmOnly?: boolean;
  audit?: AuditSink;
  warnings: string[];
}

/** Whether the removals stopped (signal) before all of them were made and confirmed. */
export async function removeShares(actions: ShareRemoval[], opts: RemovalOptions): Promise<{ stopped: boolean }> {
  const { gitlab, signal } = opts;
  let stopped = false;
  // Fresh reads for the plan-age re-check, once per subject.
  const reads = new Map<string, Promise<Subject | undefined>>();
  const current = (a: ShareRemoval) => {
    const key = subjectKey(a);
    if (!reads.has(key)) reads.set(key, SHARE_OPS[a.kind].read(gitlab, subjectOf(a).id, signal));
    return reads.get(key)!;
  };
  // Actions waiting for their subject's confirming read, by subject, and how many are still to be tried.
  const unconfirmed = Map.groupBy(actions.filter((a) => SHARE_OPS[a.kind].kept), subjectKey);
  const untried = new Map([...unconfirmed].map(([key, group]) => [key, group.length]));
  // The reads' own slots: the plan-age re-reads, then the confirming reads as their subjects are done.
  const readSlots = new PQueue({ concurrency: opts.concurrency });
  const confirmations: Promise<void>[] = [];
  // Each line names the GitLab it was written on: its ids name other projects and groups elsewhere (restore refuses another's).
  const record = (a: ShareRemoval, confirmation?: true) =>
    a.status !== "planned" && opts.audit?.info(a.type, { ...auditFields(a), gitlabUrl: gitlab.instanceUrl, ...(confirmation ? { confirmation } : {}) });
  // At least that old (0: always), so a plan judged in the same millisecond still counts.
  const old = (a: ShareRemoval) => Date.now() - (opts.judgedAt.get(a) ?? 0) >= opts.maxPlanAgeMs;
  // Removals whose subject is read again afterwards go first, so those reads overlap the other removals.
  const order = actions.toSorted((a, b) => Number(!SHARE_OPS[a.kind].kept) - Number(!SHARE_OPS[b.kind].kept));
  // A failed read is the removal's to report (removeOne awaits the same promise).
  const readingAhead = order.filter(old).map((a) => readSlots.add(() => current(a).then(() => undefined, () => undefined)));

  await pMap(order, async (action) => {
    if (signal?.aborted) stopped = true;
    else if (await removeOne(action, opts, old(action), current)) stopped = true;
    record(action);
    const key = subjectKey(action);
    const left = untried.get(key);
    if (left === undefined) return;
    untried.set(key, left - 1);
    if (left > 1) return;
    const group = unconfirmed.get(key)!;
    // Awaited once the removals are done.
    confirmations.push(
      awaitedLater(
        readSlots.add(async () => {
          const answered = group.filter((a) => a.status === "done");
          const checked = await confirm(group, opts);
          if (checked === "stopped") stopped = true;
          if (checked === "read") answered.forEach((a) => record(a, true));
        }),
      ),
    );
  }, { concurrency: opts.concurrency });
  await Promise.all([...readingAhead, ...confirmations]);
  return { stopped };
}

const UNANSWERED_AT_TIME_LIMIT = "its DELETE was sent as the run's time limit came, and not answered: the share was still there when read again, but a slow DELETE is applied all the same, so it may or may not have happened; the next run converges";

/** Removes one share (unless judged again and found changed); true when the signal cut it off. */
async function removeOne(action: ShareRemoval, opts: RemovalOptions, old: boolean, current: (a: ShareRemoval) => Promise<Subject | undefined>): Promise<boolean> {
  const { gitlab, signal } = opts;
  const key = shareKey(action);
  const earlier = opts.mayHaveSent?.has(key) === true;
  try {
    if (old || earlier) Object.assign(action, judgeAgain(action, opts, await current(action)));
    // Gone after a DELETE this run sent, its answer lost with the attempt or step that sent it: removed by this run.
    if (earlier && action.status === "already-gone") action.status = "done";
    if (action.status !== "planned") return false;
    if (opts.confirmOnly) return (Object.assign(action, { status: "failed", error: UNANSWERED_AT_TIME_LIMIT, lasting: false }), false);
    opts.sent?.add(key);
    const outcome = await SHARE_OPS[action.kind].remove(gitlab, subjectOf(action).id, action.groupId, signal);
    action.status = outcome === "removed" ? "done" : "already-gone";
    return false;
  } catch (err) {
    // Cut short by the invocation's deadline: left for the next step (enforce/removal-steps.ts), not failed.
    if (opts.deadline?.aborted) return true;
    Object.assign(action, failedRemoval(err, signal, "removing the share"));
    return signal?.aborted ?? false;
  }
}

/**
 * A removal failed by `err`, with whether another attempt would meet the same failure (`lasting`),
 * recorded here where the error is known (lib/http's isTerminal: a 4xx refusal but 408 and 429), so that
 * nobody downstream reads it back out of the error's text, which quotes what the server chose to say.
 */
export function failedRemoval(err: unknown, signal: AbortSignal | undefined, doing: string): Pick<ShareRemoval, "status" | "error" | "lasting"> {
  if (signal?.aborted) return { status: "failed", error: stoppedMidRequest(signal, doing), lasting: false };
  return { status: "failed", error: errorText(err), lasting: isTerminal(err) };
}

/**
 * The share as it is now: still stray, its current fields (so the report and the audit line, which
 * restore reads, hold what was really removed); otherwise what became of it.
 */
export function judgeAgain(action: ShareRemoval, opts: Pick<RemovalOptions, "policy" | "now" | "asPlanned">, subject: Subject | undefined): Partial<ShareRemoval> {
  const { kind } = action;
  if (!subject) throw new Error(`${kind} not found (deleted, or the token can no longer see it): nothing removed`);
  // Out of scope, it is skipped by its id alone, before anything of it is told: an edited plan's ids would
  // otherwise have the administrator's token name projects outside the scope, and say how they are shared.
  if (!inScope(opts.policy, subject.path)) {
    const what = kind === "project" ? "the project" : "the sharing group";
    return { status: "skipped", error: `changed since it was planned (${what} #${subjectOf(action).id} is not in the policy's scope now: moved out since, or named by an id outside it); not removed` };
  }
  // Named as GitLab calls the subject and, where the share is there, its invited group now: a plan file's names
  // are whoever edited it last's, and a row not removed would otherwise say their group is "now allowed".
  const share = subject.shares.find((s) => s.group_id === action.groupId);
  if (!share) return { ...subjectNamed(kind, subject.path), status: "already-gone" };
  const named = { ...subjectNamed(kind, subject.path), group: share.group_full_path };
  const changed = opts.asPlanned ? changedSincePlanned(action, shareFields(share, action.reason)) : undefined;
  if (changed) return { ...named, status: "skipped", error: `changed since it was planned (${changed}); not removed` };
  const verdict = evaluateShare(opts.policy, shareInput(kind, subject, share), opts.now);
  if (verdict.kind === "stray") return { ...named, ...shareFields(share, verdict.reason) };
  const why = verdict.kind === "out-of-scope" ? `the ${kind} is no longer in scope` : `now ${verdict.kind} by ${verdict.rule}`;
  return { ...named, status: "skipped", error: `changed since it was planned (${why}); not removed` };
}

/** What differs between the share as planned and as it is now (what a reviewer saw is what is removed), if anything. */
function changedSincePlanned(planned: ShareRemoval, now: ReturnType<typeof shareFields>): string | undefined {
  if (now.accessLevel !== planned.accessLevel) {
    return `access level ${now.accessLevel > planned.accessLevel ? "raised" : "lowered"} from ${accessLevelName(planned.accessLevel)} to ${accessLevelName(now.accessLevel)}`;
  }
  if (now.expiresAt !== planned.expiresAt) return `expiry changed from ${planned.expiresAt ?? "none"} to ${now.expiresAt ?? "none"}`;
  if (now.memberRoleId !== planned.memberRoleId) return `custom role changed from ${planned.memberRoleId ?? "none"} to ${now.memberRoleId ?? "none"}`;
  return undefined;
}

/**
 * Reads the subject of these actions again and fails each removal GitLab answered with success but
 * did not make: "read", or "unread" (a failed read) or "stopped" (by the signal), the removals staying
 * "done", unconfirmed, with a warning.
 */
async function confirm(actions: ShareRemoval[], opts: RemovalOptions): Promise<"read" | "unread" | "stopped"> {
  const done = actions.filter((a) => a.status === "done");
  const first = done[0];
  if (!first) return "read";
  const ops = SHARE_OPS[first.kind];
  const { id, path } = subjectOf(first);
  const kept = ops.kept?.(path);
  try {
    if (opts.signal?.aborted) throw opts.signal.reason;
    const now = await ops.read(opts.gitlab, id, opts.signal);
    const still = new Set(now?.shares.map((s) => s.group_id));
    for (const action of done.filter((a) => still.has(a.groupId))) Object.assign(action, { status: "failed", error: kept, lasting: true });
    return "read";
  } catch (err) {
    opts.warnings.push(`${done.length} removals of shares of ${path} answered success but could not be checked (${errorText(err)}): GitLab keeps a share it was asked to remove when the token lacks Owner; the next run finds any still there`);
    return opts.signal?.aborted ? "stopped" : "unread";
  }
}
