/**
 * Creating one share, made to hold up behind a flaky proxy. lib/http never repeats a POST that may have
 * reached GitLab, so an answer lost on the way (a 5xx, a connection lost after sending) is settled here
 * by reading the share: there as asked, it is done; not there (not arrived, or not committed yet), the
 * POST is sent again, and a share still not there after the last is one that "may not have been
 * created", never "not created": a late POST may yet land. Creating a share
 * is idempotent by nature (GitLab answers 409 to a second one), and a re-send's 409 is confirmed by a
 * read that finds the share at the level asked, as a 409 also means a share someone else made. A first
 * POST's 409 (made between restore's read and its POST) is read too, to say at what level it is.
 */
import { HttpError, mayHaveBeenMade, NetworkError, type GroupShare } from "../../gitlab/index.ts";
import { auditedUnder, errorText } from "../report/index.ts";
import { SHARE_OPS } from "../shares/kinds.ts";
import { count } from "../view.ts";
import { subjectOf } from "../shares/plan.ts";
import type { RestoreAction, RestoreOptions } from "./summary.ts";
import { differences } from "./view.ts";

/**
 * POSTs per share at most. A proxy's 502 before the request reaches GitLab is a blip: two more tries,
 * each after a read found nothing, get past blips, while a proxy that loses every POST fails the share
 * after three with its answer, rather than sending on for as long as the run may last.
 */
export const MAX_CREATE_ATTEMPTS = 3;

/** After a stop, one last read may say whether a POST in flight arrived; it gets this long. */
const CHECK_AFTER_STOP_MS = 5_000;

/** Creates the share of `a` and says what became of it (status, note or error), with its audit line. */
export async function create(a: RestoreAction, opts: RestoreOptions): Promise<void> {
  const lost: string[] = [];
  for (let attempt = 1; ; attempt++) {
    const outcome = await post(a, opts);
    if (outcome === "created") {
      Object.assign(a, { status: "done" }, lost.length ? { note: `${lostText(lost)}; reading again found no such share: sent again and created` } : {});
    } else if (outcome === "exists" && !lost.length) {
      await madeMeanwhile(a, opts);
    } else if (outcome === "exists") {
      // An earlier POST arrived after all, or someone else shared it meanwhile: the read tells which.
      const settled = await settle(a, opts, lost, "GitLab answered 409 (already shared) to the re-send");
      if (!settled) Object.assign(a, { status: "failed", error: `${lostText(lost)}; GitLab answered 409 (already shared) to the re-send, but reading finds no such share: shared with a group the token cannot see?` });
    } else if (outcome instanceof Error) {
      Object.assign(a, { status: "failed", error: refusal(outcome) });
    } else {
      lost.push(outcome.lost);
      if (!(await settle(a, opts, lost))) {
        // Not there: the POST did not arrive (a proxy's 502 before GitLab), or has not been committed yet (GitLab
        // still at it behind a proxy's timeout). Sending it again is safe either way: a second share is a 409.
        if (!opts.signal?.aborted && attempt < MAX_CREATE_ATTEMPTS) continue;
        // A read that finds nothing does not prove no POST will land: only "may not have been created" is known.
        const error = opts.signal?.aborted
          ? `may not have been created: ${lostText(lost)}; reading again found no such share; not sent again (stopped: ${errorText(opts.signal.reason)})`
          : `may not have been created: ${lostText(lost)}; reading again found no such share, but a POST GitLab was still at may yet land; gave up after ${count(MAX_CREATE_ATTEMPTS, "attempt")}, the most a share gets: run restore again (a share made meanwhile reads already present)`;
        Object.assign(a, { status: "failed", error });
      }
    }
    break;
  }
  const { type, status, note, error, ...removal } = a;
  auditedUnder(opts.audit, opts.policy)?.info("restore-share", { ...removal, outcome: status, note, error });
}

/** One POST: created, exists (409 already shared), a lost answer, or GitLab's refusal. */
async function post(a: RestoreAction, opts: RestoreOptions): Promise<"created" | "exists" | { lost: string } | Error> {
  const { gitlab, signal } = opts;
  const share = { groupId: a.groupId, accessLevel: a.accessLevel, expiresAt: a.expiresAt, memberRoleId: a.memberRoleId ?? null };
  try {
    return await SHARE_OPS[a.kind].create(gitlab, subjectOf(a).id, share, signal);
  } catch (err) {
    if (signal?.aborted) return { lost: `stopped while creating the share (${errorText(signal.reason)})` };
    if (mayHaveBeenMade(err)) return { lost: errorText(err) };
    return err instanceof Error ? err : new Error(String(err));
  }
}

/** The share GitLab says exists (a first POST's 409), read to say how it is: already present, whatever the read finds. */
async function madeMeanwhile(a: RestoreAction, opts: RestoreOptions): Promise<void> {
  const heard = "GitLab answered 409, already shared";
  let note: string;
  try {
    const present = await readShare(a, opts);
    const differs = present && differences(a, present);
    note = !present ? `${heard}, but reading finds no such share: shared with a group the token cannot see?` : `${heard}: made meanwhile, ${differs ? `present with ${differs}; left as it is` : "as it was removed"}`;
  } catch (err) {
    note = `${heard}: made meanwhile; reading it to compare failed (${errorText(err)})`;
  }
  Object.assign(a, { status: "already-present", note });
}

/** The share as GitLab has it now, or undefined; after a stop, the read gets CHECK_AFTER_STOP_MS. */
async function readShare(a: RestoreAction, opts: RestoreOptions): Promise<GroupShare | undefined> {
  const signal = opts.signal?.aborted ? AbortSignal.timeout(CHECK_AFTER_STOP_MS) : opts.signal;
  const subject = await SHARE_OPS[a.kind].read(opts.gitlab, subjectOf(a).id, signal);
  return subject?.shares.find((s) => s.group_id === a.groupId);
}

/**
 * Reads the share: true when that settles the action (found as asked: done; found otherwise: already
 * present, left as it is; the read failed: failed), false when the share is not there.
 */
async function settle(a: RestoreAction, opts: RestoreOptions, lost: readonly string[], heard?: string): Promise<boolean> {
  let present: GroupShare | undefined;
  try {
    present = await readShare(a, opts);
  } catch (err) {
    Object.assign(a, { status: "failed", error: `may not have been created: ${lostText(lost)}; reading it again failed too (${errorText(err)})` });
    return true;
  }
  if (!present) return false;
  const differs = differences(a, present);
  if (differs) Object.assign(a, { status: "already-present", note: `present with ${differs} after ${lostText(lost)}: made by someone else meanwhile; left as it is` });
  else Object.assign(a, { status: "done", note: `${lostText(lost)}${heard ? `; ${heard}` : ""}; reading again found the share as asked` });
  return true;
}

/** "the answer was lost (…)", or, after a re-send, the answers in order. */
function lostText(lost: readonly string[]): string {
  return lost.length === 1 ? `the answer was lost (${lost[0]})` : `the answers were lost (${lost.join("; ")})`;
}

/** GitLab's own words where it refused, e.g. "The project sharing with group is disabled". */
function refusal(err: unknown): string {
  if (err instanceof HttpError && err.serviceMessage) return `GitLab refused (${err.status}): ${err.serviceMessage}`;
  return errorText(err);
}
