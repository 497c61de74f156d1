/**
 * Where a watch reads audit events, and what that costs. An administrator (self-managed) reads the
 * instance's events, one request a poll. Anyone else reads each scope group's and each of its
 * subgroups' own events (a group's listing holds exactly that group's): group shares are recorded on
 * the sharing group, so those are all seen; a project share is recorded on the *invited* group, seen
 * only when that group is one of ours; a project's creation or transfer is recorded on the project,
 * which no group listing holds (docs/api-contract.md, "Audit events"). The scheduled sweep finds
 * the rest. The cost is stated before the first poll, and kept within the policy's limit: where the
 * scope has more groups than the limit allows sources, the oldest are watched (the scope groups
 * first) and the statement says the newer ones are left to the sweep. Oldest, not first by name:
 * anyone who may create subgroups must not be able to push the groups watched out, nor turn the
 * watch off by creating one more.
 */
import { HttpError, tokenUser, type AuditSource, type GitLabClient } from "../../gitlab/index.ts";
import type { Policy } from "../../policy/index.ts";
import { ScopeError, scopeRoots } from "../enforce/index.ts";
import { errorText } from "../report/index.ts";
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
  /** At least this many requests an hour at the interval (one a source a poll; more pages when more events arrive). */
  requestsPerHour: number;
  /** One line for the operator: what is read, and what it costs. */
  statement: string;
  /**
   * Some of the scope's groups are not watched (the statement says which): more than the limit allows sources
   * (the newer ones), or a scope group GitLab failed to look up (until the sources are looked up again).
   */
  partial?: true;
}

/** A watch that cannot run here (no audit events, a cost above the limit): nothing was changed. */
export class WatchError extends Error {
  override name = "WatchError";
}

const TOO_COSTLY = "nothing was read or changed (poll less often with a longer interval, narrow gitlab.scope, use an administrator's token on self-managed, or raise the limit)";

/** The sources for this token and policy, refused when their cost passes gitlab.watch.maxRequestsPerHour. */
export async function watchSources(gitlab: GitLabClient, policy: Policy, intervalMs: number, signal?: AbortSignal): Promise<WatchSources> {
  if (policy.gitlab === undefined) throw new ScopeError("the policy has no gitlab section: the watch has nothing to govern (add gitlab.shares, and gitlab.scope to limit it)");
  const { admin } = await tokenUser(gitlab, signal);
  const polls = Math.ceil(3_600_000 / intervalMs);
  const limit = policy.gitlab.watch.maxRequestsPerHour;
  // The groups are listed only as far as the limit allows sources: a scope of thousands of subgroups
  // costs a page or two, not a listing of them all (which the Lambda would repeat every hour).
  const most = Math.floor(limit / polls);
  if (!admin && most === 0) throw new WatchError(`reading even one group's audit events every ${intervalMs / 1000}s is more than gitlab.watch.maxRequestsPerHour (${limit}) allows; ${TOO_COSTLY}`);
  const { sources, more, unresolved = [] } = admin ? { sources: [{ key: "instance", source: { kind: "instance" } as const, label: "the instance" }], more: false } : await groupSources(gitlab, policy, most, signal);
  const requestsPerHour = sources.length * polls;
  const what = admin ? "the instance's audit events (GET /audit_events)" : `the audit events of ${count(sources.length, "group")} (each scope group and its subgroups${more ? ", the oldest" : ""})`;
  const statement = `watching ${what} every ${intervalMs / 1000}s: at least ${requestsPerHour} requests an hour (gitlab.watch.maxRequestsPerHour: ${limit})`;
  if (requestsPerHour > limit) {
    throw new WatchError(`${statement}: more than the limit; ${TOO_COSTLY}`);
  }
  // One scope group GitLab fails to look up must not stop the watch of the others (lib/jobs/enforce's scopeRoots).
  const unread = unresolved.map(({ path, error }) => `scope group ${path} could not be looked up (${error}): its events are not read until the sources are looked up again, and its shares are left to the scheduled sweep`);
  if (!more && !unread.length) return { sources, requestsPerHour, statement };
  if (!more) return { sources, requestsPerHour, statement: [statement, ...unread].join("; "), partial: true };
  return {
    sources,
    requestsPerHour,
    statement: [`${statement}. The scope has more groups than the limit allows: the newer ones are not watched, and their shares are left to the scheduled sweep (poll less often, narrow gitlab.scope, use an administrator's token on self-managed, or raise the limit)`, ...unread].join("; "),
    partial: true,
  };
}

/**
 * Each scope group and all below it, up to `most`: the scope groups first, then the oldest of their
 * subgroups (the lowest ids), across every scope group, not one after another: subgroups made in the
 * first, however many, must not push the second's older ones out. `more` when some were left out.
 * Their own events are what a non-administrator can list.
 */
async function groupSources(gitlab: GitLabClient, policy: Policy, most: number, signal?: AbortSignal): Promise<{ sources: WatchSource[]; more: boolean; unresolved: { path: string; error: string }[] }> {
  const unresolved: { path: string; error: string }[] = [];
  const roots = await scopeRoots(gitlab, policy, signal, (path, err) => unresolved.push({ path, error: errorText(err) }));
  if (roots === undefined) {
    throw new WatchError("the policy has no gitlab.scope: without an administrator's token (the instance's events) the watch reads each scope group's own events, so it needs scope groups; nothing was read or changed");
  }
  const groups = new Map<number, string>(roots.slice(0, most).map((root) => [root.id, root.path]));
  let more = roots.length > most;
  const room = most - groups.size;
  // Each scope group's oldest `room` (listed by id, oldest first), then the oldest `room` of them all.
  const below = new Map<number, string>();
  for (const root of roots.slice(0, most)) {
    let taken = 0;
    listing: for await (const page of gitlab.listDescendantGroups(root.id, { signal }, true).pages()) {
      for (const group of page.items) {
        if (groups.has(group.id) || below.has(group.id)) continue;
        if (taken++ >= room) {
          more = true;
          break listing;
        }
        below.set(group.id, group.full_path);
      }
    }
  }
  const oldest = [...below].sort(([a], [b]) => a - b);
  if (oldest.length > room) more = true;
  for (const [id, path] of oldest.slice(0, room)) groups.set(id, path);
  return { sources: [...groups].map(([id, path]) => ({ key: `group:${id}`, source: { kind: "group", id }, label: path })), more, unresolved };
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
