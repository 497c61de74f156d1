/**
 * `restore latest` after a bad day: a scheduled sweep under a bad policy removes a share the fixed
 * policy allows, then a Watch batch removes one stray share. Every applying run is kept in the
 * run-history bucket (a loopback S3); "latest" must be the sweep, not the newer watch batch, and
 * "latest:watch" the batch. Against the GitLab simulator, dynalite (the watch's cursor and lease) and
 * a loopback Secrets Manager, through the Enforce and Watch handlers as Lambda invokes them.
 */
import { writeFile } from "node:fs/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { RestoreReport } from "../../lib/jobs/index.ts";
import { startDynalite, type Dynalite } from "../../sim/aws/dynalite.ts";
import { startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { validReport } from "../support/report.ts";
import { allShares, IDS, share, WATCH_TOKENS, watchPolicyText, watchWorld } from "../support/watch-world.ts";
import { coldEnforce, lambdaContext, SECRETS, startS3, startSecretsManager, stubAwsEnv, writePolicy, type S3Stub, type SecretsManagerStub } from "../support/lambda.ts";

const BUCKET = "warden-runs";
/** A policy typo: no rule matches any group, so the sweep removes every share in scope. */
const BAD_POLICY = `version: 1
gitlab:
  scope: { groups: [acme] }
  shares:
    allow:
      - group: "nobody/**"
  guard: { maxRemovals: 100, unmatchedRules: warn }
`;

let dynalite: Dynalite;
let secretsManager: SecretsManagerStub;
let s3: S3Stub;
let sim: GitLabSim;

beforeAll(async () => {
  [dynalite, secretsManager, s3] = await Promise.all([startDynalite(), startSecretsManager(JSON.stringify(SECRETS)), startS3()]);
});
afterAll(async () => {
  await Promise.all([dynalite.close(), secretsManager.close(), s3.close()]);
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await sim.close();
});

async function coldWatch() {
  vi.resetModules();
  const { handler } = await import("../../functions/watch.ts");
  return () => handler({ source: "schedule" } as never, lambdaContext());
}

describe("restore latest", () => {
  it("after a bad sweep and a watch batch, latest restores the sweep's removals and names the run; latest:watch is the batch", async () => {
    sim = await startGitLabSim({ dataset: watchWorld(), tokens: WATCH_TOKENS });
    const policyPath = await writePolicy(BAD_POLICY);
    stubAwsEnv({
      ...(await dynalite.freshClaimsEnv()),
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.url,
      AWS_ENDPOINT_URL_S3: s3.url,
      WARDEN_RUN_HISTORY_BUCKET: BUCKET,
      WARDEN_POLICY: policyPath,
      WARDEN_REPORT_ONLY: "false",
      GITLAB_URL: sim.url,
    });
    // acme/app shared with acme/team: allowed by the fixed policy, removed by the bad one.
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.team);
    const sweep = await (await coldEnforce())({ source: "schedule" });
    expect(sweep).toMatchObject({ job: "enforce", dryRun: false, actions: [{ projectId: IDS.app, groupId: IDS.team, status: "done" }] });

    // The policy is fixed; the watch starts, then removes a stray share made afterwards.
    await writeFile(policyPath, watchPolicyText());
    await (await coldWatch())();
    await share(sim, "jane", `/projects/${IDS.api}/share`, IDS.partners);
    const batch = await (await coldWatch())();
    expect(batch).toMatchObject({ dryRun: false, actions: [{ projectId: IDS.api, groupId: IDS.partners, status: "done" }] });
    const keys = [...s3.objects.keys()].sort();
    expect(keys).toEqual([expect.stringMatching(new RegExp(`^${BUCKET}/runs/enforce/schedule/\\d{8}T\\d{6}\\.\\d{3}Z-.+\\.json$`)), expect.stringMatching(new RegExp(`^${BUCKET}/runs/enforce/watch/`))]);

    const enforce = await coldEnforce<RestoreReport>();
    // The plan names the run chosen before anything is re-created.
    const plan = validReport(await enforce({ restore: "latest" }));
    expect(plan.summary.from).toMatch(new RegExp(`^s3://${BUCKET}/runs/enforce/schedule/.+\\.json: an enforce report, the latest sweep \\(trigger schedule\\)$`));
    expect(plan.actions).toMatchObject([{ projectId: IDS.app, groupId: IDS.team, status: "planned", policy: { verdict: "allowed" } }]);

    const restored = validReport(await enforce({ restore: "latest", dryRun: false }));
    expect(restored.summary).toMatchObject({ restored: 1, failed: 0 });
    expect(allShares(sim)).toEqual([`p${IDS.app}:${IDS.team}`]);

    const watchRun = validReport(await enforce({ restore: "latest:watch" }));
    expect(watchRun.summary.from).toMatch(new RegExp(`^s3://${BUCKET}/runs/enforce/watch/.+\\.json: an enforce report, the latest watch run \\(trigger watch\\)$`));
    // The batch removed a stray share: the current policy does not allow it back.
    expect(watchRun.actions).toMatchObject([{ projectId: IDS.api, groupId: IDS.partners, status: "skipped", policy: { verdict: "stray" } }]);
  });
});
