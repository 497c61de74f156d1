/**
 * The durable Enforce past one credential rotation, as runs/run-job.ts gets a plain run past one.
 * The job holds one GitLab client for the whole execution; this one sends through the client made
 * from the secret as last read. A step that fails because GitLab answered 401 has the cached secret
 * dropped and read again (renewed()): when it holds a new token, the client is made anew and the step
 * fails with a CredentialRotated, which steps.ts tries again (with the new client). That is safe for
 * every step: a step that only reads runs again whole, and a removal step's next attempt judges each
 * share again before it sends anything (lib/jobs/shares/remove.ts), so nothing is removed twice. When the
 * token is the same, the 401 stands, and being terminal it fails the execution.
 */
import type { GitLabClient } from "../../../lib/gitlab/index.ts";
import { gitlabClient, isRefusedCredential } from "../config/clients.ts";
import { secrets, type Secrets } from "../config/secrets.ts";
import { logger } from "../lambda/logger.ts";

/** A step's 401 met with a new token in the secret: the step is worth another attempt. Never terminal. */
export class CredentialRotated extends Error {
  override name = "CredentialRotated";
}

export interface RotatingGitlab {
  /** The job's client: every call goes to the client of the token last read. */
  client(): Promise<GitLabClient>;
  /** After a step's failure: whether it was a 401 and the secret now holds another token (the client is then new). */
  renewed(err: unknown): Promise<boolean>;
}

export function rotatingGitlab(): RotatingGitlab {
  let used: Secrets | undefined;
  let current: GitLabClient | undefined;
  const forward = new Proxy({} as GitLabClient, {
    get(_, key) {
      const value: unknown = Reflect.get(current!, key);
      return typeof value === "function" ? value.bind(current) : value;
    },
  });
  return {
    async client() {
      used = await secrets.get();
      current = gitlabClient(used);
      return forward;
    },
    async renewed(err) {
      if (!isRefusedCredential(err)) return false;
      // The container must not keep a refused token for the rest of the cache's time, whatever follows.
      secrets.invalidate();
      if (!used) return false;
      const fresh = await secrets.get();
      if (fresh.gitlabToken === used.gitlabToken) return false;
      logger.warn("credential refused; the secret holds a new one: the step is tried again with it", { job: "enforce" });
      used = fresh;
      current = gitlabClient(fresh);
      return true;
    },
  };
}
