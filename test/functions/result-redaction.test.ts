/**
 * What a job Lambda returns is an output too: the console shows it to whoever invoked the function,
 * and a durable execution keeps it as its result, for anyone who may read the execution's history.
 * It passes lib/redact like the function's log lines and its stored report do. The attack: a GitLab
 * (or a proxy before it) that puts the token it was sent into a name it answers with; the run's log
 * lines and stored report showed it masked, the returned report in clear.
 */
import { LocalDurableTestRunner } from "@aws/durable-execution-sdk-js-testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { EnforceReport } from "../../lib/jobs/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { durableWorld } from "../support/durable-world.ts";
import { coldEnforce, SECRETS, stubAwsEnv, writePolicy } from "../support/lambda.ts";
import { standardPolicy } from "../support/policies.ts";

const world = durableWorld({ skipTime: true });
let sim: GitLabSim;

/** An organisation whose stray shares GitLab names with the token it was sent in their invited group's path. */
async function echoingGitLab(): Promise<GitLabSim> {
  const { dataset, intents } = generateOrganisation({ projects: 30, seed: 11 });
  const strays = intents.filter((i) => i.intent === "stray" && i.kind === "project");
  expect(strays.length).toBeGreaterThan(0);
  for (const { projectId, groupId } of strays) {
    const share = dataset.projects.find((p) => p.id === projectId)!.shared_with_groups.find((s) => s.group_id === groupId)!;
    share.group_full_path = `partners/echo-${SECRETS.gitlabToken}`;
  }
  return startGitLabSim({ dataset });
}

beforeEach(async () => {
  sim = await echoingGitLab();
  stubAwsEnv({
    AWS_ENDPOINT_URL_SECRETS_MANAGER: world.secretsManager.url,
    WARDEN_POLICY: await writePolicy(standardPolicy()),
    GITLAB_URL: sim.url,
    ...(await world.dynamo.freshClaimsEnv()),
  });
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await sim.close();
});

describe("the report a job Lambda returns holds no credential", { timeout: 120_000 }, () => {
  it("a plain invocation's result", async () => {
    const report = await (await coldEnforce<EnforceReport>())({});
    expect(report.summary.strays).toBeGreaterThan(0);
    const text = JSON.stringify(report);
    expect(text).not.toContain(SECRETS.gitlabToken);
    expect(text).toContain("partners/echo-[REDACTED]");
  });

  it("a durable execution's result", async () => {
    vi.resetModules();
    const { handler } = await import("../../functions/enforce.ts");
    const execution = await new LocalDurableTestRunner<EnforceReport>({ handlerFunction: handler as never }).run({ payload: {} });
    expect(execution.getStatus()).toBe("SUCCEEDED");
    const text = JSON.stringify(execution.getResult());
    expect(text).not.toContain(SECRETS.gitlabToken);
    expect(text).toContain("partners/echo-[REDACTED]");
  });
});
