/**
 * Who the token acts as. `GET /user` says `is_admin` by the user's own flag (GitLab's lib/api/users.rb):
 * with Admin Mode on, an administrator's token without the `admin_mode` scope acts as a plain user all
 * the same, seeing only what its user is a member of, and a run that took it for an administrator would
 * examine a fraction of the scope and call it whole. Only a read GitLab answers an administrator alone
 * tells: `GET /application/statistics` (counts only). It goes out beside `GET /user`, costing a request
 * but no round trip; for a token whose user is no administrator it is cancelled, so that a GitLab slow to
 * answer it holds nothing up.
 */
import type { GitLabClient } from "./client.ts";
import { isTrue } from "./encode.ts";
import type { CurrentUser } from "./types.ts";

export interface TokenUser {
  user: CurrentUser;
  /** Acting as an administrator: GET /user says the user is one, and the administrator's read was answered. */
  admin: boolean;
  auditor: boolean;
  /** The user is an administrator, but the token acts as a plain user: GitLab's answer to the administrator's read. */
  notActingAsAdmin?: string;
}

const ADMIN_READ = "GET /application/statistics";

export async function tokenUser(gitlab: GitLabClient, signal?: AbortSignal): Promise<TokenUser> {
  const unneeded = new AbortController();
  // Settled, never rejected: a refused token's error is GET /user's, and this one's is then not awaited.
  const read = gitlab.adminReadStatus(signal ? AbortSignal.any([signal, unneeded.signal]) : unneeded.signal).then(
    (status) => status,
    (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
  );
  const user = await gitlab.currentUser(signal).catch((err: unknown) => {
    unneeded.abort();
    throw err;
  });
  const auditor = isTrue(user.is_auditor);
  if (!isTrue(user.is_admin)) return (unneeded.abort(), { user, admin: false, auditor });
  const answer = await read;
  if (answer === 200) return { user, admin: true, auditor };
  signal?.throwIfAborted();
  const why = typeof answer === "number" ? `GitLab answered ${answer} to an administrator's read (${ADMIN_READ})` : `an administrator's read (${ADMIN_READ}) failed: ${answer.message}`;
  return { user, admin: false, auditor, notActingAsAdmin: why };
}
