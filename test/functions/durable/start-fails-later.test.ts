/**
 * An invocation after the first replays the recorded steps, and between them reads what is never
 * recorded (functions/shared/durable/job.ts): the jobs' secret (runs/lifecycle.ts), and, with
 * WARDEN_POLICY_PROJECT, the policy again at the recorded commit. When such a read failed, lifecycle.ts
 * ran the run's end as the step "finish" where the history holds "lease" or "begin": the SDK failed the
 * execution as non-deterministic there and then, so "finish" never ran (the durable review's finding):
 * no `job failed` line and no RunFailed metric, and the lease was never given back, every later run
 * refused for the execution's whole time limit (24 h by default). Now the policy's read again is tried
 * three times (a GitLab restarting, a dropped connection), so is the secret's (Secrets Manager
 * throttled), and a start that fails all the same has its end run outside the steps: its `job failed`
 * line, its metrics, and the lease given back. Its removals are in the earlier invocations' checkpoints,
 * which its start cannot read: it has no report to store, and says so where the ReportNotStored alarm
 * sees it (restore latest would take the run before it).
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
/** What a new invocation has, in a new container: enough for the secret's reads again and the run's end. */
const COLD_MS = 60_000;

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

/** Lambda's context for an invocation with `ms` left from now. */
function withRemaining(context: never, ms: number): never {
  const started = Date.now();
  return { ...(context as object), getRemainingTimeInMillis: () => Math.max(0, started + ms - Date.now()) } as never;
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
    // GitLab restarts as the invocation after the first removals begins: its next two connections are dropped. That invocation has a new one's whole time (coldAfterRemovals): the reads again wait within it.
    const { sim, execution, lines, firstOfArmed } = await policyReadAgainMeets({ kind: "drop", method: "GET", times: 2 }, COLD_MS);

    // The dropped requests were the policy's read again (its project, by id), the invocation's first requests to GitLab.
    expect(firstOfArmed).toEqual(["GET /projects/:id", "GET /projects/:id"]);
    expect(removals(sim), "shares were removed before it").toBeGreaterThan(0);
    expect(outcome(execution, lines)).toEqual({ status: "SUCCEEDED", error: undefined, ended: ["job finished"], storedForRestore: 1 });
    // Whatever became of the execution, it is over: the next run must not be refused for the next 24 hours.
    expect(await leaseHolder(), "the ended execution still holds the lease").toBeUndefined();
  }, 120_000);

  it("a repository policy's read again held off past the invocation's deadline (Retry-After: 10 min, within what GitLab asks): the invocation ends in its time, the execution with its end, and gives its lease back", async () => {
    // Before, the read took no deadline: the invocation waited until Lambda ended it, with no line, and so would every invocation after it until the execution's time limit, the lease held all along.
    // That invocation has Lambda's margin past its deadline (20 s), for its end and the lease given back.
    const heldOffMs = 24_000;
    const { execution, lines, took } = await policyReadAgainMeets({ kind: "429", headers: "retry-after", seconds: 600, route: "GET /projects/:id", times: 1 }, heldOffMs);

    expect(Math.max(...took), "an invocation outlasted its time").toBeLessThan(heldOffMs);
    expect(outcome(execution, lines)).toEqual({ status: "FAILED", error: expect.stringMatching(/^policy warden\.yaml in GitLab project \S+ at [0-9a-f]{40}: cannot be read: /), ended: ["job failed"], storedForRestore: 0 });
    // Not that nothing was run, as of a first read: the execution's error (the console's) says what is true here, as does the run's end.
    expect(execution.getError()?.errorMessage).toMatch(/; the execution stops here, whatever its earlier invocations removed stays removed \(their audit lines name each removal\), and no other policy is used in its place$/);
    expect(lines.some((l) => l["level"] === "ERROR" && String(l["message"]).startsWith("the run failed after it may have removed shares"))).toBe(true);
    expect(await leaseHolder(), "the ended execution still holds the lease").toBeUndefined();
  }, 120_000);

  it("a new container's read of the jobs' secret fails after removals: the execution fails with its end (its job failed line), not as non-deterministic, gives its lease back, and, with no report to keep for restore, says so where the ReportNotStored alarm sees it", async () => {
    vi.stubEnv("POWERTOOLS_METRICS_DISABLED", "false");
    vi.stubEnv("WARDEN_STAGE", "production");
    const { cold, execution, lines, sim } = await coldAfterRemovals(unreachableSecrets);

    expect(cold).toBe(true);
    // Its removals are in its audit lines (restore reads those); no report was made to store.
    expect(outcome(execution, lines)).toEqual({ status: "FAILED", error: expect.stringMatching(/^reading secret arn:aws:secretsmanager:\S+ failed: /), ended: ["job failed"], storedForRestore: 0 });
    expect(await leaseHolder(), "the ended execution still holds the lease").toBeUndefined();
    expect(removals(sim), "shares were removed before the failure").toBeGreaterThan(0);
    const audited = lines.filter((l) => (l["message"] === "remove-share" || l["message"] === "remove-group-share") && l["outcome"] === "done" && !l["confirmation"]).length;
    expect(audited, "each removal has its audit line").toBeGreaterThan(0);
    // The removals the execution recorded reach no run history: restore latest now names the run before it, which the run says where the alarm sees it.
    expect(lines.some((l) => typeof l["_aws"] === "object" && "ReportNotStored" in l)).toBe(true);
    expect(lines.some((l) => l["level"] === "ERROR" && String(l["message"]).startsWith("the run failed after it may have removed shares"))).toBe(true);
  }, 120_000);

  it("a new container's read of the jobs' secret throttled once is tried again: the execution ends with its report", async () => {
    const throttledOnce = async () => {
      const { secrets } = await import("../../../functions/shared/config/secrets.ts");
      const read = secrets.get.bind(secrets);
      vi.spyOn(secrets, "get").mockImplementationOnce(() => Promise.reject(new Error("reading secret failed: ThrottlingException: Rate exceeded"))).mockImplementation(read);
    };
    const { cold, execution, lines } = await coldAfterRemovals({ loaded: throttledOnce });

    expect(cold).toBe(true);
    expect(outcome(execution, lines)).toEqual({ status: "SUCCEEDED", error: undefined, ended: ["job finished"], storedForRestore: 1 });
    expect(lines.some((l) => l["message"] === "reading the jobs' secret again failed; trying again")).toBe(true);
  }, 120_000);
});

/**
 * The execution under a repository policy, GitLab meeting the policy's read again with `fault` in the
 * invocation after the first removals, which has `remainingMs`: what became of it, and the routes of that
 * invocation's first two requests to GitLab.
 */
async function policyReadAgainMeets(fault: Parameters<GitLabSim["addFaults"]>[0], remainingMs: number) {
  const { sim, state } = await cutWhileRemoving();
  const repo = sim.dataset.projects.find((p) => !p.path_with_namespace.startsWith("acme/"))!;
  sim.repositories.commit(repo, { "warden.yaml": groupSharesPolicy() });
  vi.stubEnv("WARDEN_POLICY_PROJECT", repo.path_with_namespace);
  vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
  const handler = await container();
  let armed = false;
  const firstOfArmed: string[] = [];
  sim.beforeAnswer(({ route }) => void (armed && firstOfArmed.length < 2 && firstOfArmed.push(route)));
  const { runner, took } = timedRunner<EnforceReport>(async (event: never, context: never) => {
    if (state.removing && !armed) {
      armed = true;
      sim.addFaults(fault);
      return handler(event, withRemaining(context, remainingMs));
    }
    return handler(event, context);
  }, REMAINING_MS);
  const { execution, lines } = await appliedLogged(runner);
  expect(armed).toBe(true);
  return { sim, execution, lines, firstOfArmed, took };
}

/** Secrets Manager cannot be reached from the new container (a throttle or an outage would do the same, once the SDK's own retries are spent). */
const unreachableSecrets: ColdContainer = {
  before: () => vi.stubEnv("AWS_ENDPOINT_URL_SECRETS_MANAGER", "http://127.0.0.1:9"),
  after: () => vi.stubEnv("AWS_ENDPOINT_URL_SECRETS_MANAGER", world.secretsManager.url),
};

/** What differs in the new container: set before it loads, once it has, and undone after its invocation. */
interface ColdContainer {
  before?: () => void;
  loaded?: () => Promise<void>;
  after?: () => void;
}

/**
 * The execution, its invocation after the first removals in a new container as `differs` says (Lambda
 * may start any invocation in one). That invocation has a new one's whole time, not the few seconds the
 * ones before it have to be cut while removing.
 */
async function coldAfterRemovals(differs: ColdContainer) {
  const { sim, state } = await cutWhileRemoving();
  vi.stubEnv("WARDEN_POLICY", await writePolicy(groupSharesPolicy()));
  // Before the first container loads: its audit lines are INFO.
  vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
  let handler = await container();
  let cold = false;
  const { runner } = timedRunner<EnforceReport>(async (event: never, context: never) => {
    if (state.removing && !cold) {
      cold = true;
      differs.before?.();
      handler = await container();
      await differs.loaded?.();
      try {
        return await handler(event, withRemaining(context, COLD_MS));
      } finally {
        differs.after?.();
        vi.restoreAllMocks();
        handler = await container();
      }
    }
    return handler(event, context);
  }, REMAINING_MS);
  // `cold` is read after the run (it sets it).
  const { execution, lines } = await appliedLogged(runner);
  return { cold, sim, execution, lines };
}

/** An applying execution run to its end, and the log lines of all its invocations. */
async function appliedLogged(runner: ReturnType<typeof timedRunner<EnforceReport>>["runner"]) {
  const logs = captureLogs();
  const execution = await runner.run({ payload: { dryRun: false } });
  const lines = logs.lines();
  logs.restore();
  return { execution, lines };
}
