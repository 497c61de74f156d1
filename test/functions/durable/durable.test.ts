/**
 * The Enforce function as a durable execution, run by AWS's local durable test runner
 * (@aws/durable-execution-sdk-js-testing: the SDK's checkpoints and replays, in-process) against the
 * loopback GitLab simulator, Secrets Manager and a real DynamoDB stand-in (dynalite) for the lease.
 * Each invocation's work is cut to a fraction of a second (WARDEN_SLICE_SECONDS) so that a run of
 * tens of thousands of projects needs many invocations, as a far larger one would in 15 minutes.
 */
import { LocalDurableTestRunner } from "@aws/durable-execution-sdk-js-testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { EnforceReport, ShareRemoval } from "../../../lib/jobs/index.ts";
import type { GitLabSim } from "../../../sim/gitlab/index.ts";
import type { TreeShape } from "../../../sim/gitlab/generate-tree.ts";
import { EVERYTHING_STRAY, groupSharesPolicy } from "../../support/policies.ts";
import { expectAlike, removals, twinSims } from "../../support/steps.ts";
import { durableWorld } from "../../support/durable-world.ts";
import { captureLogs, coldEnforce, stubAwsEnv, writePolicy } from "../../support/lambda.ts";

const world = durableWorld({ skipTime: false });
let claimsEnv: { AWS_ENDPOINT_URL_DYNAMODB: string; WARDEN_CLAIMS_TABLE: string };
const sims: GitLabSim[] = [];

beforeEach(async () => {
  claimsEnv = await world.dynamo.freshClaimsEnv();
  stubAwsEnv({ AWS_ENDPOINT_URL_SECRETS_MANAGER: world.secretsManager.url, WARDEN_POLICY: await writePolicy(groupSharesPolicy()), WARDEN_REPORT_ONLY: "false", ...claimsEnv });
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(sims.map((sim) => sim.close()));
  sims.length = 0;
});

const UNEVEN: TreeShape = { groups: 300, maxDepth: 5, heavy: 0.5 };

/** Twin simulators (test/support/steps.ts): `plain` for a plain invocation, `durable` for the durable execution. */
async function twins(projects: number, tree: TreeShape = UNEVEN) {
  // A few milliseconds a request, so that a slice of a fraction of a second holds a part of the run.
  const { whole, stepped, strays } = await twinSims(sims, { projects, seed: 13, tree, latencyMs: 3 });
  return { plain: whole, durable: stepped, strays };
}

async function plainRun(sim: GitLabSim, event: object): Promise<EnforceReport> {
  vi.stubEnv("GITLAB_URL", sim.url);
  return (await coldEnforce<EnforceReport>())(event);
}

/** One durable execution of the Enforce handler, as Lambda would run it, invocation after invocation. */
async function durableRun(sim: GitLabSim, event: object, env: Record<string, string> = {}) {
  vi.stubEnv("GITLAB_URL", sim.url);
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  vi.resetModules();
  const { handler } = await import("../../../functions/enforce.ts");
  const runner = new LocalDurableTestRunner<EnforceReport>({ handlerFunction: handler as never });
  return runner.run({ payload: event });
}


describe("Enforce as a durable execution", () => {
  it("20,000 projects with each invocation cut to 0.1 s: many invocations, and the plan, removals and report of one uninterrupted run", async () => {
    const { plain, durable, strays } = await twins(20_000);
    const whole = await plainRun(plain, { dryRun: false });
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const logs = captureLogs();
    const execution = await durableRun(durable, { dryRun: false }, { WARDEN_SLICE_SECONDS: "0.1" });
    const lines = logs.lines();
    logs.restore();
    expect(execution.getStatus()).toBe("SUCCEEDED");
    const report = execution.getResult()!;
    expect(strays).toBeGreaterThan(300);
    expectAlike(report, whole);
    expect(report.summary).toMatchObject({ removed: strays, complete: true, guard: "ok" });
    expect(removals(durable)).toBe(strays);
    // Every invocation did work: the report counts them as Lambda ran them.
    expect(execution.getInvocations().length).toBeGreaterThan(4);
    expect(report.stats.invocations).toBe(execution.getInvocations().length);
    expect(report.stats.steps).toBeGreaterThan(report.stats.invocations!);
    // Resumed listings read nothing twice.
    expect(durable.counters.requests).toBeLessThanOrEqual(Math.ceil(plain.counters.requests * 1.02));
    expect(report.stats.requests).toBe(durable.counters.requests);
    // One "job finished" for the execution, not one per invocation; and the lease is given back.
    expect(lines.filter((line) => line["message"] === "job finished")).toHaveLength(1);
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "SILENT");
    const again = await durableRun(durable, {}, { WARDEN_SLICE_SECONDS: "0.3" });
    expect(again.getStatus()).toBe("SUCCEEDED");
    expect(again.getResult()!.summary).toMatchObject({ strays: 0, complete: true });
  }, 120_000);

  it("a run that fits one invocation takes one, with the requests of a plain invocation", async () => {
    const { plain, durable } = await twins(2_000, { groups: 40, maxDepth: 3 });
    const whole = await plainRun(plain, {});
    const execution = await durableRun(durable, {});
    expect(execution.getStatus()).toBe("SUCCEEDED");
    expectAlike(execution.getResult()!, whole);
    expect(execution.getInvocations()).toHaveLength(1);
    expect(durable.counters.requests).toBe(plain.counters.requests);
  });

  it("a step that fails mid-run is attempted again in a later invocation, and the run still judges each project once", async () => {
    vi.stubEnv("WARDEN_POLICY", await writePolicy(groupSharesPolicy()));
    const { plain, durable, strays } = await twins(8_000);
    const whole = await plainRun(plain, { dryRun: false });
    // GitLab answers the scope's look-up once with JSON that is not a namespace: the step fails. (A part
    // GitLab fails on, a group's detail, a page of a listing, is that part's alone:
    // test/jobs/enforce/unexamined.test.ts, failing-listing.test.ts.)
    durable.addFaults({ kind: "status", status: 200, route: "GET /namespaces/:id", times: 1 });
    const execution = await durableRun(durable, { dryRun: false }, { WARDEN_SLICE_SECONDS: "5" });
    expect(execution.getStatus()).toBe("SUCCEEDED");
    expect(durable.pendingFaults()).toBe(0);
    const retried = execution.getOperations().filter((op) => op.getType() === "STEP" && (op.getStepDetails()?.attempt ?? 1) > 1);
    expect(retried.length).toBe(1);
    expectAlike(execution.getResult()!, whole);
    expect(removals(durable)).toBe(strays);
  }, 60_000);

  it("a group whose detail answers 500 every time is not examined: the execution succeeds over several invocations, removes every stray elsewhere and names the group", async () => {
    const { plain, durable } = await twins(3_000);
    const whole = await plainRun(plain, {});
    // A subgroup that makes stray shares, deep in the tree (its id comes from a page of descendant_groups).
    const shared = whole.actions.flatMap((a) => (a.kind === "group" && a.sharedGroup.split("/").length > 2 ? [a.sharedGroupId] : []));
    const bad = durable.dataset.groups.find((g) => g.id === shared[0])!;
    durable.addFaults({ kind: "status", status: 500, method: "GET", path: `/api/v4/groups/${bad.id}`, times: 1_000_000 });
    const execution = await durableRun(durable, { dryRun: false }, { WARDEN_SLICE_SECONDS: "0.05" });
    expect(execution.getStatus()).toBe("SUCCEEDED");
    expect(execution.getInvocations().length).toBeGreaterThan(2);
    const report = execution.getResult()!;
    const [part] = report.unexamined!;
    expect(report.unexamined).toEqual([{ kind: "group", id: bad.id, ...(part!.path === undefined ? {} : { path: bad.full_path }), error: expect.stringMatching(/answered 500/), lasting: false, ...(part!.projects ? { projects: "not examined" } : {}) }]);
    expect(report.summary).toMatchObject({ complete: false, unexamined: 1, guard: "ok" });
    // Every stray but those only its detail shows: the shares it makes, and its own projects' where its detail was to carry them.
    const own = (path: string) => path.toLowerCase().startsWith(`${bad.full_path.toLowerCase()}/`) && !path.slice(bad.full_path.length + 1).includes("/");
    const hidden = (a: ShareRemoval) => (a.kind === "group" ? a.sharedGroupId === bad.id : part!.projects !== undefined && own(a.project));
    const key = (a: ShareRemoval) => `${a.kind}:${a.kind === "group" ? a.sharedGroupId : a.projectId}:${a.groupId}`;
    expect(report.actions.map(key).sort()).toEqual(whole.actions.filter((a) => !hidden(a)).map(key).sort());
    expect(report.actions.every((a) => a.status === "done")).toBe(true);
    expect(removals(durable)).toBe(report.actions.length);
  }, 60_000);

  it("the guard is judged on the whole plan, found over several invocations: nothing is removed, only reads were sent", async () => {
    const { durable, strays } = await twins(8_000);
    vi.stubEnv("WARDEN_POLICY", await writePolicy(groupSharesPolicy(strays - 1)));
    const execution = await durableRun(durable, { dryRun: false }, { WARDEN_SLICE_SECONDS: "0.05" });
    expect(execution.getStatus()).toBe("SUCCEEDED");
    expect(execution.getInvocations().length).toBeGreaterThan(2);
    expect(execution.getResult()!.summary).toMatchObject({ guard: "tripped", strays, removed: 0 });
    expect(Object.keys(durable.counters.byRoute).filter((route) => !route.startsWith("GET "))).toEqual([]);
  }, 60_000);

  it("a scheduled (applying) execution with a mistyped rule trips the guard over several invocations, naming it: nothing is removed", async () => {
    const { durable } = await twins(8_000);
    vi.stubEnv("WARDEN_POLICY", await writePolicy(groupSharesPolicy().replace('project: "acme/legacy/**"', 'project: "acme/legacyy/**"')));
    const execution = await durableRun(durable, { dryRun: false }, { WARDEN_SLICE_SECONDS: "0.05" });
    expect(execution.getStatus()).toBe("SUCCEEDED");
    expect(execution.getInvocations().length).toBeGreaterThan(2);
    const report = execution.getResult()!;
    expect(report.summary).toMatchObject({ guard: "tripped", removed: 0, matched: { exempt: [0, expect.any(Number)] } });
    expect(report.warnings).toContain('exempt[0] (project "acme/legacyy/**") matched no project share in scope');
    expect(Object.keys(durable.counters.byRoute).filter((route) => !route.startsWith("GET "))).toEqual([]);
  }, 60_000);

  it("a policy read from a repository is the one the whole execution judges by, though a commit changes it mid-run", async () => {
    const { plain, durable } = await twins(8_000);
    const whole = await plainRun(plain, {});
    const repo = durable.dataset.projects.find((p) => !p.path_with_namespace.startsWith("acme/"))!;
    const first = durable.repositories.commit(repo, { "warden.yaml": groupSharesPolicy() });
    // Once the examination is under way, the default branch gets a policy under which every share is stray.
    let committed = false;
    const refsAfter: (string | null)[] = [];
    durable.beforeAnswer(({ route, url }) => {
      if (committed && route.startsWith("GET /projects/:id/repository/files/")) refsAfter.push(url.searchParams.get("ref"));
      if (!committed && (durable.counters.byRoute["GET /groups/:id"] ?? 0) >= 40) {
        durable.repositories.commit(repo, { "warden.yaml": EVERYTHING_STRAY });
        committed = true;
      }
    });
    const execution = await durableRun(durable, {}, { WARDEN_SLICE_SECONDS: "0.05", WARDEN_POLICY_PROJECT: repo.path_with_namespace });
    expect(execution.getStatus()).toBe("SUCCEEDED");
    const report = execution.getResult()!;
    // Later invocations read the policy again, at the commit the first one read, and judged as one run under it.
    expect(committed).toBe(true);
    expect(refsAfter.length).toBeGreaterThan(0);
    expect(new Set(refsAfter)).toEqual(new Set([first]));
    expectAlike(report, whole);
    expect(report.policy).toMatchObject({ source: "gitlab", project: repo.path_with_namespace, ref: repo.default_branch, commitId: first });
  }, 60_000);

  it("an execution started while another holds the job's lease does nothing and fails, naming the holder", async () => {
    const { durable } = await twins(500, { groups: 10, maxDepth: 2 });
    vi.resetModules();
    const { dynamoClaims } = await import("../../../functions/shared/state/claims.ts");
    const holder = "arn:aws:lambda:eu-west-1:123456789012:function:warden-Enforce:3/durable-execution/first/0";
    expect(await dynamoClaims().claim("lease:enforce", Math.floor(Date.now() / 1000) + 3600, holder)).toBe(true);
    const execution = await durableRun(durable, { dryRun: false });
    expect(execution.getStatus()).toBe("FAILED");
    expect(execution.getError().errorMessage).toContain(`${holder} is running enforce`);
    // The refused execution gave back nothing of the holder's: its lease stands.
    expect((await dynamoClaims().holder("lease:enforce"))?.holder).toBe(holder);
    expect(durable.counters.requests).toBe(0);
  });

  it("an execution whose event Enforce does not take fails naming the field, before it takes the lease or sends a request", async () => {
    const { durable } = await twins(500, { groups: 10, maxDepth: 2 });
    const execution = await durableRun(durable, { dryrun: false });
    expect(execution.getStatus()).toBe("FAILED");
    expect(execution.getError().errorMessage).toBe('invalid event: unknown field "dryrun"');
    vi.resetModules();
    const { dynamoClaims } = await import("../../../functions/shared/state/claims.ts");
    expect(await dynamoClaims().holder("lease:enforce")).toBeUndefined();
    expect(durable.counters.requests).toBe(0);
  });
});
