/**
 * `restore latest` after a bad day: a scheduled sweep under a bad policy removes a share the fixed
 * policy allows, then a Watch batch removes one stray share. Every applying run is kept in the
 * run-history bucket (a loopback S3); "latest" must be the sweep, not the newer watch batch, and
 * "latest:watch" the batch. Against the GitLab simulator, dynalite (the watch's cursor and lease) and
 * a loopback Secrets Manager, through the Enforce and Watch handlers as Lambda invokes them.
 */
import { writeFile } from "node:fs/promises";
import { describe, expect, it, vi } from "vitest";
import type { RestoreReport } from "../../lib/jobs/index.ts";
import { validReport } from "../support/report.ts";
import { allShares, IDS, share, WATCH_TOKENS, watchPolicyText, watchWorld } from "../support/watch-world.ts";
import { coldEnforce, lambdaContext, writePolicy } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";

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

const world = lambdaWorld({
  dynamo: true,
  s3: true,
  gitlab: () => ({ dataset: watchWorld(), tokens: WATCH_TOKENS }),
  env: () => ({ WARDEN_RUN_HISTORY_BUCKET: BUCKET, WARDEN_REPORT_ONLY: "false" }),
});

async function coldWatch() {
  vi.resetModules();
  const { handler } = await import("../../functions/watch.ts");
  return () => handler({ source: "schedule" } as never, lambdaContext());
}

describe("restore latest", () => {
  it("after a bad sweep and a watch batch, latest restores the sweep's removals and names the run; latest:watch is the batch", async () => {
    const policyPath = await writePolicy(BAD_POLICY);
    vi.stubEnv("WARDEN_POLICY", policyPath);
    // acme/app shared with acme/team: allowed by the fixed policy, removed by the bad one.
    await share(world.gitlab, "jane", `/projects/${IDS.app}/share`, IDS.team);
    const sweep = await (await coldEnforce())({ source: "schedule" });
    expect(sweep).toMatchObject({ job: "enforce", dryRun: false, actions: [{ projectId: IDS.app, groupId: IDS.team, status: "done" }] });

    // The policy is fixed; the watch starts, then removes a stray share made afterwards.
    await writeFile(policyPath, watchPolicyText());
    await (await coldWatch())();
    await share(world.gitlab, "jane", `/projects/${IDS.api}/share`, IDS.partners);
    const batch = await (await coldWatch())();
    expect(batch).toMatchObject({ dryRun: false, actions: [{ projectId: IDS.api, groupId: IDS.partners, status: "done" }] });
    const keys = [...world.s3.objects.keys()].sort();
    expect(keys).toEqual([expect.stringMatching(new RegExp(`^${BUCKET}/runs/enforce/schedule/\\d{8}T\\d{6}\\.\\d{3}Z-.+\\.json$`)), expect.stringMatching(new RegExp(`^${BUCKET}/runs/enforce/watch/`))]);

    const enforce = await coldEnforce<RestoreReport>();
    // The plan names the run chosen before anything is re-created.
    const plan = validReport(await enforce({ restore: "latest" }));
    expect(plan.summary.from).toMatch(new RegExp(`^s3://${BUCKET}/runs/enforce/schedule/.+\\.json: an enforce report, the latest sweep \\(trigger schedule\\)$`));
    expect(plan.actions).toMatchObject([{ projectId: IDS.app, groupId: IDS.team, status: "planned", policy: { verdict: "allowed" } }]);

    const restored = validReport(await enforce({ restore: "latest", dryRun: false }));
    expect(restored.summary).toMatchObject({ restored: 1, failed: 0 });
    expect(allShares(world.gitlab)).toEqual([`p${IDS.app}:${IDS.team}`]);

    const watchRun = validReport(await enforce({ restore: "latest:watch" }));
    expect(watchRun.summary.from).toMatch(new RegExp(`^s3://${BUCKET}/runs/enforce/watch/.+\\.json: an enforce report, the latest watch run \\(trigger watch\\)$`));
    // The batch removed a stray share: the current policy does not allow it back.
    expect(watchRun.actions).toMatchObject([{ projectId: IDS.api, groupId: IDS.partners, status: "skipped", policy: { verdict: "stray" } }]);
  });
});
