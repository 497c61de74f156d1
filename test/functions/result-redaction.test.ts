/**
 * What a job Lambda returns is an output too: the console shows it to whoever invoked the function,
 * and a durable execution keeps it as its result, for anyone who may read the execution's history;
 * so is the error it fails with, which the Lambda runtime also logs itself, past Powertools. Both pass
 * lib/redact like the function's log lines and its stored report do. The attack: a GitLab (or a proxy
 * before it) that puts the token it was sent into what it answers; the run's log lines and stored
 * report showed it masked, the returned report and the error in clear.
 */
import { LocalDurableTestRunner } from "@aws/durable-execution-sdk-js-testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { EnforceReport } from "../../lib/jobs/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { durableWorld } from "../support/durable-world.ts";
import { captureLogs, coldEnforce, SECRETS, stubAwsEnv, writePolicy } from "../support/lambda.ts";
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

  it("the error a plain invocation, or a durable execution, fails with", async () => {
    // The policy in a repository, whose file GitLab answers with the token where its encoding belongs.
    const repo = sim.dataset.projects.find((p) => !p.path_with_namespace.startsWith("acme/"))!;
    sim.repositories.commit(repo, { "warden.yaml": standardPolicy() });
    vi.stubEnv("WARDEN_POLICY", undefined);
    vi.stubEnv("WARDEN_POLICY_PROJECT", repo.path_with_namespace);
    const echo = (times: number) => ({ kind: "rewrite" as const, route: "GET /projects/:id/repository/files/:file_path", times, edit: (body: unknown) => ({ ...(body as object), encoding: `echo ${SECRETS.gitlabToken}` }) });

    sim.addFaults(echo(1));
    const failed = await (await coldEnforce<EnforceReport>())({}).then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    expect(failed?.message).toMatch(/GitLab's answer is not a usable policy file: the answer carries no base64 content \(encoding "echo \[REDACTED\]"\)/);
    expect(`${failed?.message} ${failed?.stack}`).not.toContain(SECRETS.gitlabToken);

    // Every attempt of the step that reads the policy (steps.ts tries a failed step 3 times).
    sim.addFaults(echo(3));
    vi.resetModules();
    const { handler } = await import("../../functions/enforce.ts");
    const execution = await new LocalDurableTestRunner<EnforceReport>({ handlerFunction: handler as never }).run({ payload: {} });
    expect(execution.getStatus()).toBe("FAILED");
    const error = JSON.stringify(execution.getError());
    expect(error).toContain("echo [REDACTED]");
    expect(error).not.toContain(SECRETS.gitlabToken);
  });

  it("a bundled policy whose error quotes a credential pasted into it: masked in the error and the log, though the run fails before it needs the secret", async () => {
    // n8n's older API keys have no shape to know them by: only the registered one is masked.
    vi.stubEnv("WARDEN_POLICY", await writePolicy(standardPolicy().replace("maxAccess: developer", `maxAccess: "${SECRETS.n8nApiKey}"`)));
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const logs = captureLogs();
    const failed = await (await coldEnforce<EnforceReport>())({}).then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    const lines = JSON.stringify(logs.lines());
    logs.restore();
    expect(failed?.message).toMatch(/unknown access level "\[REDACTED\]"/);
    expect(`${failed?.message} ${failed?.stack} ${lines}`).not.toContain(SECRETS.n8nApiKey);
    expect(lines).toContain("job failed");
  });
});
