/**
 * Which alarms watch the watchers: each sweep (a scheduled or console enforce run of the whole scope,
 * plain or durable) judges the event-driven paths deployed beside it, the Watch function
 * (WARDEN_WATCH=on) and the Events endpoint (WARDEN_EVENTS=on):
 *
 * - missed by events: the strays it finds that were made after the previous sweep's window and at
 *   least GRACE_MS before this sweep began (lib/jobs/enforce/missed.ts). Judged only on a stage that
 *   applies (on a report-only stage the watch and the stream remove nothing either), and only when the
 *   previous sweep found event-driven enforcement on too: before, nobody knows since when it has been.
 * - events silent (WARDEN_EVENTS=on): no delivery recorded (state/event-coverage.ts) for
 *   WARDEN_EVENTS_SILENCE_HOURS, or none ever since the first sweep that found the endpoint on.
 *
 * Both go into the report (a field and a warning) and its metrics (MissedByEvents, EventsSilent,
 * alarmed in sst.config.ts). The reads and the sweep's record are one step, so a durable execution
 * replays them rather than judging again. A claims table that cannot be read is a warning, never a
 * reason for the sweep to fail.
 */
import { missedByEvents, missedWarning, silenceWarning, type EventDelivery, type EnforceReport, direct, type Steps } from "../../../lib/jobs/index.ts";
import { errorText } from "../../../lib/jobs/report/index.ts";
import { ConfigError, isReportOnly } from "../config/settings.ts";
import { logger } from "../lambda/logger.ts";
import { dynamoCoverage, type CoverageStore, type SweepRecord } from "../state/event-coverage.ts";

/** How long the watch (a poll a minute) and the stream (seconds) may take before a stray counts as missed. */
export const GRACE_MS = 10 * 60_000;
export const DEFAULT_SILENCE_HOURS = 24;

export interface CoverageSettings {
  events: boolean;
  watch: boolean;
  /** The stage applies: the event-driven paths remove strays. */
  applies: boolean;
  silenceHours: number;
}

/** From the environment sst.config.ts sets (which checks the silence setting at deploy); a wrong one throws, naming it. */
export function coverageSettings(env: NodeJS.ProcessEnv = process.env): CoverageSettings {
  const set = env["WARDEN_EVENTS_SILENCE_HOURS"];
  const silenceHours = set === undefined || set === "" ? DEFAULT_SILENCE_HOURS : Number(set);
  if (!Number.isInteger(silenceHours) || silenceHours < 1) throw new ConfigError(`WARDEN_EVENTS_SILENCE_HOURS must be a whole number of hours (1 or more), not "${set}"`);
  return { events: env["WARDEN_EVENTS"] === "on", watch: env["WARDEN_WATCH"] === "on", applies: !isReportOnly(), silenceHours };
}

/** What the step read and recorded: the previous sweep, the last delivery, and the step's clock. */
interface Observed {
  previous: SweepRecord | null;
  lastDelivery: string | null;
  at: string;
}

const defaultStore = dynamoCoverage();

/** The sweep's report judged, when event-driven enforcement is deployed; otherwise as it was. */
export async function judgeSweep(report: EnforceReport, steps: Pick<Steps, "step"> = direct, store: CoverageStore = defaultStore): Promise<EnforceReport> {
  let settings: CoverageSettings;
  try {
    settings = coverageSettings();
  } catch (err) {
    // Judged after the removals: a setting edited wrong in the console must not fail a sweep that removed.
    return { ...report, warnings: [...report.warnings, `missed by events: not judged (${errorText(err)})`] };
  }
  // Off, a sweep still records that it was (when the table is there): turned on again later, the
  // window must not reach back over a time nothing listened.
  if (!deployed(settings) && !process.env["WARDEN_CLAIMS_TABLE"]) return report;
  const to = new Date(Date.parse(report.startedAt) - GRACE_MS).toISOString();
  let seen: Observed;
  try {
    // Read in one step and recorded in the next: a read attempted again (its invocation cut after the
    // write) would find this sweep's own record as the previous one, and judge no window at all.
    seen = await steps.step("events coverage", () => observe(store, settings));
    if (report.summary.complete) await steps.step("events coverage recorded", () => recordSweep(store, settings, seen, to));
  } catch (err) {
    logger.error("judging the event-driven paths failed: the claims table could not be read", { error: errorText(err) });
    return { ...report, warnings: [...report.warnings, `missed by events: not judged (the claims table could not be read: ${errorText(err)})`] };
  }
  const warnings = [...report.warnings];
  const judged: Partial<EnforceReport> = {};
  const covered = deployed(settings) && settings.applies;
  if (covered && seen.previous?.covered && Date.parse(seen.previous.judgedTo) < Date.parse(to)) {
    judged.missedByEvents = missedByEvents(report.actions, { from: seen.previous.judgedTo, to });
    const warning = missedWarning(judged.missedByEvents);
    if (warning) warnings.push(warning);
  } else if (covered && !seen.previous?.covered) {
    warnings.push("missed by events: not judged this time (no earlier sweep found event-driven enforcement on, so nobody knows since when it has been): judged from the next sweep on");
  }
  if (settings.events) {
    judged.eventDelivery = delivery(seen, settings.silenceHours);
    const warning = silenceWarning(judged.eventDelivery);
    if (warning) warnings.push(warning);
  }
  return { ...report, ...judged, warnings };
}

/** Reads what the paths recorded: the previous sweep's record, and the last delivery. */
async function observe(store: CoverageStore, settings: CoverageSettings): Promise<Observed> {
  const at = new Date().toISOString();
  const [previous, lastDelivery] = await Promise.all([store.previousSweep(), settings.events ? store.lastDelivery() : null]);
  return { previous: previous ?? null, lastDelivery, at };
}

/** Records this sweep (a complete one: only it moves the window on), from what `observe` read before it. */
async function recordSweep(store: CoverageStore, settings: CoverageSettings, { previous, at }: Observed, to: string): Promise<{ recorded: true }> {
  const judgedTo = previous && Date.parse(previous.judgedTo) > Date.parse(to) ? previous.judgedTo : to;
  const eventsSince = settings.events ? (previous?.eventsSince ?? at) : null;
  await store.recordSweep({ judgedTo, covered: deployed(settings) && settings.applies, eventsSince });
  return { recorded: true };
}

function deployed(settings: CoverageSettings): boolean {
  return settings.events || settings.watch;
}

function delivery(seen: Observed, silentHours: number): EventDelivery {
  const now = Date.parse(seen.at);
  // Never delivered: silent once the endpoint has been on for the whole setting.
  const since = seen.lastDelivery ?? seen.previous?.eventsSince ?? null;
  const silent = since !== null && now - Date.parse(since) > silentHours * 3_600_000;
  return { last: seen.lastDelivery, silentHours, silent };
}
