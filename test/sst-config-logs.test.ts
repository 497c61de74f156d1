/**
 * How long the functions' logs are kept. A hostile review's finding: SST keeps a function's log group "1 month"
 * unless told otherwise (its function.ts normalizeLogging), and the audit lines (remove-share, create-pipeline,
 * chat-command) are only in the logs (the `job finished` line leaves the actions out), and restore's fallback
 * where storing a report failed: they went after 30 days, the reports after 90 (WARDEN_RUN_HISTORY_DAYS).
 */
import { describe, expect, it } from "vitest";
import { deploy } from "./support/sst/deploy.ts";

const retentions = (deployed: Awaited<ReturnType<typeof deploy>>) => deployed.functions().map(([name, f]) => `${name}: ${(f.args["logging"] as { retention?: string } | undefined)?.retention ?? "SST's default, 1 month"}`);

describe("the functions' logs", () => {
  it("are kept as long as the run history: the shortest retention SST offers of at least WARDEN_RUN_HISTORY_DAYS", async () => {
    const deployed = await deploy("staging", { WARDEN_CHATOPS: "on", WARDEN_EVENTS: "on" });
    const names = deployed.functions().map(([name]) => name);
    expect(names).toEqual(expect.arrayContaining(["Enforce", "Chatops", "Events", "Worker", "EventsWorker", "Watch", "Workflows"]));
    expect(retentions(deployed)).toEqual(names.map((name) => `${name}: 3 months`));
    expect(retentions(await deploy("staging", { WARDEN_RUN_HISTORY_DAYS: "100" }))).toEqual(names.filter((n) => !["Events", "EventsWorker"].includes(n)).map((name) => `${name}: 4 months`));
    expect(retentions(await deploy("staging", { WARDEN_RUN_HISTORY_DAYS: "5000" }))[0]).toMatch(/: forever$/);
  });
});
