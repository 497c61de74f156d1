/**
 * An invocation after the first replays the recorded steps, and between them reads what is never
 * recorded (functions/shared/durable/job.ts): the jobs' secret (runs/lifecycle.ts), and, with
 * WARDEN_POLICY_PROJECT, the policy again at the recorded commit. When such a read failed, lifecycle.ts
 * ran the run's end as the step "finish" where the history holds "lease" or "begin": the SDK failed the
 * execution as non-deterministic there and then, so "finish" never ran (the durable review's finding):
 * no `job failed` line and no RunFailed metric, and the lease was never given back, every later run
 * refused for the execution's whole time limit (24 h by default). Now the policy's read again is tried
 * three times (a GitLab restarting, a dropped connection), and a start that fails all the same has its
 * end run outside the steps: its `job failed` line, its metrics, and the lease given back.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { EnforceReport } from "../../../lib/jobs/index.ts";
import type { GitLabSim } from "../../../sim/gitlab/index.ts";
import { groupSharesPolicy } from "../../support/policies.ts";
import { removals, twinSims } from "../../support/steps.ts";
import { durableWorld, timedRunner } from "../../support/durable-world.ts";
import { captureLogs, stubAwsEnv, writePolicy } from "../../support/lambda.ts";

const BUCKET = "warden-runs";
const world = durableWorld({ skipTime: false, s3: true });
const sims: GitLabSim[] = [];
/** What each invocation has (cut.test.ts): its deadline comes 1 s in. */
const REMAINING_MS = 4_000;

beforeEach(async () => {
  stubAwsEnv({ AWS_ENDPOINT_URL_SECRETS_MANAGER: world.secretsManager.url, AWS_ENDPOINT_URL_S3: world.s3.url, WARDEN_RUN_HISTORY_BUCKET: BUCKET, WARDEN_REPORT_ONLY: "false", ...(await world.dynamo.freshClaimsEnv()) });
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(sims.map((sim) => sim.close()));
  sims.length = 0;
});

/** An organisation whose first project share's removal is held off past an invocation (cut.test.ts): its batch goes on in the next invocation, after some removals. */
async function cutWhileRemoving() {
  const { stepped: sim, strays } = await twinSims(sims, { projects: 1_500, seed: 21, tree: { groups: 30, maxDepth: 3 } });
  sim.addFaults({ kind: "429", headers: "retry-after", seconds: 8, route: "DELETE /projects/:id/share/:group_id", times: 1 });
  const state = { removing: false };
  sim.beforeAnswer(({ route }) => void (state.removing ||= route.startsWith("DELETE ")));
  vi.stubEnv("GITLAB_URL", sim.url);
  vi.stubEnv("WARDEN_SLICE_SECONDS", "0.3");
  return { sim, strays, state };
}

/** The Enforce handler as a container loads it (each call a new container: its modules, caches and clients anew). */
async function container() {
  vi.resetModules();
  return (await import("../../../functions/enforce.ts")).handler;
}

/** After the execution: is the job's lease free, so that the next scheduled run may run? */
async function leaseHolder(): Promise<string | undefined> {
  const { dynamoClaims } = await import("../../../functions/shared/state/claims.ts");
  return (await dynamoClaims().holder("lease:enforce"))?.holder;
}

function outcome(execution: { getStatus(): string | undefined; getError(): { errorMessage?: string | undefined } | undefined }, lines: Record<string, unknown>[]) {
  const stored = [...world.s3.objects.keys()].filter((k) => k.startsWith(`${BUCKET}/runs/enforce/`));
  return {
    status: execution.getStatus(),
    error: execution.getStatus() === "FAILED" ? execution.getError()?.errorMessage?.slice(0, 120) : undefined,
    // The end every run owes: its `job finished` or `job failed` line (and so its metrics), and for one that removed, its report stored.
    ended: lines.filter((l) => l["message"] === "job finished" || l["message"] === "job failed").map((l) => l["message"]),
    storedForRestore: stored.length,
  };
}

describe("a durable execution whose later invocation fails to read its settings, after it removed shares", () => {
  it("a repository policy's read again meets two dropped connections: the execution still ends with its end, and gives its lease back", async () => {
    const { sim, state } = await cutWhileRemoving();
    const repo = sim.dataset.projects.find((p) => !p.path_with_namespace.startsWith("acme/"))!;
    sim.repositories.commit(repo, { "warden.yaml": groupSharesPolicy() });
    vi.stubEnv("WARDEN_POLICY_PROJECT", repo.path_with_namespace);
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const handler = await container();
    // GitLab restarts as the invocation after the first removals begins: its next two connections are dropped.
    let armed = false;
    const firstOfArmed: string[] = [];
    sim.beforeAnswer(({ route }) => void (armed && firstOfArmed.length < 2 && firstOfArmed.push(route)));
    const { runner } = timedRunner<EnforceReport>(async (event: never, context: never) => {
      if (state.removing && !armed) {
        armed = true;
        sim.addFaults({ kind: "drop", method: "GET", times: 2 });
      }
      return handler(event, context);
    }, REMAINING_MS);
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const logs = captureLogs();
    const execution = await runner.run({ payload: { dryRun: false } });
    const lines = logs.lines();
    logs.restore();

    expect(armed).toBe(true);
    // The dropped requests were the policy's read again (its project, by id), the invocation's first requests to GitLab.
    expect(firstOfArmed).toEqual(["GET /projects/:id", "GET /projects/:id"]);
    expect(removals(sim), "shares were removed before it").toBeGreaterThan(0);
    expect(outcome(execution, lines)).toEqual({ status: "SUCCEEDED", error: undefined, ended: ["job finished"], storedForRestore: 1 });
    // Whatever became of the execution, it is over: the next run must not be refused for the next 24 hours.
    expect(await leaseHolder(), "the ended execution still holds the lease").toBeUndefined();
  }, 120_000);

  it("a new container's read of the jobs' secret fails: the execution fails with its end (its job failed line), not as non-deterministic, and gives its lease back", async () => {
    const { state } = await cutWhileRemoving();
    vi.stubEnv("WARDEN_POLICY", await writePolicy(groupSharesPolicy()));
    let handler = await container();
    let cold = false;
    const { runner } = timedRunner<EnforceReport>(async (event: never, context: never) => {
      if (state.removing && !cold) {
        // Lambda starts the next invocation in a new container, and Secrets Manager cannot be reached from it (a
        // throttle or an outage would do the same, once the SDK's own retries are spent).
        cold = true;
        vi.stubEnv("AWS_ENDPOINT_URL_SECRETS_MANAGER", "http://127.0.0.1:9");
        handler = await container();
        try {
          return await handler(event, context);
        } finally {
          vi.stubEnv("AWS_ENDPOINT_URL_SECRETS_MANAGER", world.secretsManager.url);
          handler = await container();
        }
      }
      return handler(event, context);
    }, REMAINING_MS);
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const logs = captureLogs();
    const execution = await runner.run({ payload: { dryRun: false } });
    const lines = logs.lines();
    logs.restore();

    expect(cold).toBe(true);
    // Its removals are in its audit lines (restore reads those); no report was made to store.
    expect(outcome(execution, lines)).toEqual({ status: "FAILED", error: expect.stringMatching(/^reading secret arn:aws:secretsmanager:\S+ failed: /), ended: ["job failed"], storedForRestore: 0 });
    expect(await leaseHolder(), "the ended execution still holds the lease").toBeUndefined();
  }, 120_000);
});
