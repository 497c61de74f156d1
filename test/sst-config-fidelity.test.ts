/**
 * The stand-in of SST's components (support/sst/platform) against SST 4.17's real ones
 * (support/sst/real-platform.ts reads their source out of the installed sst binary): what the tests
 * trust it to model, checked where the real source says it.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { deploy } from "./support/sst/deploy.ts";
import { realPlatform, SST_BINARY } from "./support/sst/real-platform.ts";

const realSource = (file: string) => readFileSync(join(realPlatform(), "src/components/aws", file), "utf8");

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
});
