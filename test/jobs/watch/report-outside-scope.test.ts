/**
 * An administrator's token reads the whole instance's audit events. Those naming a project outside the
 * policy's scope are left alone, and the batch report (posted to Slack, kept in the run history) counts
 * them without saying where: its readers may not see those projects in GitLab. The log names them.
 */
import { describe, expect, it } from "vitest";
import { pollOnce } from "../../../lib/jobs/watch/index.ts";
import { begin, sim, start } from "../../support/watch-sim.ts";
import { IDS, share } from "../../support/watch-world.ts";

describe("a watch batch's report and shares made outside the scope", () => {
  it("counts the events outside the scope and names none of their paths; the poll's ignored lines (logged) do", async () => {
    await start();
    const w = await begin("root");
    await share(sim, "olga", `/projects/${IDS.tool}/share`, IDS.partners); // other/tool: outside the scope
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners); // acme/app: a stray, so the poll has a batch
    const polled = await pollOnce({ ...w, apply: true });
    expect(polled.report!.actions.map((a) => a.status)).toEqual(["done"]);
    expect(JSON.stringify(polled.report)).not.toContain("other/tool");
    expect(polled.report!.warnings).toContain("1 event named a project or group outside the policy's scope: left alone");
    expect(polled.ignored).toEqual([expect.stringContaining("names other/tool, outside the policy's scope")]);
  });
});
