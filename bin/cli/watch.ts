/** `warden watch`: polls GitLab's audit events and enforces each subject they name, until a signal. */
import { setTimeout as sleep } from "node:timers/promises";
import { exitCode, firstOf } from "../../lib/jobs/index.ts";
import { jsonForTerminal } from "../../lib/jobs/render/index.ts";
import { watchOnce, watchSources, WatchError, type WatchReport } from "../../lib/jobs/watch/index.ts";
import { auditTrail, gitlabFrom, notice, policyFrom, printReport, progressLine, reportFormat } from "./io.ts";
import { type CliIO, type Command, COMMON_OPTIONS_HELP, FORMAT_HELP, type ParsedArgs, UsageError } from "./command.ts";
import { DEFAULT_WATCH_STATE, fileCursorStore } from "./watch-state.ts";

/** Polls that fail in a row (GitLab down, say) before the watch gives up. */
const MAX_FAILED_POLLS = 10;
/** Exit codes from least to most serious, to end with the worst batch's. */
const SERIOUSNESS = [0, 2, 3, 1];

export const watchCommand: Command = {
  name: "watch",
  summary: "remove stray shares as GitLab records them, by polling its audit events (Premium and up)",
  usage: `Usage: warden watch [--interval 60s] [--state FILE] [--apply] [--audit-log FILE] [--policy FILE] [--format text|markdown|json]

Polls GitLab's audit events (Premium and Ultimate) every interval and enforces, with the same judging,
guard and removal as 'warden enforce', only the projects and groups the new events name: a share made
or raised, a project created or moved in. With an administrator's token (self-managed) it reads the
instance's events, one request a poll; otherwise each scope group's and subgroup's own, one request
per group a poll: the cost is stated at start and refused above gitlab.watch.maxRequestsPerHour.
Blind spot without an administrator: a project share is recorded on the group invited, so an outside
group invited to one of our projects is seen only by the scheduled 'warden enforce'.

The first start begins at the newest event (history is not replayed: 'warden enforce' has the past);
the cursor is saved in the state file after each batch is handled, so a restart goes on from there.
A poll reads at most 1,000 events a source, oldest first: a watch far behind catches up over several
polls. A share GitLab refuses to remove (a 403, a group share kept without Owner) is reported once and
passed; a removal that may pass (a 5xx, a timeout) or a batch cut off is tried again at the next
polls, 3 attempts in all; a batch whose guard tripped is reported and left for review. Subgroups
created after the start are read after a restart.

Options:
  --interval TIME  between polls: 60s (default), 2m, 1h, or seconds (1s to 1h; the cost limit applies)
  --state FILE     the cursor (default ${DEFAULT_WATCH_STATE})
  --apply          remove the strays found (default: report them only; a dry watch sends only GETs)
  --audit-log FILE append one JSON line per change to FILE as it happens
  --policy FILE    policy file (default: $WARDEN_POLICY, else warden.yaml)
${FORMAT_HELP}
                   (json: one line per batch)
${COMMON_OPTIONS_HELP}

SIGINT, SIGTERM and SIGHUP end the watch: a batch under way stops (no new removals, requests in
flight cancelled), its report is printed and its projects and groups kept for the next start.

Exit codes, the most serious batch's: 0 in policy or all applied, 1 error, 2 a dry watch found
strays, 3 a guard tripped (nothing changed in that batch).`,
  options: { interval: { type: "string" }, state: { type: "string" }, apply: { type: "boolean" }, "audit-log": { type: "string" } },
  files: (args) => [{ name: "--state", path: statePathFrom(args) }],
  async run(args, io: CliIO) {
    const intervalMs = intervalFrom(args);
    const statePath = statePathFrom(args);
    const [policy, gitlab] = [await policyFrom(args, io), gitlabFrom(io)];
    // The state file is read (and a foreign one refused) before any request.
    const store = fileCursorStore(statePath, gitlab.instanceUrl);
    // The audit log opened before any request; a failure to write it ends the watch as a signal does.
    const trail = auditTrail(io, args);
    const signal = trail.signal;
    const { sources, statement } = await watchSources(gitlab, policy, intervalMs, signal).catch((err: unknown) => {
      trail.close();
      throw err;
    });
    notice(io, statement);
    const apply = args.values["apply"] === true;
    const waiting = progressLine(io);
    let worst = 0;
    let failed = 0;
    try {
      while (!signal?.aborted) {
        try {
          const polled = await watchOnce({ gitlab, policy, sources, store, apply, signal, audit: trail.sink });
          failed = 0;
          if (polled.started) {
            notice(io, `first start: from the newest audit event now (earlier ones are the scheduled sweep's); cursor in ${statePath}`);
            continue; // the first poll follows at once
          }
          if (polled.report) worst = worse(worst, printBatch(io, polled.report, args));
          else for (const line of [...polled.failedSources, ...polled.ignored]) notice(io, line);
        } catch (err) {
          if (signal?.aborted) break;
          if (err instanceof WatchError || ++failed >= MAX_FAILED_POLLS) throw err;
          notice(io, `poll failed (${(err as Error).message}); trying again at the next poll (${failed} of ${MAX_FAILED_POLLS} in a row)`);
        }
        if (signal?.aborted) break;
        waiting.update(() => `watching: polled at ${new Date().toISOString()}; next poll in ${intervalMs / 1000}s (Ctrl-C ends the watch)`);
        await sleep(intervalMs, undefined, { signal }).catch(() => {});
      }
    } finally {
      waiting.done();
      trail.close();
    }
    return trail.exitCode(worst);
  },
};

/** One batch: a line naming its events, then its report (json: the report as one line). */
function printBatch(io: CliIO, report: WatchReport, args: ParsedArgs): number {
  if (reportFormat(args) === "json") {
    io.stdout.write(`${jsonForTerminal(report)}\n`);
    return exitCode(report);
  }
  const subjects = new Set(report.events.map((e) => e.subject)).size;
  const what = report.events.length > 0 ? `${report.events.length} event(s) (${firstOf(report.events.map((e) => e.id))}) naming ${subjects} subject(s)` : "no new event, projects or groups tried again";
  io.stdout.write(`${report.finishedAt} batch: ${what}\n`);
  return printReport(io, report, args);
}

function worse(a: number, b: number): number {
  return SERIOUSNESS.indexOf(b) > SERIOUSNESS.indexOf(a) ? b : a;
}

/** --interval: 60s, 2m, 1h, or a number of seconds; 1 s to an hour (gitlab.watch.maxRequestsPerHour bounds the cost). */
function intervalFrom({ values }: ParsedArgs): number {
  const text = values["interval"];
  if (text === undefined) return 60_000;
  const match = /^(\d+)(s|m|h)?$/.exec(String(text));
  const ms = match ? Number(match[1]) * { s: 1_000, m: 60_000, h: 3_600_000 }[(match[2] ?? "s") as "s" | "m" | "h"] : NaN;
  if (!(ms >= 1_000 && ms <= 3_600_000)) throw new UsageError(`--interval takes a time from 1s to 1h, like 60s, 2m or 90; got ${JSON.stringify(text)}`);
  return ms;
}

function statePathFrom({ values }: ParsedArgs): string {
  return typeof values["state"] === "string" ? values["state"] : DEFAULT_WATCH_STATE;
}
