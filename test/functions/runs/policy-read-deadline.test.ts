/**
 * Every function whose run reads a repository policy through the lifecycle (functions/shared/runs/lifecycle.ts)
 * gives that read its invocation's deadline: a GitLab (or a proxy) answering it 429 with a 10-minute
 * Retry-After fails the run at the deadline, as any failed run ends (its `job failed` line, its RunFailed
 * metric, the error thrown on), not at Lambda's timeout with none of them. The chat Worker's own test is
 * test/functions/worker-repository-policy.test.ts.
 */
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { SubjectWorkerEvent } from "../../../functions/shared/runs/job-request.ts";
import { compareWorld, POLICY_PROJECT } from "../../support/compare-world.ts";
import { emfRecords } from "../../support/emf.ts";
import { captureLogs, lambdaContext, SECRETS } from "../../support/lambda.ts";
import { lambdaWorld } from "../../support/lambda-world.ts";
import { standardPolicy } from "../../support/policies.ts";

const PATH = "policies/warden.yaml";
const world = lambdaWorld({
  dynamo: true,
  gitlab: () => ({ dataset: compareWorld(), tokens: { [SECRETS.gitlabToken]: { admin: true } } }),
  env: () => ({ WARDEN_REPORT_ONLY: "false", WARDEN_POLICY: undefined, WARDEN_POLICY_PROJECT: POLICY_PROJECT, WARDEN_POLICY_PATH: PATH, POWERTOOLS_LOG_LEVEL: "INFO", POWERTOOLS_METRICS_DISABLED: "false" }),
});
beforeEach(() => {
  const repo = world.gitlab.dataset.projects.find((p) => p.path_with_namespace === POLICY_PROJECT)!;
  world.gitlab.repositories.commit(repo, { [PATH]: standardPolicy() });
});

const subject: SubjectWorkerEvent = { kind: "subject", subject: { kind: "project", id: 10 }, events: [{ id: "1", name: "project_group_link_created" }], correlationId: "req-events-1:project:10" };

// Each function as its trigger invokes it: the schedule, a subject of GitLab's events.
const FUNCTIONS = [
  ["Enforce, invoked plainly", "enforce", () => import("../../../functions/enforce.ts"), { source: "schedule" }],
  ["Workflows", "workflows", () => import("../../../functions/workflows.ts"), { source: "schedule" }],
  ["Watch", "enforce", () => import("../../../functions/watch.ts"), { source: "schedule" }],
  ["EventsWorker's subject run", "enforce", () => import("../../../functions/worker.ts"), subject],
] as const;

describe("a repository policy's read GitLab holds off (429, Retry-After: 600) is cut at the invocation's deadline", () => {
  it.each(FUNCTIONS)("%s: the run fails at the deadline, with its `job failed` line and metric", async (_name, job, load, event) => {
    world.gitlab.addFaults({ kind: "429", headers: "retry-after", seconds: 600, method: "GET", times: 100 });
    vi.resetModules();
    const { handler } = await load();
    const logs = captureLogs();
    // 11 s left: the deadline (deadline.ts) fires after its 1 s floor, 10 s kept for the run's end.
    const outcome = await (handler as (e: unknown, c: unknown) => Promise<unknown>)(event, lambdaContext({ remainingMs: 11_000 })).then(
      () => "returned",
      (err: unknown) => String(err),
    );
    const lines = logs.lines();
    logs.restore();
    // Before: middy's TimeoutError at 11 s, as Lambda would end it, with no line and no metric.
    expect(outcome).toContain(`the policy's read from ${POLICY_PROJECT} was cut off (the Lambda times out in 10 s)`);
    expect(lines).toContainEqual(expect.objectContaining({ message: "job failed", job, error: expect.stringContaining("was cut off") as string }));
    expect(emfRecords(lines)).toEqual([expect.objectContaining({ RunFailed: 1 })]);
  }, 20_000);
});
