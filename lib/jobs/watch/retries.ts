/**
 * What the watch does with a removal that failed. The cursor always moves past the events handled,
 * so one share the token cannot remove never holds back the shares made after it. A failure that will
 * not change (GitLab answered, and not with a 5xx, 408 or 429: a 403 where the token is not Maintainer,
 * a group share kept without Owner) is reported once, in the batch that met it. A failure that may
 * pass (a 5xx, a timeout, a 429, a connection lost, the run cut off) has its subject enforced again at
 * the next polls, MAX_ATTEMPTS in all, then is reported and passed. A subject GitLab failed to read
 * (the run left it out, its report's unreadTargets), or a group whose detail it failed to answer (the
 * run went on without it, its report's unexamined), is judged the same way. The subjects waiting are few
 * (MAX_WAITING, kept in the cursor); past that, the scheduled sweep has them.
 */
import type { EnforceReport } from "../enforce/summary.ts";
import { FAILED_STATUSES } from "../report/index.ts";
import type { ShareRemoval } from "../shares/plan.ts";

export const MAX_ATTEMPTS = 3;
export const MAX_WAITING = 100;

/**
 * Whether a failed removal is one another try would meet again, as recorded where it failed
 * (shares/remove.ts), never read back out of its error's text: that quotes what the server chose to
 * say. A report from an earlier Warden has no `lasting` (a durable removal step checkpointed before an
 * upgrade): its failure is taken as one that may pass. That costs at most MAX_ATTEMPTS - 1 more tries of
 * a share truly refused, while the opposite guess would pass a share that could still be removed.
 */
export function lasting(action: Pick<ShareRemoval, "lasting">): boolean {
  return action.lasting === true;
}

export function subjectOfRemoval(action: ShareRemoval): string {
  return action.kind === "project" ? `project:${action.projectId}` : `group:${action.sharedGroupId}`;
}

/**
 * The retries after a batch's run on `subjects` (those of its events and those retried): each subject
 * with a failure that may pass (or every subject, when the run did not finish: `cutOff`, its signal
 * ended it) spends an attempt; every other subject of `before` is done with. Returns the map for the
 * cursor and the warnings that report what is passed.
 */
export function retriesAfter(run: EnforceReport, subjects: readonly string[], before: Readonly<Record<string, number>>, cutOff: boolean): { retries: Record<string, number>; warnings: string[] } {
  const failed = run.actions.filter((a) => FAILED_STATUSES.has(a.status));
  const refused = failed.filter(lasting);
  const again = new Set(failed.filter((a) => !lasting(a)).map(subjectOfRemoval));
  // A subject GitLab failed to read was left out of the run, a group whose detail it failed to answer was not
  // examined (the rest of the batch went on either way): read again, as a removal would be.
  const unexamined = run.unexamined ?? [];
  const unread = [...(run.unreadTargets ?? []), ...unexamined.map((p) => ({ target: `${p.kind === "project" ? "project" : "group"}:${p.id}`, error: p.error, lasting: p.lasting }))];
  for (const u of unread) if (!u.lasting) again.add(u.target);
  // A run cut off (its signal, a deadline) tries every subject again, though parts of it failed before the
  // cut (their names say nothing of the subjects it did not reach); one incomplete only for the parts it names, those parts.
  if (!run.summary.complete && run.summary.guard !== "tripped" && (cutOff || !run.summary.unexamined)) for (const s of subjects) again.add(s);
  // A share refused for good takes its subject out only where nothing else of it is left to try: no other
  // share's failure that may pass, none the run did not reach (still planned), no read that may pass.
  const open = new Set([...run.actions.filter((a) => !lasting(a) && (FAILED_STATUSES.has(a.status) || a.status === "planned")).map(subjectOfRemoval), ...unread.filter((u) => !u.lasting).map((u) => u.target)]);
  for (const a of refused) if (!open.has(subjectOfRemoval(a))) again.delete(subjectOfRemoval(a));
  for (const u of unread) if (u.lasting) again.delete(u.target);
  const warnings = refused.map((a) => `not tried again: the share of ${describe(a)} (${a.error}); remove it by hand, or give the token the role it needs`);
  for (const u of unread) if (u.lasting) warnings.push(`not tried again: ${u.target} could not be read (${u.error}); the scheduled sweep (warden enforce) examines it`);
  const spent = attemptSpent(again, before);
  return { retries: spent.retries, warnings: [...warnings, ...spent.warnings] };
}

/**
 * The retries after a batch whose run failed as a whole (GitLab failed on a part the run cannot leave
 * out): each of its subjects spends an attempt, as in a run cut off, so the failure is met at most
 * MAX_ATTEMPTS times and then passed to the sweep, instead of holding the watch where it is.
 */
export function retriesAfterFailure(subjects: readonly string[], before: Readonly<Record<string, number>>): { retries: Record<string, number>; warnings: string[] } {
  return attemptSpent(new Set(subjects), before);
}

/** One more attempt of each subject in `again`: those with attempts left wait (up to MAX_WAITING), the rest are passed. */
function attemptSpent(again: ReadonlySet<string>, before: Readonly<Record<string, number>>): { retries: Record<string, number>; warnings: string[] } {
  const warnings: string[] = [];
  const retries: Record<string, number> = {};
  const passed: string[] = [];
  for (const subject of again) {
    const attempts = (before[subject] ?? 0) + 1;
    if (attempts >= MAX_ATTEMPTS || Object.keys(retries).length >= MAX_WAITING) passed.push(`${subject} (${attempts} attempt(s))`);
    else retries[subject] = attempts;
  }
  if (passed.length > 0) warnings.push(`not tried again after failures that may pass: ${passed.join(", ")}; the scheduled sweep (warden enforce) finds any share still there`);
  const waiting = Object.keys(retries).filter((s) => again.has(s));
  if (waiting.length > 0) warnings.push(`tried again at the next poll (a failure that may pass, or the run did not finish): ${waiting.map((s) => `${s} (attempt ${retries[s]! + 1} of ${MAX_ATTEMPTS})`).join(", ")}`);
  return { retries, warnings };
}

function describe(a: ShareRemoval): string {
  return a.kind === "project" ? `project ${a.project} with group ${a.group}` : `group ${a.sharedGroup} with group ${a.group}`;
}
