/**
 * The deployment's policy read from a GitLab repository at each run (WARDEN_POLICY_PROJECT). Loaded by
 * policy.ts only when that is set: chat-ops, which must answer Slack within 3 seconds, then loads the
 * GitLab client, and otherwise never does.
 */
import { loadGitLabPolicy, type GitLabPolicy, type GitLabPolicyLocation, type PolicySettingNames } from "../../../lib/config/policy-source.ts";
import type { GitLabClient } from "../../../lib/gitlab/index.ts";
import { errorText } from "../../../lib/jobs/report/index.ts";
import type { Policy } from "../../../lib/policy/index.ts";
import { gitlabClient } from "./clients.ts";
import { secrets } from "./secrets.ts";

export const REPOSITORY_POLICY_NAMES: PolicySettingNames = {
  project: "WARDEN_POLICY_PROJECT (set at sst deploy)",
  path: "WARDEN_POLICY_PATH (set at sst deploy)",
  ref: "WARDEN_POLICY_REF (set at sst deploy)",
  token: "the secret's gitlabToken",
  allowUnprotected: "WARDEN_POLICY_ALLOW_UNPROTECTED_REF=1 (at sst deploy)",
};

/**
 * A reader that keeps the last policy read in the container: each read is one file request (the
 * answer carries content and ids together), parsed again only when the file's blob id changed.
 * Concurrent callers share one read; a failed read is never replaced by the last good one. A caller
 * whose signal (its run's deadline) aborts stops waiting, failed with an error saying so, and leaves the
 * read to the others: the read is cut only when no caller waits for it any more (nobody would get its answer).
 */
export function repositoryPolicy(at: GitLabPolicyLocation, client: () => Promise<GitLabClient> = async () => gitlabClient(await secrets.get())): (signal?: AbortSignal) => Promise<Policy> {
  let last: GitLabPolicy | undefined;
  let reading: SharedRead | undefined;
  const read = async (signal: AbortSignal): Promise<Policy> => {
    const gitlab = await client();
    try {
      last = await loadGitLabPolicy(gitlab, at, { names: REPOSITORY_POLICY_NAMES, previous: last, signal });
      pinned = last.policy.source.source === "gitlab" ? last.policy.source.projectId : undefined;
      return last.policy;
    } finally {
      sent += gitlab.http.stats.totals.requests;
    }
  };
  const start = (): SharedRead => {
    const cut = new AbortController();
    return { policy: read(cut.signal), waiting: 0, cut };
  };
  const cutOff = (reason: unknown) =>
    new Error(`the policy's read from ${at.project} was cut off (${errorText(reason)}): GitLab did not answer it in time, or asked to wait longer (Retry-After) than the run had; the next run reads it again`, { cause: reason });
  return async (signal) => {
    if (signal?.aborted) throw cutOff(signal.reason);
    const shared = (reading ??= start());
    shared.waiting++;
    try {
      return await until(shared.policy, signal, cutOff);
    } finally {
      // The last caller to stop waiting ends the read: the next one reads anew. A read that has not
      // settled is cut (its caller's deadline passed), as nobody would get its answer.
      if (--shared.waiting === 0) {
        reading = undefined;
        shared.cut.abort(signal?.reason);
      }
    }
  };
}

/** One read in flight, and how many callers wait for it. */
interface SharedRead {
  policy: Promise<Policy>;
  waiting: number;
  cut: AbortController;
}

/** `promise`, or `cutOff` of the signal's reason once it aborts: the promise itself goes on. */
function until<T>(promise: Promise<T>, signal: AbortSignal | undefined, cutOff: (reason: unknown) => Error): Promise<T> {
  if (!signal) return promise;
  let stop = () => {};
  const aborted = new Promise<never>((_, reject) => {
    stop = () => reject(cutOff(signal.reason));
    signal.addEventListener("abort", stop, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => signal.removeEventListener("abort", stop));
}

/** The GitLab requests this container's policy reads have sent: the event runs count theirs against their hour's budget. */
let sent = 0;
export const policyReadRequests = (): number => sent;

/** The policy project's id this container's first read found: a read of it by path elsewhere (an exemption request's) refuses another project at that path since. */
let pinned: number | undefined;
export const pinnedPolicyProject = (): number | undefined => pinned;

/**
 * The policy at one commit, from the project the execution's first read found (`projectId`): a durable
 * execution's later invocations read what its first one did, and refuse a project created at the path since.
 */
export async function policyAtCommit(at: GitLabPolicyLocation & { ref: string }, projectId: number | undefined, signal?: AbortSignal): Promise<Policy> {
  const failing = "the execution stops here, whatever its earlier invocations removed stays removed (their audit lines name each removal)";
  return (await loadGitLabPolicy(gitlabClient(await secrets.get()), at, { names: REPOSITORY_POLICY_NAMES, failing, ...(projectId === undefined ? {} : { projectId }), ...(signal && { signal }) })).policy;
}
