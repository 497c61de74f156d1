/**
 * The restore job: re-create the shares an applying enforce run removed (a policy typo, a missing
 * allow rule), each with its access level, expiry and custom role. It reads every project and sharing
 * group concerned first, so a share that is back already is left as it is and one whose expiry has
 * passed is not brought back. Each share left is judged by the current policy (policy-check.ts): one the
 * policy would remove again is skipped unless includeStray asks for it. Then (only when asked, and only
 * if the guard holds) it creates the rest (create.ts: a lost answer is settled by a read, a POST that
 * did not arrive is sent again).
 */
import pMap from "p-map";
import { HttpError, type GitLabClient } from "../../gitlab/index.ts";
import { inScope, maxRemovals, type Policy } from "../../policy/index.ts";
import { countStatus, errorText, jobStats } from "../report/index.ts";
import { count } from "../view.ts";
import { SHARE_OPS } from "../shares/kinds.ts";
import { subjectKey, subjectNamed, subjectOf, type RemovedShare, type Subject } from "../shares/plan.ts";
import { create } from "./create.ts";
import { RestoreInputError } from "./input.ts";
import { allows, judgeByPolicy } from "./policy-check.ts";
import type { RestoreAction, RestoreOptions, RestoreReport } from "./summary.ts";
import { differences } from "./view.ts";
import { makeReport } from "../envelope.ts";


/** The action type of a restore, by kind; everything else about the kinds is shares/. */
const TYPES = { project: "restore-share", group: "restore-group-share" } as const;

/** Where the guard's limit came from, for the warning when it trips. */
function guardName(opts: RestoreOptions, limit: number): string {
  return opts.maxRestores !== undefined ? `--max-restores ${limit}` : `gitlab.guard.maxRemovals (${limit})`;
}

/** A read of a project or group: its shares, or why it could not be read. */
type Read = { subject: Subject } | { error: string };

export async function restore(opts: RestoreOptions): Promise<RestoreReport> {
  const { gitlab, signal } = opts;
  // Its ids name other projects and groups on another instance: refused before any request, as a plan is.
  const { madeOn, source } = opts.input;
  // Each share is judged by the policy's gitlab rules (policy-check.ts): without them (an n8n policy given by mistake) there is nothing to judge by.
  if (opts.policy.gitlab === undefined) throw new RestoreInputError(`the policy has no gitlab section, by which each share restored is judged: give the policy that governs these shares; nothing was restored`);
  if (madeOn !== undefined && madeOn !== gitlab.instanceUrl) {
    throw new RestoreInputError(`${source} was made on ${madeOn}, not on GITLAB_URL's ${gitlab.instanceUrl}: set GITLAB_URL to the instance the run removed shares on; nothing was restored`);
  }
  const startedAt = Date.now();
  const today = (opts.now ?? new Date()).toISOString().slice(0, 10);
  const limit = opts.maxRestores ?? maxRemovals(opts.policy);
  const concurrency = opts.concurrency ?? 4;
  const warnings = [...opts.input.notes];
  const actions: RestoreAction[] = opts.input.removals.map((r) => ({ type: TYPES[r.kind], ...r, status: "planned" }));

  // The guard is judged on the input, before any read, as a plan's is: an input naming a thousand
  // made-up ids must not cost a thousand reads with an administrator's token (and what is restored is
  // never more than the input lists).
  const tripped = actions.length > limit;
  if (tripped) warnings.push(`guard: the input lists ${count(actions.length, "removal")}, more than ${guardName(opts, limit)}; nothing was read or restored`);
  // Each project and sharing group is read once, however many of its shares were removed.
  const targets = tripped ? [] : [...new Map(actions.map((a) => [subjectKey(a), a] as const))];
  const reads = new Map<string, Read>();
  await pMap(targets, async ([key, a]) => {
    const current = signal?.aborted ? undefined : await read(gitlab, a, signal);
    if (current) reads.set(key, current);
  }, { concurrency });
  let complete = !tripped && reads.size === targets.length;
  if (!tripped && !complete) warnings.push(`stopped while reading after ${reads.size} of ${targets.length} projects and groups (${errorText(signal?.reason)}): nothing was restored`);
  for (const a of actions) {
    const current = reads.get(subjectKey(a));
    if (current) judge(a, current, today, opts.policy);
  }
  if (complete) {
    const subjects = new Map([...reads].flatMap(([key, r]) => ("subject" in r ? [[key, r.subject] as const] : [])));
    complete = await judgeByPolicy(actions.filter((a) => a.status === "planned"), subjects, opts);
    if (!complete) warnings.push(`stopped while reading the invited groups (${errorText(signal?.reason)}): nothing was restored`);
  }
  const notAllowed = actions.filter((a) => a.policy && !allows(a.policy)).length;
  // Outside the scope, --include-stray does not re-create them either: no run would ever remove them again.
  const outside = actions.filter((a) => a.policy?.verdict === "out-of-scope").length;
  if (outside) warnings.push(`${count(outside, "share")} outside the policy's scope not restored, even with --include-stray: no run would ever remove ${outside === 1 ? "it" : "them"} again`);
  const exemptOnly = actions.filter((a) => a.policy?.verdict === "exempt" && a.policy.unallowed !== undefined).length;
  if (exemptOnly) warnings.push(exemptOnlyWarning(exemptOnly, opts));
  if (notAllowed > outside + exemptOnly) warnings.push(notAllowedWarning(notAllowed - outside - exemptOnly, opts));

  const restores = countStatus(actions, "planned");
  if (opts.apply && complete) {
    const planned = actions.filter((a) => a.status === "planned");
    await pMap(planned, (a) => (signal?.aborted ? undefined : create(a, opts)), { concurrency });
    const left = countStatus(planned, "planned");
    if (left) {
      complete = false;
      warnings.push(`stopped before ${left} of ${count(restores, "restore")} (${errorText(signal?.reason)}): run restore again to finish`);
    }
  }

  return makeReport({ job: "restore", dryRun: !opts.apply, policy: opts.policy, gitlab, startedAt }, {
    summary: {
      from: opts.input.source,
      restores,
      restored: countStatus(actions, "done"),
      alreadyPresent: countStatus(actions, "already-present"),
      skipped: countStatus(actions, "skipped"),
      failed: countStatus(actions, "failed"),
      notAllowed,
      includeStray: opts.includeStray === true,
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
    return subject ? { subject } : { error: `${a.kind} ${path} (#${id}) not found (deleted, or the token cannot see it): not restored` };
  } catch (err) {
    if (signal?.aborted) return undefined;
    if (err instanceof HttpError && err.status === 401) throw err;
    return { error: `reading ${path} failed: ${errorText(err)}` };
  }
}

/** Decides from the current shares what the restore of one removal is. */
function judge(a: RestoreAction, current: Read, today: string, policy: Policy): void {
  if ("error" in current) {
    Object.assign(a, { status: "failed", error: current.error });
    return;
  }
  // Outside the scope now (moved out since, or an input naming any id): neither where it is nor how it is
  // shared is told, as GitLab would not tell whoever reads the report (a console invoker, a Slack channel).
  if (!inScope(policy, current.subject.path)) {
    const reason = `${a.kind === "project" ? "the project" : "the sharing group"} #${subjectOf(a).id} is not in the policy's scope now (moved out since, or named by an id outside it)`;
    Object.assign(a, { status: "skipped", policy: { verdict: "out-of-scope", reason }, note: `the policy does not allow it (${reason}): not restored, even with --include-stray, as no run would ever remove it again` });
    return;
  }
  // The report names the project or group as GitLab calls it now, not as the input does.
  Object.assign(a, subjectNamed(a.kind, current.subject.path));
  const present = current.subject.shares.find((s) => s.group_id === a.groupId);
  if (present) {
    const differs = differences(a, present);
    // And the share present by its invited group as GitLab calls it: what a reviewer reads is what is there.
    a.group = present.group_full_path;
    a.status = "already-present";
    a.note = differs ? `present with ${differs}; left as it is` : "present as it was removed";
  } else if (a.expiresAt !== null && a.expiresAt < today) {
    // "Before today" in UTC: on an instance west of UTC it may still be the day before, and the share still valid.
    a.status = "skipped";
    a.note = "its expiry has passed: GitLab would delete it again that night";
  }
}


/** What the run says of the shares the policy does not allow: the policy must change first. */
function exemptOnlyWarning(n: number, opts: RestoreOptions): string {
  const shares = count(n, "share");
  if (opts.includeStray) return `includeStray: ${shares} only an exemption of their subject's every share keeps, which no allow rule allows, ${opts.apply ? "re-created" : "to re-create"}; no run removes them while the exemption lasts`;
  return `${shares} only an exemption of their subject's every share keeps, which no allow rule allows: not restored (skipped); allow them, or name their groups in the exemption's sharedWith, then restore again (--include-stray re-creates them anyway)`;
}

function notAllowedWarning(n: number, opts: RestoreOptions): string {
  const shares = count(n, "share");
  if (opts.includeStray) return `includeStray: ${shares} the current policy does not allow ${opts.apply ? "re-created" : "to re-create"}; a later run removes them again (as gitlab.shares.onStray says) unless the policy allows them first`;
  return `${shares} the current policy does not allow: not restored (skipped). Change the policy first, then restore again; --include-stray ("includeStray": true from the console) re-creates them anyway, until a later run removes them again`;
}
