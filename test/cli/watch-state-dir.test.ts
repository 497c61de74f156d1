/**
 * `warden watch --state FILE` in a directory that does not exist (a typo, a CI cache path not created):
 * fileCursorStore (bin/cli/watch-state.ts) read it as "no file yet" (ENOENT) and the watch started; the
 * first cursor write failed, which the poll loop took for a failed poll and tried again, 10 polls in a
 * row, each sending GitLab its requests, before it exited 1 (a hostile review's finding). Now it is
 * refused at once, before any request, naming the path and the fix, as `--out` does for its directory.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { WATCH_TOKENS, watchPolicyText, watchWorld } from "../support/watch-world.ts";

let sim: GitLabSim;
afterEach(() => sim?.close());

describe("warden watch --state in a directory that does not exist", () => {
  it("is refused before any request, naming the path", async () => {
    sim = await startGitLabSim({ dataset: watchWorld(), tokens: WATCH_TOKENS });
    const state = join(mkdtempSync(join(tmpdir(), "warden-watch-")), "no-such-dir", "watch.json");
    const env = { GITLAB_URL: sim.url, GITLAB_TOKEN: "root", WARDEN_POLICY: policyFile(watchPolicyText()) };
    const run = await warden(["watch", "--interval", "1s", "--state", state], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(state);
    expect(run.stderr).toMatch(/cannot take the file \(ENOENT\): create it, or give another --state/);
    expect(sim.counters.requests, `stderr: ${run.stderr.trim()}`).toBe(0);
  }, 15_000);
});
