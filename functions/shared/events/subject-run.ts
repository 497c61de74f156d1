/**
 * The worker's run for a subject of GitLab's events (functions/events.ts): enforce limited to that
 * project or group, found by its id (a group by itself, not its subgroups: each of those has events of
 * its own). It applies as the Enforce schedule does: unless the stage is report-only. The run is the
 * full run's (judging, guard, removals, audit lines, report; under a policy no full run has judged, its
 * removals come out of a budget the stream's runs and the Watch's share), with its end owed as a scheduled run's
 * is: the report logged and stored, metrics, and the Slack summary the policy's `notify` asks for.
 * A subject outside the scope, or gone from GitLab, is logged and left: nothing ran, nothing is owed;
 * one GitLab fails to read fails the run. The runs of an hour send about gitlab.events.maxRequestsPerHour
 * at most (state/event-request-budget.ts), the reads of a policy kept in a repository among them: past it
 * a run is not started, the policy not even read, and the sweep finds its strays.
 */
import { ScopeError, type EnforceReport } from "../../../lib/jobs/index.ts";
import { errorText } from "../../../lib/jobs/report/index.ts";
import { DEFAULT_EVENTS_MAX_REQUESTS_PER_HOUR, type Policy } from "../../../lib/policy/index.ts";
import { loadPolicy, policyReadRequests } from "../config/policy.ts";
import { isReportOnly } from "../config/settings.ts";
import { logger } from "../lambda/logger.ts";
import { sliceSignal, type TimeLeft } from "../lambda/time-left.ts";
import type { SubjectWorkerEvent } from "../runs/job-request.ts";
import { runLifecycle, RunRefused } from "../runs/lifecycle.ts";
import { runJob } from "../runs/run-job.ts";
import { runLabels } from "../runs/triggers.ts";
import { dynamoEventRequestBudget } from "../state/event-request-budget.ts";
import { dynamoLastSweep } from "../state/last-sweep.ts";
import { dynamoRemovalBudget } from "../state/removal-budget.ts";
import { LOGGED_EVENTS } from "./delivery.ts";
import { recordSecondsToEnforcement } from "./latency.ts";

const lastSweep = dynamoLastSweep();
const removalBudget = dynamoRemovalBudget();
const requestBudget = dynamoEventRequestBudget();
/** The longest adding a run's requests to the hour's count may take: one UpdateItem (a throttled one sent again twice). */
const COUNT_MS = 3_000;

export interface SubjectRun {
  subject: string;
  ran: boolean;
  removed: number;
}

/**
 * The limit of the last policy this container read (undefined before its first): the budget is asked
 * before the policy is read, as a policy kept in a repository costs requests of its own, which a flood
 * past the budget must not send either; and asked again by the policy's own limit where that is lower.
 * A container that has read none asks by the default, and where that is spent reads the policy once to
 * ask by its limit: else a new container would refuse every run of the hour under a policy that raised it.
 */
let knownLimit: number | undefined;
const limitOf = (policy: Policy) => policy.gitlab?.events.maxRequestsPerHour ?? DEFAULT_EVENTS_MAX_REQUESTS_PER_HOUR;

export async function runForSubject(event: SubjectWorkerEvent, signal: AbortSignal, timeLeft: TimeLeft): Promise<SubjectRun> {
  const { subject } = event;
  // By id alone: the path an event gives is the sender's text (delivery.ts), never to be told, in an error Slack is
  // posted or a reason logged, as the name of what GitLab has under that id (nor to make each failure a new one).
  const name = `${subject.kind} ${subject.id}`;
  const target = subject.kind === "group" ? { kind: "group" as const, id: subject.id, subtree: false } : { kind: "project" as const, id: subject.id };
  try {
    let openedWith = knownLimit ?? DEFAULT_EVENTS_MAX_REQUESTS_PER_HOUR;
    let budget = await openRequestBudget(openedWith, name, signal);
    if (budget === "spent" && knownLimit === undefined) {
      // A policy that cannot be read leaves the refusal as it was: the run would fail on it anyway.
      knownLimit = await loadPolicy(signal).then(limitOf, () => undefined);
      if (knownLimit !== undefined && knownLimit > openedWith) budget = await openRequestBudget((openedWith = knownLimit), name, signal);
    }
    if (budget === "spent") throw spentRefusal(openedWith, name);
    const readsBefore = await policyReadRequests();
    let sent = 0;
    const asked = { subject: name, ...(subject.path && { eventPath: subject.path }), events: event.events.slice(0, LOGGED_EVENTS).map((e) => `${e.name} ${e.id}`), eventCount: event.events.length };
    const life = { labels: runLabels("enforce", "event", event.correlationId), timeLeft, signal, asked };
    const { report } = await runLifecycle(life, async ({ policy }) => {
      knownLimit = limitOf(policy);
      if (knownLimit < openedWith && (await openRequestBudget(knownLimit, name, signal)) === "spent") throw spentRefusal(knownLimit, name);
      try {
        // The rules the last full run found matching nothing are refused here too (lib/jobs/enforce/rules.ts).
        const sweep = await lastSweep.read(signal);
        const request = { job: "enforce" as const, apply: !isReportOnly(), targets: [target], ...(sweep ? { lastSweep: sweep } : {}) };
        // Under a policy no full run has judged yet, the events' removals share gitlab.guard.maxRemovals (state/removal-budget.ts).
        const report = (await runJob(request, signal, policy, { removalBudget, sent: (n) => (sent += n) })) as EnforceReport;
        // GitLab failed to read the subject (not "not found"): the run failed, as any run GitLab fails does.
        const [unread] = report.unreadTargets ?? [];
        // Told once whichever subject it was (told-once.ts): the sender chooses the ids, GitLab's failure is one.
        if (unread) throw Object.assign(new Error(`${name} could not be read: ${unread.error}`), { toldAs: `an event's subject could not be read (${unread.lasting ? "refused for good" : "a failure that may pass"})` });
        // A subject by id outside the scope, or gone, is left out of the run with a warning (an event is
        // not bad input, lib/jobs/enforce/examine/targets.ts): then nothing at all was examined.
        if (report.summary.projects + report.summary.groups === 0) throw new RunRefused(report.warnings.join("; "));
        return report;
      } catch (err) {
        // Refused before any change: outside the scope, or not (or no longer) on GitLab.
        if (err instanceof ScopeError) throw new RunRefused(err.message);
        throw err;
      }
    }).finally(async () => {
      sent += (await policyReadRequests()) - readsBefore;
      // Its own slice, not the run's signal: a run the deadline ended ends with that signal fired, and a count
      // sent with it was never written (a flood of runs outlasting their invocations went uncounted).
      const counted = budget;
      const counting = counted && sliceSignal("counting the event run's requests", COUNT_MS, timeLeft);
      if (counting) await counted.spend(sent, counting).catch((err: unknown) => logger.warn("the event runs' request count could not be written", { subject: name, requests: sent, error: errorText(err) }));
    });
    recordSecondsToEnforcement(report, event.events);
    return { subject: name, ran: true, removed: report.summary.removed };
  } catch (err) {
    if (!(err instanceof RunRefused)) throw err;
    logger.info("subject not enforced", { subject: name, reason: err.message });
    return { subject: name, ran: false, removed: 0 };
  }
}

/**
 * Where this run's requests are counted; "spent" once the hour's runs have sent `limit`. When the claims
 * table cannot tell, the run goes ahead uncounted (undefined): one run more is a few requests, a missed
 * one a stray left until the sweep.
 */
async function openRequestBudget(limit: number, name: string, signal: AbortSignal): Promise<{ spend(requests: number, signal?: AbortSignal): Promise<void> } | "spent" | undefined> {
  try {
    return (await requestBudget.open(limit, signal)) ?? "spent";
  } catch (err) {
    logger.warn("the claims table could not be reached: the event's run is not counted against gitlab.events.maxRequestsPerHour", { subject: name, error: errorText(err) });
    return undefined;
  }
}

/** The run not started: the hour's runs have sent gitlab.events.maxRequestsPerHour (`limit`). */
function spentRefusal(limit: number, name: string): RunRefused {
  const reason = `the event runs of this hour have sent gitlab.events.maxRequestsPerHour (${limit}) requests to GitLab: ${name} is left to the scheduled run, which finds what its events named`;
  logger.warn("event run not started: the hour's request budget is spent", { subject: name, reason });
  return new RunRefused(reason);
}
