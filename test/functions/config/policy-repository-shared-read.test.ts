/**
 * The reader of a repository policy (functions/shared/config/policy-repository.ts) shares one read between
 * the callers that ask while it is in flight, each with its own run's deadline: one whose deadline passes
 * stops waiting, and the read goes on for the others; the read is cut once nobody waits for it, so a GitLab
 * holding it (a slow answer, a long Retry-After) keeps nothing waiting, and the next caller reads anew.
 */
import { beforeEach, describe, expect, it, vi } from "vitest";
import { compareWorld, POLICY_PROJECT } from "../../support/compare-world.ts";
import { SECRETS } from "../../support/lambda.ts";
import { lambdaWorld } from "../../support/lambda-world.ts";
import { standardPolicy } from "../../support/policies.ts";

const PATH = "policies/warden.yaml";
const world = lambdaWorld({ gitlab: () => ({ dataset: compareWorld(), tokens: { [SECRETS.gitlabToken]: { admin: true } } }) });
beforeEach(() => {
  const repo = world.gitlab.dataset.projects.find((p) => p.path_with_namespace === POLICY_PROJECT)!;
  world.gitlab.repositories.commit(repo, { [PATH]: standardPolicy() });
});

/** A container's reader, fresh, and the GitLab requests its reads have sent. */
async function reader() {
  vi.resetModules();
  const { repositoryPolicy, policyReadRequests } = await import("../../../functions/shared/config/policy-repository.ts");
  return { read: repositoryPolicy({ project: POLICY_PROJECT, path: PATH }), sent: policyReadRequests };
}

const CUT_OFF = `the policy's read from ${POLICY_PROJECT} was cut off`;

describe("one read of a repository policy, shared by callers with deadlines of their own", () => {
  it("a caller whose deadline passes stops waiting; the other still gets the policy, from that same read", async () => {
    world.gitlab.addFaults({ kind: "429", headers: "retry-after", seconds: 2, method: "GET", times: 1 });
    const { read, sent } = await reader();
    const other = read();
    const started = Date.now();
    await expect(read(AbortSignal.timeout(300))).rejects.toThrow(CUT_OFF);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect((await other).source).toMatchObject({ source: "gitlab", project: POLICY_PROJECT });
    // One read: the 429, then the project, its branch and the file.
    expect(sent()).toBe(4);
  });

  it("cut once nobody waits for it, so a GitLab that holds it keeps nothing waiting; the next caller reads anew", async () => {
    world.gitlab.addFaults({ kind: "delay", ms: 60_000, method: "GET", times: 1 });
    const { read, sent } = await reader();
    await expect(read(AbortSignal.timeout(300))).rejects.toThrow(CUT_OFF);
    // The read ended (its request counted) rather than wait out the minute.
    await vi.waitFor(() => expect(sent()).toBe(1), { timeout: 2_000 });
    expect((await read(AbortSignal.timeout(5_000))).source).toMatchObject({ source: "gitlab", project: POLICY_PROJECT });
    expect(sent()).toBe(4);
  });

  it("a caller whose deadline has passed already sends nothing", async () => {
    const { read, sent } = await reader();
    await expect(read(AbortSignal.abort(new Error("the Lambda times out in 10 s")))).rejects.toThrow(`${CUT_OFF} (the Lambda times out in 10 s)`);
    expect(sent()).toBe(0);
    expect(world.gitlab.counters.requests).toBe(0);
  });
});
