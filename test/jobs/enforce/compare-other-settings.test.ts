/**
 * A merge request to the policy that changes what Warden does outside the shares' fates (who may start
 * pipelines with Warden's identity, on refs anyone may push: pipelines.allow with unprotected: true; who may
 * apply from Slack: chatops.slack.applyUsers; the guard) was summed up by the comparison (the merge request
 * note, the policy-change job's exit code) as changing nothing: "Merging this policy change would change no
 * share's fate", exit 0, a green job (the second inputs review's finding). It names those settings now, for
 * the reviewer to read in the diff, and exits 2.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, exitCode } from "../../../lib/jobs/index.ts";
import { renderMarkdown } from "../../../lib/jobs/render/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { startGitLabSim, type GitLabSim } from "../../../sim/gitlab/index.ts";
import { compareWorld, PROPOSED } from "../../support/compare-world.ts";

const COMMIT = "0123456789abcdef0123456789abcdef01234567";
const fromGitLab = (text: string) => parsePolicy(text, "base", { source: "gitlab", project: "security/policies", path: "warden.yaml", ref: "main", commitId: COMMIT });

let sim: GitLabSim;
beforeAll(async () => {
  sim = await startGitLabSim({ dataset: compareWorld() });
});
afterAll(() => sim.close());

const BASE = `${PROPOSED}chatops:
  slack:
    users: ["U0REVIEWER", "U0ATTACKER"]
    applyUsers: ["U0REVIEWER"]
`;

/** The base with no share rule touched: only who may start pipelines and who may apply from chat. */
const WIDENED = `${PROPOSED.replace("  guard: { unmatchedRules: warn }\n", "  guard: { unmatchedRules: warn, maxRemovals: 1000000000000 }\n")}pipelines:
  allow:
    - project: "**"
      refs: ["*", "**"]
      unprotected: true
chatops:
  slack:
    users: ["U0REVIEWER", "U0ATTACKER"]
    applyUsers: ["U0REVIEWER", "U0ATTACKER"]
`;

describe("a policy change outside the shares' fates", () => {
  it("is not summed up as changing nothing: the note names the changed sections, and the job does not exit 0", async () => {
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
    const report = await enforce({ gitlab, policy: parsePolicy(WIDENED, "warden.yaml"), compareWith: fromGitLab(BASE) });
    expect(report.comparison?.otherChanges).toEqual(["chatops.slack.applyUsers", "gitlab.guard.maxRemovals", "pipelines"]);
    const note = renderMarkdown(report);
    expect(note).toContain("### Merging this policy change would change no share\\'s fate\\, and changes chatops\\.slack\\.applyUsers\\, gitlab\\.guard\\.maxRemovals\\, pipelines\\: review them in the diff\\.");
    expect(exitCode(report)).toBe(2);
    // The same policy compared with itself changes nothing, and says so.
    const same = await enforce({ gitlab, policy: parsePolicy(BASE, "warden.yaml"), compareWith: fromGitLab(BASE) });
    expect(same.comparison?.otherChanges).toBeUndefined();
    expect(exitCode(same)).toBe(0);
  });
});
