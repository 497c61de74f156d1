/**
 * The restore job: re-create the shares an applying enforce run removed (a policy typo, a missing
 * allow rule), each with its access level, expiry and custom role. It reads every project and sharing
 * group concerned first, so a share that is back already is left as it is and one whose expiry has
 * passed is not brought back; then (only when asked, and only if the guard holds) it creates the rest.
 * A share POST is not repeated once it may have reached GitLab (lib/http): an answer lost on the way
 * back is settled by reading the share again.
 */
import pMap from "p-map";
import { HttpError, NetworkError, type GitLabClient, type GroupShare } from "../../gitlab/index.ts";
import { maxRemovals } from "../../policy/index.ts";
import { auditedUnder, countStatus, errorText, jobStats } from "../report.ts";
import { count } from "../view.ts";
import { SHARE_OPS } from "../shares/kinds.ts";
import { subjectKey, subjectOf, type RemovedShare } from "../shares/plan.ts";
import { DEFAULT_MAX_RESTORES, type RestoreAction, type RestoreOptions, type RestoreReport } from "./summary.ts";
import { differences } from "./view.ts";
import { makeReport } from "../envelope.ts";


/** The action type of a restore, by kind; everything else about the kinds is shares/. */
const TYPES = { project: "restore-share", group: "restore-group-share" } as const;

/** Where the guard's limit came from, for the warning when it trips. */
function guardName(opts: RestoreOptions, limit: number): string {
  if (opts.maxRestores !== undefined) return `--max-restores ${limit}`;
  return opts.policy ? `gitlab.guard.maxRemovals (${limit})` : `the default guard (${limit}, without a policy; --max-restores N sets another)`;
}

/** A read of a project or group: its shares, or why it could not be read. */
type Read = { shares: readonly GroupShare[] } | { error: string };

/** After a stop, one last read may say whether a POST in flight arrived; it gets this long. */
const CHECK_AFTER_STOP_MS = 5_000;

export async function restore(opts: RestoreOptions): Promise<RestoreReport> {
  const { gitlab, signal } = opts;
  const startedAt = Date.now();
  const today = (opts.now ?? new Date()).toISOString().slice(0, 10);
  const limit = opts.maxRestores ?? (opts.policy ? maxRemovals(opts.policy) : DEFAULT_MAX_RESTORES);
  const concurrency = opts.concurrency ?? 4;
  const warnings = [...opts.input.notes];
  const actions: RestoreAction[] = opts.input.removals.map((r) => ({ type: TYPES[r.kind], ...r, status: "planned" }));

  // Each project and sharing group is read once, however many of its shares were removed.
  const targets = [...new Map(actions.map((a) => [subjectKey(a), a] as const))];
  const reads = new Map<string, Read>();
  await pMap(targets, async ([key, a]) => {
    const current = signal?.aborted ? undefined : await read(gitlab, a, signal);
    if (current) reads.set(key, current);
  }, { concurrency });
  let complete = reads.size === targets.length;
  if (!complete) warnings.push(`stopped while reading after ${reads.size} of ${targets.length} projects and groups (${errorText(signal?.reason)}): nothing was restored`);
  for (const a of actions) {
    const current = reads.get(subjectKey(a));
    if (current) judge(a, current, today);
  }

  const restores = countStatus(actions, "planned");
  const tripped = complete && restores > limit;
  if (tripped) {
    warnings.push(`guard: ${count(restores, "restore")}, more than ${guardName(opts, limit)}; nothing was restored`);
  } else if (opts.apply && complete) {
    const planned = actions.filter((a) => a.status === "planned");
    await pMap(planned, (a) => (signal?.aborted ? undefined : create(a, opts)), { concurrency });
    const left = countStatus(planned, "planned");
    if (left) {
      complete = false;
      warnings.push(`stopped before ${left} of ${count(restores, "restore")} (${errorText(signal?.reason)}): run restore again to finish`);
    }
  }

  return makeReport({ job: "restore", dryRun: !opts.apply, policy: opts.policy, gitlab: gitlab.http, startedAt }, {
    summary: {
      restores,
      restored: countStatus(actions, "done"),
      alreadyPresent: countStatus(actions, "already-present"),
      skipped: countStatus(actions, "skipped"),
      failed: countStatus(actions, "failed"),
      maxRestores: limit,
      guard: tripped ? "tripped" : "ok",
      complete,
    },
    actions,
    stats: jobStats([gitlab.http], startedAt),
    warnings,
  });
}

/** Undefined when stopped. A refused token (401) fails the run: every other call would be refused alike. */
async function read(gitlab: GitLabClient, a: RemovedShare, signal?: AbortSignal): Promise<Read | undefined> {
  const { id, path } = subjectOf(a);
  try {
    const subject = await SHARE_OPS[a.kind].read(gitlab, id, signal);
    return subject ? { shares: subject.shares } : { error: `${a.kind} ${path} (#${id}) not found (deleted, or the token cannot see it): not restored` };
  } catch (err) {
    if (signal?.aborted) return undefined;
    if (err instanceof HttpError && err.status === 401) throw err;
    return { error: `reading ${path} failed: ${errorText(err)}` };
  }
}

/** Decides from the current shares what the restore of one removal is. */
function judge(a: RestoreAction, current: Read, today: string): void {
  if ("error" in current) {
    Object.assign(a, { status: "failed", error: current.error });
    return;
  }
  const present = current.shares.find((s) => s.group_id === a.groupId);
  if (present) {
    const differs = differences(a, present);
    a.status = "already-present";
    a.note = differs ? `present with ${differs}; left as it is` : "present as it was removed";
  } else if (a.expiresAt !== null && a.expiresAt < today) {
    // "Before today" in UTC: on an instance west of UTC it may still be the day before, and the share still valid.
    a.status = "skipped";
    a.note = "its expiry has passed: GitLab would delete it again that night";
  }
}


/**
 * One POST. A refusal (400 sharing locked, 403, 404 gone, 409 the project's own group or an ancestor,
 * …) fails with GitLab's reason; 409 "already shared" means it is there after all. An
 * answer that may hide a share created (a 5xx, a connection lost after sending, a stop mid-request)
 * is settled by reading the share again, never by sending the POST again.
 */
async function create(a: RestoreAction, opts: RestoreOptions): Promise<void> {
  const { gitlab, signal } = opts;
  const share = { groupId: a.groupId, accessLevel: a.accessLevel, expiresAt: a.expiresAt, memberRoleId: a.memberRoleId ?? null };
  try {
    const outcome = await SHARE_OPS[a.kind].create(gitlab, subjectOf(a).id, share, signal);
    Object.assign(a, outcome === "created" ? { status: "done" } : { status: "already-present", note: "GitLab answered 409, already shared: re-created meanwhile, or shared with a group the token cannot see" });
  } catch (err) {
    const lost = signal?.aborted ? `stopped while creating the share (${errorText(signal.reason)})` : mayHaveArrived(err) ? errorText(err) : undefined;
    if (lost === undefined) Object.assign(a, { status: "failed", error: refusal(err) });
    else await settle(a, opts, lost);
  }
  const { type, status, note, error, ...removal } = a;
  auditedUnder(opts.audit, opts.policy)?.info("restore-share", { ...removal, outcome: status, note, error });
}

/** Reads the share again after a lost answer (after a stop, with a few seconds of its own). */
async function settle(a: RestoreAction, opts: RestoreOptions, lost: string): Promise<void> {
  const signal = opts.signal?.aborted ? AbortSignal.timeout(CHECK_AFTER_STOP_MS) : opts.signal;
  try {
    const subject = await SHARE_OPS[a.kind].read(opts.gitlab, subjectOf(a).id, signal);
    if (subject?.shares.some((s) => s.group_id === a.groupId)) Object.assign(a, { status: "done", note: `the answer was lost (${lost}); reading again found the share` });
    else Object.assign(a, { status: "failed", error: `may not have been created: ${lost}; reading again found no such share` });
  } catch (err) {
    Object.assign(a, { status: "failed", error: `may not have been created: ${lost}; reading it again failed too (${errorText(err)})` });
  }
}

function mayHaveArrived(err: unknown): boolean {
  return (err instanceof NetworkError && err.mayHaveReachedServer) || (err instanceof HttpError && err.status >= 500);
}

/** GitLab's own words where it refused, e.g. "The project sharing with group is disabled". */
function refusal(err: unknown): string {
  if (err instanceof HttpError && err.serviceMessage) return `GitLab refused (${err.status}): ${err.serviceMessage}`;
  return errorText(err);
}
