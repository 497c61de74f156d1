/**
 * Where a watch reads audit events, and what that costs. An administrator (self-managed) reads the
 * instance's events, one request a poll. Anyone else reads each scope group's and each of its
 * subgroups' own events (a group's listing holds exactly that group's): group shares are recorded on
 * the sharing group, so those are all seen; a project share is recorded on the *invited* group, seen
 * only when that group is one of ours; a project's creation or transfer is recorded on the project,
 * which no group listing holds (docs/api-contract.md, "Audit events"). The scheduled sweep finds
 * the rest. The cost is stated before the first poll, and refused above the policy's limit.
 */
import { HttpError, isTrue, type AuditSource, type GitLabClient } from "../../gitlab/index.ts";
import type { Policy } from "../../policy/index.ts";
import { ScopeError, scopeRoots } from "../enforce/index.ts";
import { count } from "../view.ts";

/** One listing the watch reads each poll; `key` names its cursor. */
export interface WatchSource {
  key: string;
  source: AuditSource;
  /** For messages: "acme/mobile", or "the instance". */
  label: string;
}

export interface WatchSources {
  sources: WatchSource[];
  /** At least this many requests an hour at the interval (one a source a poll; more pages when more than 100 events arrive). */
  requestsPerHour: number;
  /** One line for the operator: what is read, and what it costs. */
  statement: string;
}

/** A watch that cannot run here (no audit events, a cost above the limit): nothing was changed. */
export class WatchError extends Error {
  override name = "WatchError";
}

const TOO_COSTLY = "nothing was read or changed (poll less often with a longer interval, narrow gitlab.scope, use an administrator's token on self-managed, or raise the limit)";

/** The sources for this token and policy, refused when their cost passes gitlab.watch.maxRequestsPerHour. */
export async function watchSources(gitlab: GitLabClient, policy: Policy, intervalMs: number, signal?: AbortSignal): Promise<WatchSources> {
  if (policy.gitlab === undefined) throw new ScopeError("the policy has no gitlab section: the watch has nothing to govern (add gitlab.shares, and gitlab.scope to limit it)");
  const user = await gitlab.currentUser(signal);
  const polls = Math.ceil(3_600_000 / intervalMs);
  const limit = policy.gitlab.watch.maxRequestsPerHour;
  // The groups are listed only as far as the limit allows sources: a scope of thousands of subgroups is
  // refused after a page or two, not after listing them all (which the Lambda would repeat every poll).
  const most = Math.floor(limit / polls);
  const sources = isTrue(user.is_admin) ? [{ key: "instance", source: { kind: "instance" } as const, label: "the instance" }] : await groupSources(gitlab, policy, most, signal);
  if (sources === "too many") {
    throw new WatchError(
      `watching the audit events of more than ${count(most, "group")} (each scope group and its subgroups) to read every ${intervalMs / 1000}s: more than gitlab.watch.maxRequestsPerHour (${limit}) allows; ${TOO_COSTLY}`,
    );
  }
  const requestsPerHour = sources.length * polls;
  const what = isTrue(user.is_admin) ? "the instance's audit events (GET /audit_events)" : `the audit events of ${count(sources.length, "group")} (each scope group and its subgroups)`;
  const statement = `watching ${what} every ${intervalMs / 1000}s: at least ${requestsPerHour} requests an hour (gitlab.watch.maxRequestsPerHour: ${limit})`;
  if (requestsPerHour > limit) {
    throw new WatchError(`${statement}: more than the limit; ${TOO_COSTLY}`);
  }
  return { sources, requestsPerHour, statement };
}

/** Each scope group and all below it: their own events are what a non-administrator can list. "too many": the listing stopped past `most` with more to come. */
async function groupSources(gitlab: GitLabClient, policy: Policy, most: number, signal?: AbortSignal): Promise<WatchSource[] | "too many"> {
  const roots = await scopeRoots(gitlab, policy, signal);
  if (roots === undefined) {
    throw new WatchError("the policy has no gitlab.scope: without an administrator's token (the instance's events) the watch reads each scope group's own events, so it needs scope groups; nothing was read or changed");
  }
  const groups = new Map<number, string>();
  for (const [i, root] of roots.entries()) {
    groups.set(root.id, root.path);
    const listing = gitlab.listDescendantGroups(root.id, { signal }).pages();
    for await (const page of listing) {
      for (const group of page.items) groups.set(group.id, group.full_path);
      // Past what the limit allows with more to list: the cost is known to be too high without the rest.
      if (groups.size > most && (page.checkpoint.next !== null || i < roots.length - 1)) return "too many";
    }
  }
  return [...groups].map(([id, path]) => ({ key: `group:${id}`, source: { kind: "group", id }, label: path }));
}

/** A 403 or 404 from an audit event route: the tier has none, or the token may not read them. Other errors pass. */
export function auditRefusal(err: unknown, source: WatchSource): never {
  if (err instanceof HttpError && (err.status === 403 || err.status === 404)) {
    const who = source.source.kind === "instance" ? "an administrator's token (self-managed)" : `a token with Owner of ${source.label}`;
    throw new WatchError(
      `${err.message}: the watch needs GitLab's audit events, which GitLab Free does not have (it answers 403 or 404), on Premium or Ultimate and ${who}; ` +
        "nothing was changed. Without them only the scheduled sweep (warden enforce) finds stray shares",
      { cause: err },
    );
  }
  throw err;
}
