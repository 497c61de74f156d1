/** sst.config.ts's alarms: per job, on metrics the functions really write (read so that no function can quiet them), the heartbeat, Lambda's own count of each schedule's invocations, and the topic's subscription. */
import { describe, expect, it, vi } from "vitest";
import { recordCursorAge, recordNotStored, recordRun } from "../functions/shared/runs/metrics.ts";
import { emfRecords } from "./support/emf.ts";
import { deploy } from "./support/sst/deploy.ts";

/** An alarm that fires on any data point in 5 minutes: a run failed, an event dropped. */
const ANY_IN_FIVE_MINUTES = { period: 300, evaluationPeriods: 1, comparisonOperator: "GreaterThanOrEqualToThreshold", threshold: 1, treatMissingData: "notBreaching" };

describe("sst.config.ts alarms", () => {
  it("alarms per job, into the SNS topic, when a run fails, its guard trips or actions fail", async () => {
    const deployed = await deploy("production");
    expect(deployed.alarms().map((a) => a.name).sort()).toEqual(
      ["ChatopsThrottled", "EnforceActionsFailed", "EnforceFailed", "EnforceGuardTripped", "EnforceHeartbeat", "EnforceNotInvoked", "EnforceReportNotStored", "MissedByEvents", "WatchBehind", "WatchNotInvoked", "WorkerDropped", "WorkerErrors", "WorkflowsActionsFailed", "WorkflowsFailed", "WorkflowsGuardTripped", "WorkflowsHeartbeat", "WorkflowsNotInvoked"],
    );
    const topic = deployed.topicArn();
    // The watch's own: behind GitLab's audit events, or not polling (no metric counts as behind).
    expect(deployed.one("aws:cloudwatch/metricAlarm:MetricAlarm", "WatchBehind")).toEqual({
      name: "warden-production-watch-behind",
      alarmDescription: expect.stringMatching(/^Warden watch \(production\): .*behind GitLab's audit events, or has not polled/),
      namespace: "Warden",
      metricName: "WatchCursorAgeSeconds",
      dimensions: { service: "warden", stage: "production", job: "enforce", trigger: "watch" },
      statistic: "Maximum",
      period: 300,
      evaluationPeriods: 3,
      comparisonOperator: "GreaterThanThreshold",
      threshold: 900,
      treatMissingData: "breaching",
      alarmActions: [topic],
      okActions: [topic],
    });
    const metricOf = { Failed: "RunFailed", GuardTripped: "GuardTripped", ActionsFailed: "ActionsFailed", ReportNotStored: "ReportNotStored" } as const;
    for (const [suffix, metricName] of Object.entries(metricOf)) {
      expect(deployed.one("aws:cloudwatch/metricAlarm:MetricAlarm", `Enforce${suffix}`)).toEqual({
        name: `warden-production-enforce-${suffix.replace(/(?<=.)([A-Z])/g, "-$1").toLowerCase()}`,
        alarmDescription: expect.stringMatching(/^Warden enforce \(production\): /),
        namespace: "Warden",
        metricName,
        dimensions: { service: "warden", stage: "production", job: "enforce" },
        statistic: "Maximum",
        ...ANY_IN_FIVE_MINUTES,
        alarmActions: [topic],
        okActions: [topic],
      });
    }
  });

  it("watches the watchers: a sweep's misses with the watch or the stream deployed, the stream's silence with events on (issue 29.2)", async () => {
    const events = await deploy("production", { WARDEN_EVENTS: "on" });
    for (const [name, metricName] of [["MissedByEvents", "MissedByEvents"], ["EventsSilent", "EventsSilent"]] as const) {
      expect(events.one("aws:cloudwatch/metricAlarm:MetricAlarm", name), name).toMatchObject({
        name: `warden-production-enforce-${name === "MissedByEvents" ? "missed-by-events" : "events-silent"}`,
        namespace: "Warden",
        metricName,
        dimensions: { service: "warden", stage: "production", job: "enforce" },
        comparisonOperator: "GreaterThanOrEqualToThreshold",
        threshold: 1,
        alarmActions: [events.topicArn()],
      });
    }
    const watchOnly = await deploy("production");
    expect(watchOnly.has("aws:cloudwatch/metricAlarm:MetricAlarm", "EventsSilent")).toBe(false);
    const neither = await deploy("production", { WARDEN_WATCH_SCHEDULE: "off" });
    expect(neither.has("aws:cloudwatch/metricAlarm:MetricAlarm", "MissedByEvents")).toBe(false);
  });

  it("watches metrics the functions really write: each alarm's namespace, metric and dimensions are in a run's EMF record", async () => {
    const deployed = await deploy("production", { WARDEN_EVENTS: "on" });
    const lines: string[] = [];
    const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => (lines.push(String(chunk)), true));
    const report = { job: "enforce", dryRun: false, summary: { guard: "ok", complete: true }, actions: [], stats: { requests: 1, retries: 0, rateLimited: 0, pages: 1, durationMs: 5 }, warnings: [] };
    // A sweep's judgement of the event-driven paths (functions/shared/runs/event-coverage.ts).
    const judged = { missedByEvents: { from: "2025-01-01T00:00:00.000Z", to: "2025-01-02T00:00:00.000Z", count: 0, shares: [], undated: 0 }, eventDelivery: { last: null, silentHours: 24, silent: false } };
    for (const job of ["enforce", "workflows"] as const) recordRun({ report: { ...report, ...(job === "enforce" ? judged : {}), job } as never }, { job, trigger: "schedule", stage: "production" });
    recordCursorAge(0, { job: "enforce", trigger: "watch", stage: "production" });
    recordNotStored({ job: "enforce", trigger: "schedule", stage: "production" });
    write.mockRestore();
    const records = emfRecords(lines.flatMap((l) => l.split("\n")).filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>));
    expect(records).toHaveLength(4);
    for (const alarm of deployed.alarms().filter((a) => a.inputs["namespace"] !== "AWS/Lambda")) {
      const { namespace, metricName, dimensions } = alarm.inputs as { namespace: string; metricName: string; dimensions: Record<string, string> };
      const published = records.some((r) =>
        r._aws.CloudWatchMetrics.some(
          (d) =>
            d.Namespace === namespace &&
            d.Metrics.some((m) => m.Name === metricName) &&
            d.Dimensions.some((set) => set.length === Object.keys(dimensions).length && set.every((name) => r[name] === dimensions[name])),
        ),
      );
      expect(published, alarm.name).toBe(true);
    }
  });

  it("raises the heartbeat when no scheduled run succeeded in two schedule periods, missing data included", async () => {
    const deployed = await deploy();
    expect(deployed.one("aws:cloudwatch/metricAlarm:MetricAlarm", "EnforceHeartbeat")).toMatchObject({
      namespace: "Warden",
      metricName: "RunSucceeded",
      dimensions: { service: "warden", stage: "staging", job: "enforce", trigger: "schedule" },
      statistic: "Maximum",
      period: 86_400,
      evaluationPeriods: 2,
      comparisonOperator: "LessThanThreshold",
      threshold: 1,
      treatMissingData: "breaching",
      alarmActions: [deployed.topicArn()],
    });
    expect(deployed.one("aws:cloudwatch/metricAlarm:MetricAlarm", "WorkflowsHeartbeat")).toMatchObject({ period: 3_600, evaluationPeriods: 2, dimensions: { job: "workflows", trigger: "schedule" } });
  });

  it("sizes the heartbeat to the schedule, leaves it out for a schedule turned off, and refuses a rate CloudWatch cannot watch", async () => {
    const deployed = await deploy("staging", { WARDEN_ENFORCE_SCHEDULE: "rate(6 hours)", WARDEN_WORKFLOWS_SCHEDULE: "cron(0 3 * * ? *)" });
    expect(deployed.one("aws:cloudwatch/metricAlarm:MetricAlarm", "EnforceHeartbeat")).toMatchObject({ period: 21_600 });
    expect(deployed.one("aws:cloudwatch/metricAlarm:MetricAlarm", "WorkflowsHeartbeat")).toMatchObject({ period: 86_400 });
    const off = await deploy("staging", { WARDEN_ENFORCE_SCHEDULE: "off" });
    expect(off.alarms().map((a) => a.name)).not.toContain("EnforceHeartbeat");
    expect(off.alarms().map((a) => a.name)).toContain("EnforceFailed");
    await expect(deploy("staging", { WARDEN_ENFORCE_SCHEDULE: "rate(4 days)" })).rejects.toThrow('WARDEN_ENFORCE_SCHEDULE: "rate(4 days)" is longer than CloudWatch\'s heartbeat alarm can watch');
  });

  it("subscribes WARDEN_ALARM_EMAIL to the alarm topic, only when set, and refuses what is not an address", async () => {
    expect((await deploy()).all("aws:sns/topicSubscription:TopicSubscription")).toEqual([]);
    const subscribed = await deploy("staging", { WARDEN_ALARM_EMAIL: "ops@example.com" });
    expect(subscribed.one("aws:sns/topicSubscription:TopicSubscription", "AlarmEmail")).toEqual({ topic: subscribed.topicArn(), protocol: "email", endpoint: "ops@example.com" });
    await expect(deploy("staging", { WARDEN_ALARM_EMAIL: "ops at example.com" })).rejects.toThrow('WARDEN_ALARM_EMAIL: "ops at example.com" is not an e-mail address');
  });

  it("alarms only on the jobs deployed; the watch's own only when its schedule is on", async () => {
    const deployed = await deploy("staging", { N8N_URL: undefined });
    expect(deployed.alarms().map((a) => a.name).sort()).toEqual(["ChatopsThrottled", "EnforceActionsFailed", "EnforceFailed", "EnforceGuardTripped", "EnforceHeartbeat", "EnforceNotInvoked", "EnforceReportNotStored", "MissedByEvents", "WatchBehind", "WatchNotInvoked", "WorkerDropped", "WorkerErrors"]);
    const watchOff = await deploy("staging", { N8N_URL: undefined, WARDEN_WATCH_SCHEDULE: "off" });
    expect(watchOff.alarms().map((a) => a.name)).not.toContain("WatchBehind");
    expect(watchOff.alarms().map((a) => a.name)).not.toContain("WatchNotInvoked");
    const n8nOnly = await deploy("staging", { GITLAB_URL: undefined });
    expect(n8nOnly.alarms().every((a) => /^(Work(flows|er)|Chatops)/.test(a.name))).toBe(true);
    const chatOff = await deploy("staging", { N8N_URL: undefined, WARDEN_CHATOPS: "off" });
    expect(chatOff.alarms().map((a) => a.name)).not.toContain("WorkerDropped");
    expect(chatOff.alarms().map((a) => a.name)).not.toContain("ChatopsThrottled");
  }, 60_000);

  // A hostile review's finding: CloudWatch takes EMF from any log group, so code in any function (a public one included)
  // may add data points of any value to Warden's metrics from its own log group. A Sum then takes a forged -1 against a
  // real RunFailed, a Minimum a forged cursor age of 0 against a watch behind, and any forged point quiets an alarm of
  // absence: the heartbeat (a forged RunSucceeded) and the watch's "has not polled".
  it("reads Warden's metrics by their Maximum, which a forged data point cannot lower, and alarms on Lambda's own count of each schedule's invocations, which no function can write", async () => {
    const deployed = await deploy("production", { WARDEN_EVENTS: "on" });
    for (const alarm of deployed.alarms().filter((a) => a.inputs["namespace"] === "Warden")) expect(alarm.inputs["statistic"], alarm.name).toBe("Maximum");
    const topic = deployed.topicArn();
    for (const [name, what, period] of [["Enforce", "enforce", 86_400], ["Workflows", "workflows", 3_600], ["Watch", "watch", 300]] as const) {
      expect(deployed.one("aws:cloudwatch/metricAlarm:MetricAlarm", `${name}NotInvoked`), name).toEqual({
        name: `warden-production-${what}-not-invoked`,
        alarmDescription: expect.stringMatching(new RegExp(`^Warden ${what} \\(production\\): its schedule invoked the function not once in two schedule periods`)),
        namespace: "AWS/Lambda",
        metricName: "Invocations",
        // The function the schedule invokes: the alarm counts its invocations, whatever the version.
        dimensions: { FunctionName: deployed.fn(name).physicalName },
        statistic: "Sum",
        period,
        evaluationPeriods: 2,
        comparisonOperator: "LessThanThreshold",
        threshold: 1,
        treatMissingData: "breaching",
        alarmActions: [topic],
        okActions: [topic],
      });
      expect(deployed.schedule(name).target.arn, name).toContain(`:function:${deployed.fn(name).physicalName}`);
    }
    const off = await deploy("production", { WARDEN_ENFORCE_SCHEDULE: "off" });
    expect(off.alarms().map((a) => a.name)).not.toContain("EnforceNotInvoked");
  });

  // On Lambda's own counts, which no function can write, any in 5 minutes:
  // - a worker's events wait in its queue (its reserved concurrency) for up to 6 hours, and are tried once: one dropped, or an
  //   invocation that failed outside the handler (a timeout, out of memory), writes no metric of Warden's, and nobody was told;
  // - a flood of requests at a public endpoint, tokenless ones included (each refused at once, but holding a slot while it
  //   is), has Lambda refuse the rest past its reserved concurrency: GitLab's deliveries then, which it never sends again.
  it("alarms on each worker's events dropped and invocations' errors, and each endpoint's requests refused past its reserved concurrency, by Lambda's own count", async () => {
    const deployed = await deploy("production", { WARDEN_EVENTS: "on" });
    const topic = deployed.topicArn();
    const alarms = [
      ...(["Worker", "EventsWorker"] as const).flatMap((name) => [[name, "Dropped", "AsyncEventsDropped", ""], [name, "Errors", "Errors", ""]] as const),
      ...(["Chatops", "Events"] as const).map((name) => [name, "Throttled", "Throttles", "requests were refused past its reserved concurrency"] as const),
    ];
    for (const [name, suffix, metricName, says] of alarms) {
      const what = name.replace(/(?<=.)([A-Z])/g, "-$1").toLowerCase();
      expect(deployed.one("aws:cloudwatch/metricAlarm:MetricAlarm", `${name}${suffix}`), `${name}${suffix}`).toEqual({
        name: `warden-production-${what}-${suffix.toLowerCase()}`,
        alarmDescription: expect.stringMatching(new RegExp(`^Warden ${what} \\(production\\): ${says}`)),
        namespace: "AWS/Lambda",
        metricName,
        dimensions: { FunctionName: deployed.fn(name).physicalName },
        statistic: "Sum",
        ...ANY_IN_FIVE_MINUTES,
        alarmActions: [topic],
        okActions: [topic],
      });
    }
  });
});
