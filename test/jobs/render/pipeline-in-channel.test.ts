/**
 * `/warden pipeline --apply` whose pipeline GitLab may have started, or did start, without the run reporting
 * it `created`: the POST's answer was lost (`unknown`: check the project's pipelines), or the pipeline ran
 * another commit than the one checked and was cancelled, or cancelling it failed and it runs still, with
 * Warden's identity (`failed`, a pipelineId). Each answer went only to the requester (ephemeral), while every
 * other applied change is posted to the channel, where the people watching Warden's changes read them: a
 * pipeline running an unchecked commit was told to one person, in a message only they can see.
 */
import { describe, expect, it } from "vitest";
import { renderSlack, type PipelineReport } from "../../../lib/jobs/index.ts";
import { runRecord } from "../../support/report.ts";

const stats = { requests: 12, retries: 1, rateLimited: 0, pages: 3, durationMs: 1500 };

function applied(action: Partial<PipelineReport["actions"][number]>): PipelineReport {
  return {
    ...runRecord("pipeline", false),
    summary: { allowed: true, rule: "allow[0]" },
    actions: [{ type: "create-pipeline", project: "acme/platform/api", ref: "main", refKind: "branch", commit: "1a2b3c4d5e6f", variables: [], status: "failed", ...action }],
    stats,
    warnings: [],
  };
}

describe("Slack rendering of a pipeline --apply that may have started one", () => {
  it.each([
    ["GitLab's answer to the POST lost (unknown)", applied({ status: "unknown", error: "unknown — check the project's pipelines before retrying (socket hang up)" })],
    ["started on another commit, then cancelled", applied({ pipelineId: 7, pipelineStatus: "canceled", pipelineCommit: "9f9f9f9f", webUrl: "https://g/x/-/pipelines/7", error: "the pipeline runs commit 9f9f9f9f, not 1a2b3c4d that was checked (main moved in between): cancelled it" })],
    ["started on another commit, its cancel failed: running", applied({ pipelineId: 7, pipelineStatus: "running", pipelineCommit: "9f9f9f9f", webUrl: "https://g/x/-/pipelines/7", error: "the pipeline runs commit 9f9f9f9f, …, and cancelling it failed: 500: cancel it at https://g/x/-/pipelines/7" })],
  ])("%s goes to the channel", (_what, report) => {
    expect(renderSlack(report).response_type).toBe("in_channel");
  });

  it("a pipeline GitLab refused to start (failed, none started) still goes only to the requester", () => {
    expect(renderSlack(applied({ error: "400 Bad Request: reference not found" })).response_type).toBe("ephemeral");
  });
});
