/**
 * The watch job's tests on one GitLab simulator of watchWorld (test/jobs/watch/): `start` it, `begin` a
 * watch on it as `warden watch` does; every simulator started is closed after each test
 * (test/support/cleanup.ts).
 */
import { cursorFor, watchSources } from "../../lib/jobs/watch/index.ts";
import type { Policy } from "../../lib/policy/index.ts";
import { startGitLabSim, type GitLabSim, type GitLabSimOptions } from "../../sim/gitlab/index.ts";
import { client, WATCH_TOKENS, watchPolicy, watchWorld } from "./watch-world.ts";
import { afterTest } from "./cleanup.ts";

/** The simulator of the test running (a live binding: start() replaces it). */
export let sim: GitLabSim;

export async function start(opts: GitLabSimOptions = {}): Promise<void> {
  sim = afterTest.add(await startGitLabSim({ dataset: watchWorld(), tokens: WATCH_TOKENS, recordRequests: true, ...opts }));
}

/** The watch's start for this token: its sources and cursor, as `warden watch` makes them. */
export async function begin(token: string, policy: Policy = watchPolicy()) {
  const gitlab = client(sim, token);
  const { sources, statement } = await watchSources(gitlab, policy, 60_000);
  return { gitlab, policy, sources, statement, cursor: await cursorFor(gitlab, sources, undefined) };
}
