/**
 * enforce.test.ts's token rotation, on the durable runner: a step refused with 401 drops the cached
 * secret, reads it again and, when it holds a new token, is tried again with a new client.
 */
import { LocalDurableTestRunner } from "@aws/durable-execution-sdk-js-testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { EnforceReport } from "../../../lib/jobs/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim, type GitLabSimOptions } from "../../../sim/gitlab/index.ts";
import { standardPolicy } from "../../support/policies.ts";
import { durableWorld } from "../../support/durable-world.ts";
import { SECRETS, stubAwsEnv, writePolicy } from "../../support/lambda.ts";

const ROTATED = "glpat-rotated-token";
const world = durableWorld({ skipTime: true });
let sim: GitLabSim;
let strays: number;

beforeEach(async () => {
  world.secretsManager.reads.length = 0;
  world.secretsManager.queued.length = 0;
  // The first read finds the old token, every later one the new.
  world.secretsManager.queued.push(JSON.stringify(SECRETS));
  world.secretsManager.secretString = JSON.stringify({ ...SECRETS, gitlabToken: ROTATED });
  stubAwsEnv({ AWS_ENDPOINT_URL_SECRETS_MANAGER: world.secretsManager.url, WARDEN_POLICY: await writePolicy(standardPolicy()), WARDEN_REPORT_ONLY: "false", ...(await world.dynamo.freshClaimsEnv()) });
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await sim.close();
});

async function startSim(opts: GitLabSimOptions) {
  const { dataset, intents } = generateOrganisation({ projects: 120, seed: 7 });
  sim = await startGitLabSim({ dataset, ...opts });
  strays = intents.filter((i) => i.intent === "stray").length;
  vi.stubEnv("GITLAB_URL", sim.url);
}

async function durableRun(event: object) {
  vi.resetModules();
  const { handler } = await import("../../../functions/enforce.ts");
  return new LocalDurableTestRunner<EnforceReport>({ handlerFunction: handler as never }).run({ payload: event });
}

describe("the durable Enforce across a token rotation", () => {
  it("re-reads the secret on a 401 at the first requests, and runs (and applies) with the new token", async () => {
    await startSim({ tokens: { [ROTATED]: { admin: true } } });
    const execution = await durableRun({ source: "schedule" });
    expect(execution.getStatus()).toBe("SUCCEEDED");
    expect(execution.getResult()!.summary).toMatchObject({ removed: strays, complete: true });
    expect(strays).toBeGreaterThan(0);
    expect(sim.counters.byRoute["DELETE /projects/:id/share/:group_id"]).toBe(strays);
    // The token check, the administrator's read and the scope look-up, sent together; then none.
    expect(sim.counters.status["401"]).toBe(3);
    // The secret re-read once, as a plain run re-reads it (enforce.test.ts): the first read, and one after the 401.
    expect(world.secretsManager.reads).toHaveLength(2);
  });

  it("fails, without trying again, when the secret still holds the refused token", async () => {
    await startSim({ tokens: { [ROTATED]: { admin: true } } });
    world.secretsManager.queued.length = 0;
    world.secretsManager.secretString = JSON.stringify(SECRETS);
    const execution = await durableRun({ source: "schedule" });
    expect(execution.getStatus()).toBe("FAILED");
    expect(execution.getError()?.errorMessage).toMatch(/GET \/api\/v4\/user answered 401/);
    // The first step's three requests, and no attempt after them.
    expect(sim.counters.status["401"]).toBe(3);
    expect(world.secretsManager.reads).toHaveLength(2);
  });

  it("an apply refused in the middle of the examination goes on with the new token, and removes every stray once", async () => {
    const detail401 = { kind: "status" as const, status: 401, route: "GET /groups/:id", times: 1 };
    await startSim({ tokens: { [SECRETS.gitlabToken]: { admin: true }, [ROTATED]: { admin: true } }, faults: [detail401] });
    const execution = await durableRun({ source: "schedule" });
    expect(execution.getStatus()).toBe("SUCCEEDED");
    expect(execution.getResult()!.summary).toMatchObject({ removed: strays, complete: true });
    expect(sim.counters.byRoute["DELETE /projects/:id/share/:group_id"]).toBe(strays);
    expect(sim.counters.status["401"]).toBe(1);
  });
});
