/**
 * An answer to the pipeline POST that says it succeeded (2xx) but cannot be read: a gateway or sign-in
 * proxy that passed the POST to GitLab, which made the pipeline, then replaced the answer with a page of
 * its own (the pipeline review, third pass). It was reported `failed`, which invites running the command
 * again, a second pipeline; a 2xx is GitLab saying it did it, so the start is `unknown` (check before
 * retrying), as a lost answer or a 5xx is (lib/http/errors.ts mayHaveBeenMade).
 *
 * JSON that is no pipeline (`null`, `[]`, a gateway's `{"status":"ok"}`) is the same case: it crashed the
 * job (reading `.id` of null) or reported `failed` with a false story of a moved ref and a cancel of
 * pipeline undefined; lib/gitlab's createPipeline now checks the answer's shape (review http7).
 *
 * The simulator answers JSON only (its `rewrite` fault edits JSON), so the suite's reverse proxy in front
 * of it (test/support/spec.ts startProxy) passes the POST on and replaces the answer's body.
 */
import { describe, expect, it } from "vitest";
import { exitCode, runPipeline } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { pipelineWorld } from "../../support/pipeline-world.ts";
import { validated } from "../../support/report.ts";
import { afterTest } from "../../support/cleanup.ts";
import { startProxy, type ProxyAnswer } from "../../support/spec.ts";

const POLICY = parsePolicy(`version: 1\npipelines:\n  allow:\n    - project: "acme/platform/**"\n      refs: ["main"]\n`, "test.yaml");

const world = pipelineWorld();

/** A reverse proxy to the simulator that forwards everything, and answers the pipeline POST, once GitLab has made it, with `replace`. */
async function proxy(replace: ProxyAnswer) {
  const front = await startProxy({
    target: world.sim.url,
    answer: (upstream, target, method) => (method === "POST" && /\/pipeline$/.test(new URL(target, "http://x").pathname) && upstream.status < 300 ? replace : undefined),
  });
  return afterTest.add(front);
}

describe("pipeline: a 2xx answer to the pipeline POST that is not the pipeline's JSON", () => {
  it.each([
    ["an HTML page (a gateway's or a sign-in proxy's)", { status: 201, contentType: "text/html", body: "<html><body>OK</body></html>" }],
    ["plain text", { status: 200, contentType: "text/plain", body: "accepted" }],
  ])("with %s, the pipeline GitLab made is reported unknown (check before retrying), not failed", async (_what, replace) => {
    const front = await proxy(replace);
    const report = await validated(runPipeline({ gitlab: world.gitlab(front.url), policy: POLICY, project: world.platform.path_with_namespace, ref: "main", variables: [], apply: true }));
    // GitLab made it: one pipeline, one POST.
    expect(world.sim.pipelines).toHaveLength(1);
    expect(world.sim.counters.byRoute["POST /projects/:id/pipeline"]).toBe(1);
    const [action] = report.actions;
    expect(action, "a 2xx is GitLab saying it started the pipeline; 'failed' tells the reader to run the command again, a second pipeline").toMatchObject({
      status: "unknown",
      error: expect.stringMatching(/^unknown — check the project's pipelines/),
    });
    expect(exitCode(report)).toBe(1);
  });
});

describe("pipeline: a 2xx JSON answer to the pipeline POST that is no pipeline", () => {
  it.each([["null"], ["[]"], ['"ok"'], ['{"status":"ok"}']])("answered 201 %s: the run reports the start as unknown (GitLab made it), not a crash and not a cancel of pipeline undefined", async (body) => {
    const front = await proxy({ status: 201, contentType: "application/json", body });
    const outcome = await runPipeline({ gitlab: world.gitlab(front.url), policy: POLICY, project: world.platform.path_with_namespace, ref: "main", variables: [], apply: true }).then(
      (report) => ({ action: report.actions[0] as unknown, error: undefined }),
      (error: unknown) => ({ action: undefined, error: String(error) }),
    );
    expect(world.sim.pipelines).toHaveLength(1);
    expect(outcome.error, "the job itself does not throw").toBeUndefined();
    expect(outcome.action).toMatchObject({ status: "unknown", error: expect.stringMatching(/^unknown — check the project's pipelines/) });
  });
});
