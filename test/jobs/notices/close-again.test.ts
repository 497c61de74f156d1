/**
 * A "write notices" step attempted again after its invocation died (durable steps): the closes it had
 * made are PUT again (idempotent), but the note saying why is a POST, and it was sent again: each
 * closed notice got a second closing note, each notifying its assignee. An attempt again now reads the
 * notice's newest notes first and adds the note only where Warden's own is not there yet.
 */
import { describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { issues, later, POLICY, run, sim, start } from "../../support/notices-world.ts";
import { validated } from "../../support/report.ts";
import { recordingSteps } from "../../support/steps.ts";

describe("closing notices in a step attempted again", () => {
  it("each notice closed gets one note saying why, not one an attempt", async () => {
    await start();
    await run({ apply: true });
    expect(issues()).toHaveLength(2);
    // Past the due date: the shares are removed and their notices closed, in a step that dies after its work.
    const steps = recordingSteps({ sliceMs: 10_000, perStep: 100, crash: ["write notices"] });
    const gitlab = new GitLabClient({ url: sim.url, token: "root", limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
    const report = await validated(enforce({ gitlab, policy: parsePolicy(POLICY, "warden.yaml"), apply: true, now: later(9) }, steps));
    expect(steps.crashed).toEqual(["write notices"]);
    expect(report.actions.map((a) => [a.status, a.notice?.closed])).toEqual([["done", true], ["done", true]]);
    for (const issue of issues()) {
      expect(issue.state).toBe("closed");
      expect(issue.notes.filter((note) => note.author.username === "root")).toHaveLength(1);
    }
  });
});
