/**
 * Issue 29.2, which alarms watch the watchers: the Enforce function's sweep (the schedule's run,
 * against the GitLab simulator, dynalite and a loopback Secrets Manager) judges the event-driven paths
 * deployed beside it. Strays made (by their audit event, which the simulator dates on its clock) while
 * the stream was on but silent are counted as MissedByEvents, named, and emitted; strays made just now
 * (within the grace) are not; no delivery for WARDEN_EVENTS_SILENCE_HOURS is warned of, with a metric.
 * And the Events function records a delivery only once its token was checked; once GitLab has streamed,
 * only the stream's deliveries keep it from being silent (a developer's push sends a system hook).
 */
import { LocalDurableTestRunner } from "@aws/durable-execution-sdk-js-testing";
import { describe, expect, it, vi } from "vitest";
import { dynamoCoverage } from "../../../functions/shared/state/event-coverage.ts";
import type { EnforceReport } from "../../../lib/jobs/index.ts";
import { GITLAB_EVENT_TOKENS, streamDelivery, systemHookDelivery } from "../../../sim/aws/gitlab-deliveries.ts";
import { validReport } from "../../support/report.ts";
import { client, IDS, share, WATCH_TOKENS, watchPolicy, watchPolicyText, watchWorld } from "../../support/watch-world.ts";
import { recordingSteps } from "../../support/steps.ts";
import { enforce } from "../../../lib/jobs/index.ts";
import { emfRecords } from "../../support/emf.ts";
import { captureLogs, coldEnforce, lambdaContext } from "../../support/lambda.ts";
import { durableWorld } from "../../support/durable-world.ts";

const HOUR = 3_600_000;
/** The simulator's clock for the audit events it records. */
let simNow = Date.now();
const world = durableWorld({
  skipTime: false,
  policy: watchPolicyText(),
  eventsSecret: JSON.stringify(GITLAB_EVENT_TOKENS),
  gitlab: () => {
    simNow = Date.now();
    return { dataset: watchWorld(), tokens: WATCH_TOKENS, clock: () => simNow };
  },
  env: () => ({ WARDEN_REPORT_ONLY: "false", WARDEN_EVENTS: "on", WARDEN_WATCH: "off", POWERTOOLS_METRICS_DISABLED: "false" }),
});

const store = () => dynamoCoverage({ client: world.dynamo.client(), table: () => world.table });
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

/** Two strays made `ms` ago, as people make them: a project's share and a group's, each with its audit event. */
async function straysMade(ms: number): Promise<void> {
  simNow = Date.now() - ms;
  await share(world.gitlab, "jane", `/projects/${IDS.api}/share`, IDS.partners);
  await share(world.gitlab, "jane", `/groups/${IDS.team}/share`, IDS.partners);
  simNow = Date.now();
}

async function sweep(): Promise<{ report: EnforceReport; metrics: Record<string, unknown>[] }> {
  const logs = captureLogs();
  try {
    const report = validReport(await (await coldEnforce<EnforceReport>())({ source: "schedule" }));
    const metrics = emfRecords(logs.lines()).filter((r) => "StraysFound" in r);
    return { report, metrics };
  } finally {
    logs.restore();
  }
}

describe("a sweep judges the event-driven paths (issue 29.2)", () => {
  it("counts and names the strays made while the stream was on but silent, emits MissedByEvents, and warns of the silence", async () => {
    // The previous sweep judged up to 26 hours ago, with the stream on; its last delivery was 25 hours ago.
    await store().recordSweep({ judgedTo: ago(26 * HOUR), covered: true, eventsSince: ago(30 * 24 * HOUR) });
    await store().delivered("stream", ago(25 * HOUR));
    await straysMade(3 * HOUR);

    const { report, metrics } = await sweep();
    expect(report.summary.removed).toBe(2);
    expect(report.missedByEvents).toMatchObject({ count: 2, undated: 0, from: expect.any(String), to: expect.any(String) });
    expect(report.missedByEvents!.shares.map((s) => `${s.kind} ${s.subject} with ${s.group} by ${s.addedBy}`).sort()).toEqual(["group acme/team with partners by jane", "project acme/team/api with partners by jane"]);
    expect(report.warnings.join("\n")).toMatch(/missed by events: 2 stray shares made between .* were not removed by the watch or the event stream .*project acme\/team\/api with partners \(added by jane at /);
    expect(report.eventDelivery).toEqual({ last: expect.any(String), silentHours: 24, silent: true });
    expect(report.warnings.join("\n")).toMatch(/events silent: GitLab has delivered no event to the Events endpoint since .*, more than 24 hours \(WARDEN_EVENTS_SILENCE_HOURS\)/);
    expect(metrics).toHaveLength(1);
    expect(metrics[0]).toMatchObject({ MissedByEvents: 2, EventsSilent: 1, job: "enforce" });
    // The window moved on: the next sweep judges from this one's end, so each miss is counted once.
    expect(Date.parse((await store().previousSweep())!.judgedTo)).toBeGreaterThan(Date.now() - 11 * 60_000);
  });

  it("does so in the deployed, durable Enforce too, in a step of its own", async () => {
    await store().recordSweep({ judgedTo: ago(26 * HOUR), covered: true, eventsSince: ago(30 * 24 * HOUR) });
    await store().delivered("stream", ago(25 * HOUR));
    await straysMade(3 * HOUR);
    vi.resetModules();
    const { handler } = await import("../../../functions/enforce.ts");
    const execution = await new LocalDurableTestRunner<EnforceReport>({ handlerFunction: handler as never }).run({ payload: { source: "schedule" } });
    expect(execution.getStatus()).toBe("SUCCEEDED");
    const report = validReport(execution.getResult()!);
    expect(report.missedByEvents).toMatchObject({ count: 2 });
    expect(report.eventDelivery).toMatchObject({ silent: true });
  });

  it("a coverage step cut off after its work and attempted again still judges the window from the previous sweep", async () => {
    // Read and recorded in one step, the attempt again read this sweep's own record as the previous one: no window judged.
    await store().recordSweep({ judgedTo: ago(26 * HOUR), covered: true, eventsSince: ago(30 * 24 * HOUR) });
    await straysMade(3 * HOUR);
    const gitlab = client(world.gitlab, "root");
    const report = await enforce({ gitlab, policy: watchPolicy(), apply: true });
    const steps = recordingSteps({ sliceMs: 10_000, perStep: 100, crash: ["events coverage", "events coverage recorded"] });
    vi.resetModules();
    const { judgeSweep } = await import("../../../functions/shared/runs/event-coverage.ts");
    const judged = await judgeSweep(report, steps, store());
    expect(steps.crashed).toEqual(["events coverage", "events coverage recorded"]);
    expect(judged.missedByEvents).toMatchObject({ count: 2 });
    expect(Date.parse((await store().previousSweep())!.judgedTo)).toBeGreaterThan(Date.now() - 11 * 60_000);
  });

  it("counts nothing when the stream delivers and the strays were made just now, within the grace the watch and the stream have", async () => {
    await store().recordSweep({ judgedTo: ago(24 * HOUR), covered: true, eventsSince: ago(30 * 24 * HOUR) });
    await store().delivered("stream", ago(5 * 60_000));
    await straysMade(60_000);

    const { report, metrics } = await sweep();
    expect(report.summary.strays).toBe(2);
    expect(report.missedByEvents).toMatchObject({ count: 0, shares: [] });
    expect(report.eventDelivery).toMatchObject({ silent: false });
    expect(report.warnings.join("\n")).not.toMatch(/missed by events|events silent/);
    expect(metrics[0]).toMatchObject({ MissedByEvents: 0, EventsSilent: 0 });
  });

  it("takes WARDEN_EVENTS_SILENCE_HOURS: a delivery 3 hours ago is silence past a 2-hour setting", async () => {
    vi.stubEnv("WARDEN_EVENTS_SILENCE_HOURS", "2");
    await store().recordSweep({ judgedTo: ago(24 * HOUR), covered: true, eventsSince: ago(30 * 24 * HOUR) });
    await store().delivered("system-hook", ago(3 * HOUR));
    const { report, metrics } = await sweep();
    expect(report.eventDelivery).toMatchObject({ silentHours: 2, silent: true });
    expect(metrics[0]).toMatchObject({ EventsSilent: 1 });
  });

  it("a silence setting edited wrong in the console is named in the report, and does not fail the sweep that removed", async () => {
    vi.stubEnv("WARDEN_EVENTS_SILENCE_HOURS", "a day");
    await straysMade(3 * HOUR);
    const { report } = await sweep();
    expect(report.summary.removed).toBe(2);
    expect(report.warnings).toContain('missed by events: not judged (WARDEN_EVENTS_SILENCE_HOURS must be a whole number of hours (1 or more), not "a day")');
  });

  it("with no earlier sweep, judges nothing and says so, then judges from the next sweep on; a stray older than the window is not the events'", async () => {
    await straysMade(3 * HOUR);
    const first = await sweep();
    expect(first.report.missedByEvents).toBeUndefined();
    expect(first.report.warnings.join("\n")).toMatch(/missed by events: not judged this time/);
    // Never a delivery, but the endpoint was found on only now: not yet silent.
    expect(first.report.eventDelivery).toEqual({ last: null, silentHours: 24, silent: false });
    expect(first.metrics[0]).not.toHaveProperty("MissedByEvents");
    // The first sweep removed them; made again before its window's end, they are not this sweep's to count.
    await straysMade(2 * HOUR);
    const second = await sweep();
    expect(second.report.missedByEvents).toMatchObject({ count: 0 });
  });

  it("judges nothing on a report-only stage (the watch and the stream remove nothing there either)", async () => {
    vi.stubEnv("WARDEN_REPORT_ONLY", "true");
    await store().recordSweep({ judgedTo: ago(26 * HOUR), covered: true, eventsSince: ago(30 * 24 * HOUR) });
    await straysMade(3 * HOUR);
    const { report } = await sweep();
    expect(report.dryRun).toBe(true);
    expect(report.missedByEvents).toBeUndefined();
  });

  it("leaves a report as it was with neither the watch nor the events on, and no claims table", async () => {
    vi.stubEnv("WARDEN_EVENTS", "off");
    vi.stubEnv("WARDEN_CLAIMS_TABLE", undefined);
    await straysMade(3 * HOUR);
    const { report } = await sweep();
    expect(report).not.toHaveProperty("missedByEvents");
    expect(report).not.toHaveProperty("eventDelivery");
  });
});

describe("the Events function records GitLab's deliveries for the sweep", () => {
  async function deliver(event: ReturnType<typeof streamDelivery>): Promise<number> {
    vi.resetModules();
    const { handler } = await import("../../../functions/events.ts");
    return ((await handler(event, lambdaContext({ functionName: "warden-test-Events" }))) as { statusCode: number }).statusCode;
  }

  it("only after the token was checked: a forged delivery cannot hide the silence", async () => {
    expect(await deliver(streamDelivery({ id: 1, event_type: "user_signed_in", created_at: new Date().toISOString() }, { token: "STREAM-TOKEN-forged000000000" }))).toBe(401);
    expect(await store().lastDelivery()).toBeNull();
    const before = Date.now();
    expect(await deliver(streamDelivery({ id: 1, event_type: "user_signed_in", created_at: new Date().toISOString() }))).toBe(200);
    expect(Date.parse((await store().lastDelivery())!)).toBeGreaterThanOrEqual(before - 1000);
  });

  it("once GitLab has streamed, only the stream's deliveries count: a system hook (a developer's push) does not hide a stream that stopped", async () => {
    await store().recordSweep({ judgedTo: ago(26 * HOUR), covered: true, eventsSince: ago(30 * 24 * HOUR) });
    const streamed = ago(72 * HOUR);
    await store().delivered("stream", streamed);
    const push = systemHookDelivery({ event_name: "repository_update", user_id: 42, user_name: "dev", project_id: 999, changes: [], refs: ["refs/heads/main"] });
    expect(await deliver(push)).toBe(200);
    const { report, metrics } = await sweep();
    expect(report.eventDelivery).toMatchObject({ last: streamed, silent: true });
    expect(metrics[0]).toMatchObject({ EventsSilent: 1 });
  });
});
