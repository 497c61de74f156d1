/**
 * The stand-in of SST's components (support/sst/platform) against SST 4.17's real ones
 * (support/sst/real-platform.ts reads their source out of the installed sst binary): what the tests
 * trust it to model, checked where the real source says it.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { deploy } from "./support/sst/deploy.ts";
import { realPlatform, SST_BINARY } from "./support/sst/real-platform.ts";

const realSource = (file: string) => readFileSync(join(realPlatform(), "src/components/aws", file), "utf8");
/** The real platform's naming.ts, under the `$app` its run() defines: a copy, away from the platform's tsconfig, which names a package not installed. */
async function realNaming(app: { name: string; stage: string }): Promise<{ physicalName: (max: number, name: string) => string }> {
  (globalThis as { $app?: unknown }).$app = app;
  const copy = join(mkdtempSync(join(tmpdir(), "sst-naming-")), "naming.ts");
  copyFileSync(join(realPlatform(), "src/components/naming.ts"), copy);
  return import(pathToFileURL(copy).href);
}

describe.skipIf(!existsSync(SST_BINARY))("the stand-in against SST 4.17's real components", () => {
  // SST 4.17's createUrl, for a URL without IAM auth, adds beside `<name>PublicFunctionUrlAccess` (InvokeFunctionUrl)
  // a second resource-based permission, `<name>InvokeFunction`: lambda:InvokeFunction for principal "*" with
  // invokedViaFunctionUrl (Lambda's newer requirement for a public URL). The stand-in made only the first, so the
  // tests that read the endpoints' public grants (sst-config.test.ts "opens chat-ops as a Function URL…") never saw
  // the second, nor would they have noticed it losing its condition.
  it("the stand-in makes the public Function URL permissions SST makes: InvokeFunctionUrl, and InvokeFunction only via the URL", async () => {
    const real = realSource("function.ts");
    expect(real).toMatch(/`\$\{name\}InvokeFunction`,\s*\{\s*action: "lambda:InvokeFunction",\s*function: fn\.name,\s*principal: "\*",\s*invokedViaFunctionUrl: true,/);
    const deployed = await deploy("staging", { WARDEN_EVENTS: "on" });
    const permissions = deployed.all("aws:lambda/permission:Permission").map((p) => ({ name: p.name, ...p.inputs }));
    for (const name of ["Chatops", "Events"]) {
      const fn = deployed.fn(name).physicalName;
      expect(permissions, name).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ name: `${name}PublicFunctionUrlAccess`, action: "lambda:InvokeFunctionUrl", principal: "*", functionUrlAuthType: "NONE", function: fn }),
          expect.objectContaining({ name: `${name}InvokeFunction`, action: "lambda:InvokeFunction", principal: "*", invokedViaFunctionUrl: true, function: fn }),
        ]),
      );
    }
    // No other function is public.
    expect(permissions.map((p) => p.name).sort()).toEqual(["ChatopsInvokeFunction", "ChatopsPublicFunctionUrlAccess", "EventsInvokeFunction", "EventsPublicFunctionUrlAccess"]);
  });

  // sst.config.ts refuses sst dev on a protected stage, and on another without WARDEN_DEV_SECRETS=1, because SST 4.17 then
  // gives every function's role a trust policy naming the account's root principal beside Lambda: any principal in the
  // account whose own policy allows sts:AssumeRole may assume it. An SST upgrade that changes this fails here.
  it("makes every function's role assumable by the account's root principal under sst dev, which the config's dev refusals rely on", () => {
    expect(realSource("function.ts")).toMatch(/assumeRolePolicy: !dev\s*\?\s*iam\.assumeRolePolicyForPrincipal\([\s\S]*?type: "AWS",\s*identifiers: \[\s*interpolate`arn:\$\{partition\}:iam::\$\{[\s\S]*?\}:root`/);
  });

  // sst.config.ts denies each function's role every log group but its own (ownLogGroupOnly), the group it reads back from
  // the component (nodes.logGroup) by ARN. This holds SST to what that relies on, and the stand-in to SST's naming of the
  // group, which the config's tests take each function's own group from: an SST upgrade that changes either fails here.
  it("names each function's log group as SST does, the group the function logs into and nodes.logGroup gives, with the role's transform", async () => {
    const fn = realSource("function.ts");
    expect(fn).toMatch(/`\$\{name\}LogGroup`,\s*\{\s*name: interpolate`\/aws\/lambda\/\$\{\s*args\.name \?\? physicalName\(64, `\$\{name\}Function`\)\s*\}`,[^}]*\},\s*\{ parent, ignoreChanges: \["name"\] \}/);
    expect(fn).toMatch(/loggingConfig: logging && \{[^}]*logGroup: logging\.logGroup \?\? logGroup!\.name,\s*\}/);
    expect(fn).toMatch(/logGroup: this\.logGroup,/);
    expect(fn).toMatch(/transform\(\s*args\.transform\?\.role,\s*`\$\{name\}Role`/);
    // A Workflow's function and a CronV2's (made from its arguments, transform and all) are `<name>Handler`.
    expect(realSource("workflow.ts")).toMatch(/new Function\(\s*`\$\{name\}Handler`,[\s\S]*?transform: args\.transform\?\.function,/);
    expect(realSource("cron-v2.ts")).toMatch(/functionBuilder\(`\$\{name\}Handler`, fnArgs,/);
    expect(realSource("cron-v2.ts")).toMatch(/get function\(\) \{[\s\S]*?return self\.fn\.apply\(\(fn\) => fn\.getFunction\(\)\);/);
    const deployed = await deploy("production", { WARDEN_EVENTS: "on" });
    const { physicalName } = await realNaming({ name: deployed.app.name, stage: "production" });
    for (const [name, f] of deployed.functions()) {
      const real = name === "Enforce" ? `/aws/lambda/${f.lambda["name"]}` : `/aws/lambda/${physicalName(64, `${f.component}Function`)}`;
      // SST's 8 random characters, fixed in the stand-in.
      expect(f.logGroup.replace(/-[a-z]{8}$/, "-random"), name).toBe(real.replace(/-[abcdefhkmnorstuvwxz]{8}$/, "-random"));
    }
  });
});
