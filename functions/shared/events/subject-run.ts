/**
 * The worker's run for a subject of GitLab's events (functions/events.ts): enforce limited to that
 * project or group, found by its id (a group by itself, not its subgroups: each of those has events of
 * its own). It applies as the Enforce schedule does: unless the stage is report-only. The run is the
 * full run's (judging, guard, removals, audit lines, report; under a policy no full run has judged, its
 * removals come out of a budget the stream's runs share), with its end owed as a scheduled run's
 * is: the report logged and stored, metrics, and the Slack summary the policy's `notify` asks for.
 * A subject outside the scope, or gone from GitLab, is logged and left: nothing ran, nothing is owed;
 * one GitLab fails to read fails the run.
 */
import { ScopeError, type EnforceReport } from "../../../lib/jobs/index.ts";
import { isReportOnly } from "../config/settings.ts";
import { logger } from "../lambda/logger.ts";
import type { TimeLeft } from "../lambda/time-left.ts";
import type { SubjectWorkerEvent } from "../runs/job-request.ts";
import { runLifecycle, RunRefused } from "../runs/lifecycle.ts";
import { runJob } from "../runs/run-job.ts";
import { runLabels } from "../runs/triggers.ts";
import { dynamoLastSweep } from "../state/last-sweep.ts";
import { dynamoRemovalBudget } from "../state/removal-budget.ts";
import { LOGGED_EVENTS } from "./delivery.ts";
import { recordSecondsToEnforcement } from "./latency.ts";

const lastSweep = dynamoLastSweep();
const removalBudget = dynamoRemovalBudget();

export interface SubjectRun {
  subject: string;
  ran: boolean;
  removed: number;
}

export async function runForSubject(event: SubjectWorkerEvent, signal: AbortSignal, timeLeft: TimeLeft): Promise<SubjectRun> {
  const { subject } = event;
  const name = `${subject.kind} ${subject.id}${subject.path ? ` (${subject.path})` : ""}`;
  const target = subject.kind === "group" ? { kind: "group" as const, id: subject.id, subtree: false } : { kind: "project" as const, id: subject.id };
  try {
    const life = { labels: runLabels("enforce", "event", event.correlationId), timeLeft, asked: { subject: name, events: event.events.slice(0, LOGGED_EVENTS).map((e) => `${e.name} ${e.id}`), eventCount: event.events.length } };
    const { report } = await runLifecycle(life, async ({ policy }) => {
      try {
        // The rules the last full run found matching nothing are refused here too (lib/jobs/enforce/rules.ts).
        const sweep = await lastSweep.read(signal);
        const request = { job: "enforce" as const, apply: !isReportOnly(), targets: [target], ...(sweep ? { lastSweep: sweep } : {}) };
        // Under a policy no full run has judged yet, the events' removals share gitlab.guard.maxRemovals (state/removal-budget.ts).
        const report = (await runJob(request, signal, policy, { removalBudget })) as EnforceReport;
        // GitLab failed to read the subject (not "not found"): the run failed, as any run GitLab fails does.
        const [unread] = report.unreadTargets ?? [];
        if (unread) throw new Error(`${name} could not be read: ${unread.error}`);
        // A subject by id outside the scope, or gone, is left out of the run with a warning (an event is
        // not bad input, lib/jobs/enforce/examine/targets.ts): then nothing at all was examined.
        if (report.summary.projects + report.summary.groups === 0) throw new RunRefused(report.warnings.join("; "));
        return report;
      } catch (err) {
        // Refused before any change: outside the scope, or not (or no longer) on GitLab.
        if (err instanceof ScopeError) throw new RunRefused(err.message);
        throw err;
      }
    });
    recordSecondsToEnforcement(report, event.events);
    return { subject: name, ran: true, removed: report.summary.removed };
  } catch (err) {
    if (!(err instanceof RunRefused)) throw err;
    logger.info("subject not enforced", { subject: name, reason: err.message });
    return { subject: name, ran: false, removed: 0 };
  }
}
