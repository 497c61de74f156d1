/** sst.config.ts as SST 4.17 builds it (test/support/sst/build.ts): app() from a bundle that refuses a top-level import, component names, SST's rules, no deprecated resource. */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildRun, evaluateApp, evaluateRun, TOP_LEVEL_IMPORT } from "./support/sst/build.ts";
import { appOf, deploy, DEPLOY_ENV, N8N_SECRET, UNSET } from "./support/sst/deploy.ts";

describe("sst.config.ts as SST 4.17 builds it", () => {
  it("has no static import at its top: SST evaluates app() from a bundle that refuses one", async () => {
    for (const stage of ["staging", "dev", "production"]) expect(await evaluateApp(stage, undefined, { WARDEN_REPORT_ONLY: undefined })).toEqual(appOf(stage));
  });

  // A hostile review's finding: any stage deployed with WARDEN_REPORT_ONLY=false removes real shares, and was left
  // unprotected unless named production: one `sst remove` deleted the run history restore needs (SST's Bucket forceDestroy).
  it("protects and retains any stage that applies, not only one named production", async () => {
    expect(await evaluateApp("prod", undefined, { WARDEN_REPORT_ONLY: "false" })).toEqual({ name: "warden", home: "aws", removal: "retain", protect: true });
    expect(await evaluateApp("prod", undefined, { WARDEN_REPORT_ONLY: "true" })).toEqual(appOf("prod"));
  });

  // A hostile review's finding: `sst dev` makes every function a bridge to the developer's machine and every role
  // assumable by the account's root principal (SST 4.17's function.ts), and an app's protect stops only `sst remove`.
  it("refuses sst dev on a protected stage (production), and lets it run on another whose secrets the deployer says are its own", async () => {
    const refused = await evaluateRun(await buildRun(appOf("production"), "production", undefined, true), "production", { ...DEPLOY_ENV, WARDEN_DEV_SECRETS: "1" }).then(() => "deployed", (err: Error) => err.message);
    expect(refused).toBe("sst dev on the protected stage production would put its functions on this machine, with roles the whole account may assume: run sst dev on a stage of your own (--stage)");
    const own = await evaluateRun(await buildRun(appOf("alice"), "alice", undefined, true), "alice", { ...DEPLOY_ENV, WARDEN_DEV_SECRETS: "1" });
    expect(own.resources.some((r) => r.type === "aws:lambda/function:Function")).toBe(true);
  });

  // A review's finding: on a stage that does not apply, sst dev still made every role assumable account-wide while the
  // jobs' roles read WARDEN_SECRET_ARN, the GitLab administrator's token the report-only staging deploy reads too: any
  // principal allowed sts:AssumeRole assumed the Worker's role and read it, for as long as the stage stayed deployed.
  it("refuses sst dev on a stage that does not apply without WARDEN_DEV_SECRETS=1, naming the secrets its roles would hand out", async () => {
    const bundle = await buildRun(appOf("alice"), "alice", undefined, true);
    const env = { ...UNSET, ...DEPLOY_ENV, WARDEN_N8N_SECRET_ARN: N8N_SECRET };
    const refused = await evaluateRun(bundle, "alice", env).then(() => "deployed", (err: Error) => err.message);
    expect(refused).toMatch(/sst dev/);
    expect(refused).toBe(
      "sst dev on stage alice lets any principal in the account allowed sts:AssumeRole assume its functions' roles, for as long as the stage stays deployed by sst dev, and read the secrets they read (WARDEN_SECRET_ARN, WARDEN_N8N_SECRET_ARN, WARDEN_ENDPOINT_SECRET_ARN). " +
        "Give the stage secrets of its own, holding a test instance's token, then run sst dev with WARDEN_DEV_SECRETS=1 (docs/aws.md)",
    );
    await expect(evaluateRun(bundle, "alice", { ...env, WARDEN_DEV_SECRETS: "yes" })).rejects.toThrow('WARDEN_DEV_SECRETS must be "1" or "0", not "yes"');
  });

  it("the app() build refuses a config with a top-level import, as SST does (this suite's check can fail)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-sst-"));
    writeFileSync(join(dir, "sst.config.ts"), `import { x } from "./x.ts";\nexport default $config({ app() { return { name: x, home: "aws" }; }, async run() {} });\n`);
    await expect(evaluateApp("staging", join(dir, "sst.config.ts"))).rejects.toThrow(TOP_LEVEL_IMPORT);
  });

  it("gives every top-level component a name of its own, compared case-insensitively across kinds", async () => {
    const deployed = await deploy();
    expect(deployed.components()).toEqual(["Bucket RunHistory", "CronV2 EnforceSchedule", "CronV2 WatchSchedule", "CronV2 WorkflowsSchedule", "Dynamo Claims", "Function Chatops", "Function Worker", "SnsTopic Alarms", "Workflow Enforce"]);
    const lower = deployed.components().map((c) => c.split(" ")[1]!.toLowerCase());
    expect(new Set(lower).size).toBe(lower.length);
  });

  it("the stand-in refuses what SST refuses: a name used twice across kinds, an argument SST does not have", async () => {
    const cases: [string, string][] = [
      [`new sst.aws.Workflow("Enforce", { handler: "functions/enforce.handler" }); new sst.aws.CronV2("enforce", { schedule: "rate(1 day)", function: "arn:x" });`, "Component name enforce is not unique."],
      [`new sst.aws.Workflow("Enforce", { handler: "functions/enforce.handler", retries: 0 } as never);`, `sst.aws.Workflow "Enforce" has no argument "retries" in SST 4.17`],
      [`new sst.aws.Function("App", { handler: "functions/enforce.handler" });`, `Component name "App" is reserved.`],
    ];
    // Outside the project's .sst, whose files get no globals.
    const dir = mkdtempSync(join(tmpdir(), "warden-sst-"));
    for (const [i, [program, error]] of cases.entries()) {
      const config = join(dir, `${i}`, "sst.config.ts");
      mkdirSync(join(dir, `${i}`), { recursive: true });
      writeFileSync(config, `export default $config({ app() { return { name: "warden", home: "aws" }; }, async run() { ${program} } });\n`);
      const bundle = await buildRun({ name: "warden", home: "aws" }, "staging", config);
      await expect(evaluateRun(bundle, "staging", {}), program).rejects.toThrow(error);
    }
  });

  it("uses no deprecated @pulumi/aws resource: a deploy prints no deprecation warning", async () => {
    const deployed = await deploy();
    expect(deployed.warnings).not.toMatch(/deprecated/i);
    expect(deployed.all("aws:s3/bucketLifecycleConfigurationV2:BucketLifecycleConfigurationV2")).toEqual([]);
  });
});
