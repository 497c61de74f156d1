/**
 * The audit lines (remove-share, create-pipeline, chat-command) are only in the functions' log groups, and restore's
 * fallback where a report could not be stored. SST's removal "retain" keeps only buckets, tables and the like on
 * delete (its auto/run.ts list), not a log group: a later deploy of an applying stage that drops a function (a shell
 * without WARDEN_EVENTS=on, whose default is off; WARDEN_CHATOPS=off) deleted that function's log group with it, and
 * every audit line of the removals its runs made (the sst14 review).
 */
import { describe, expect, it } from "vitest";
import { deploy } from "./support/sst/deploy.ts";

const LOG_GROUP = "aws:cloudwatch/logGroup:LogGroup";

describe("the functions' log groups on delete", () => {
  it("are kept on an applying stage (removal retain), where a deploy that drops a function would delete its audit lines", async () => {
    const groups = (await deploy("production", { WARDEN_EVENTS: "on" })).all(LOG_GROUP);
    expect(groups.map((g) => g.name).sort()).toEqual(["ChatopsLogGroup", "EnforceHandlerLogGroup", "EventsLogGroup", "EventsWorkerLogGroup", "WatchScheduleHandlerLogGroup", "WorkerLogGroup", "WorkflowsScheduleHandlerLogGroup"]);
    expect(groups.map((g) => `${g.name}: ${String(g.retainOnDelete)}`)).toEqual(groups.map((g) => `${g.name}: true`));
  });

  it("go with the stage on one that applies nothing (removal remove)", async () => {
    const groups = (await deploy("staging", { WARDEN_EVENTS: "on" })).all(LOG_GROUP);
    expect(groups.length).toBe(7);
    expect(groups.filter((g) => g.retainOnDelete === true)).toEqual([]);
  });
});
