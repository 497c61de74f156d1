/**
 * The watch's retries (lib/jobs/watch/retries.ts) are kept per subject. One share GitLab refuses for good
 * (a 403) took its whole subject out of them: another share of the same project whose removal failed in a
 * way that may pass (a 500) was then neither tried again nor said to be passed, and waited for the sweep.
 */
import { describe, expect, it } from "vitest";
import { pollOnce } from "../../../lib/jobs/watch/index.ts";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { begin, sim, start } from "../../support/watch-sim.ts";
import { allShares, IDS, share } from "../../support/watch-world.ts";

const deleteOf = (project: number, group: number) => `/api/v4/projects/${project}/share/${group}`;

describe("a share refused for good does not cancel its subject's retries", () => {
  it("a transient failure on a project with another, refused, share is tried again at the next poll", async () => {
    await start({
      faults: [
        { kind: "status", status: 403, method: "DELETE", path: deleteOf(IDS.app, IDS.partners), times: 1_000 },
        { kind: "status", status: 500, method: "DELETE", path: deleteOf(IDS.app, IDS.other), times: 1 },
      ],
    });
    const w = await begin("root");
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.other);
    // No retry within the request: the watch's own retry is what is tested (as test/jobs/watch/watch.test.ts does).
    const gitlab = new GitLabClient({ url: sim.url, token: "root", limiters: new RateLimiterRegistry(), retry: { maxRetries: 0 } });
    const first = await pollOnce({ ...w, gitlab, apply: true });
    const failed = first.report!.actions.filter((a) => a.status === "failed");
    expect(failed.map((a) => [a.groupId, a.lasting])).toEqual(
      expect.arrayContaining([
        [IDS.partners, true],
        [IDS.other, false],
      ]),
    );
    // The failure that may pass waits for another try; the refused share is reported.
    expect(first.cursor.retries).toEqual({ [`project:${IDS.app}`]: 1 });
    expect(first.report!.warnings).toContainEqual(expect.stringMatching(/^not tried again: the share of project \S+ with group partners/));

    const second = await pollOnce({ ...w, gitlab, cursor: first.cursor, apply: true });
    expect(second.report?.actions.find((a) => a.groupId === IDS.other)?.status).toBe("done");
    expect(allShares(sim)).toEqual([`p${IDS.app}:${IDS.partners}`]);
  });
});
